import { beforeAll, describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { readMember } from '../../src/collect/index-usage-members';
import { confirmFindings } from '../../src/confirm';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import { analyze } from '../../src/core/runner';
import rule from './index';
import { planIndexes } from './confirm';
import { expectScratchDropped } from '../../test/support/scratch';
import { useLiveDb } from '../../test/support/live-db';

const DB = 'mongo_advisor_test_index_usage';

describe('index-usage (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    const now = Date.now();
    await db.collection('orders').insertMany(
      Array.from({ length: 400 }, (_, i) => ({ status: ['new', 'paid', 'shipped'][i % 3], customer: `c${i % 50}`, total: i * 3, createdAt: new Date(now - i * 60_000) })),
    );
    await db.collection('orders').createIndexes([
      { key: { status: 1 }, name: 'status_1' },
      { key: { status: 1, createdAt: -1 }, name: 'status_1_createdAt_-1' },
      { key: { customer: 1 }, name: 'customer_1' },
      { key: { total: 1 }, name: 'total_1' },
    ]);
    // use one index, so that on a server with $indexStats it is not "unused"
    for (let i = 0; i < 5; i++) await db.collection('orders').find({ customer: `c${i}` }).hint('customer_1').toArray();
  });
  let snap: Snapshot;

  beforeAll(async () => {
    snap = await collectSnapshot(live.adapter, { db: DB });
  });

  it('finds the redundant prefix on real listIndexes output', () => {
    const findings = runRule(rule, snap);
    const redundant = findings.filter((f) => f.messageId === 'redundant');
    expect(redundant.map((f) => [f.target.index, f.evidence.longer])).toEqual([['status_1', 'status_1_createdAt_-1']]);
    expect(redundant[0]?.message).toContain('Index `status_1` { status: 1 } is a prefix of `status_1_createdAt_-1` { status: 1, createdAt: -1 }');
  });

  it('reads the members hello lists: nothing to do on a standalone, every member on a replica set', async () => {
    // What the server proves it is, read with the test's own client: hello's setName, me and hosts.
    const hello = await live.client.db('admin').command({ hello: 1 });
    const members = snap.databases[0]?.collections.find((c) => c.name === 'orders')?.indexUsageMembers;
    if (typeof hello.setName !== 'string') {
      expect(snap.server.topology).not.toBe('replicaSet');
      expect(members).toBeUndefined();
    } else if (snap.server.capabilities.indexStats.supported !== true) {
      expect(snap.server.topology).toBe('replicaSet');
      expect(members).toBeUndefined(); // no $indexStats anywhere: the "not checked" line says so
    } else {
      expect(snap.server.topology).toBe('replicaSet');
      console.log(`[index-usage live] ${live.kind}: replica set ${String(hello.setName)}, hosts ${JSON.stringify(hello.hosts)}: read ${JSON.stringify(members?.read)}, not read ${JSON.stringify(members?.notRead)}${members?.hiddenUnknown ? `, hidden members unknown: ${members.hiddenUnknown}` : ''}`);
      const hosts = [...((hello.hosts as string[] | undefined) ?? []), ...((hello.passives as string[] | undefined) ?? [])];
      // the connected member under the name hello gives it, then every other data-bearing member, read or said why not
      expect(members?.read[0]).toBe(hello.me);
      expect([...(members?.read ?? []), ...(members?.notRead ?? []).map((n) => n.host)].sort()).toEqual(expect.arrayContaining(hosts.sort()));
      let config: string | null = null;
      try {
        await live.client.db('admin').command({ replSetGetConfig: 1 });
      } catch (err) {
        config = (err as Error).message;
      }
      if (config === null) expect(members?.hiddenUnknown).toBeUndefined();
      else expect(members?.hiddenUnknown).toContain('replSetGetConfig was not answered');
    }
  });

  it('sums use where the server has $indexStats and its counters move, and says so where they cannot be read', async (ctx) => {
    if (snap.server.capabilities.indexStats.supported !== true) {
      console.log(`[index-usage live] ${live.kind}: no $indexStats (${snap.server.capabilities.indexStats.evidence}); checking the "not checked" line instead of unused indexes`);
      const notes = analyze(snap, { only: ['index-usage'] }, [rule]).notes.map((n) => n.message);
      expect(notes.join('\n')).toContain('index-usage: index use was not checked: the server lacks $indexStats');
    } else await judgedWhereCountersMove(ctx);
  });

  /** With $indexStats: judged where its counters move and carry a start date, said where they cannot be read. */
  async function judgedWhereCountersMove(ctx: { skip(note?: string): void }): Promise<void> {
    // What the server proves its counters do, read with the test's own client: the seed hinted customer_1 five times.
    const rows = await live.db.collection('orders').aggregate<{ name: string; accesses: { ops: unknown; since: unknown } }>([{ $indexStats: {} }]).toArray();
    const customer = rows.find((r) => r.name === 'customer_1')?.accesses;
    const moves = Number(customer?.ops ?? 0) >= 5;
    const dated = rows.every((r) => r.accesses?.since instanceof Date);
    console.log(`[index-usage live] ${live.kind}: customer_1 after 5 hinted queries: ops ${String(customer?.ops)}, since ${String(customer?.since)}`);
    if (moves && dated) {
      // counters started seconds ago: the warm-up guard holds every index back…
      const guarded = runRule(rule, snap);
      expect(guarded.some((f) => f.messageId === 'unused')).toBe(false);
      expect(guarded.find((f) => f.messageId === 'tooRecent')?.message).toContain('`total_1`');
      // …and without it, the never-queried index is unused while the hinted one is not
      const unused = runRule(rule, snap, { warmupDays: 0 }).filter((f) => f.messageId === 'unused').map((f) => f.target.index);
      expect(unused).toContain('total_1');
      expect(unused).not.toContain('customer_1');
    } else if (!dated) {
      // No start date: the counters are not read as use; one note says which and why, and nothing is called unused.
      for (const options of [{}, { warmupDays: 0 }]) {
        const out = analyze(snap, { rules: { 'index-usage': { options } }, only: ['index-usage'] }, [rule]);
        expect(out.findings.filter((f) => ['unused', 'tooRecent', 'kept'].includes(f.messageId))).toEqual([]);
        const note = out.notes.find((n) => n.message.includes('index use was not judged'));
        expect(note?.message).toContain('`total_1`');
        expect(note?.message).toContain('where MongoDB gives the date its counters started');
      }
    } else {
      const note = `$indexStats counters did not move: customer_1 shows ops ${String(customer?.ops)} after 5 hinted queries, so unused indexes cannot be told from used ones on ${live.kind}`;
      console.log(`[index-usage live] ${note}`);
      ctx.skip(note);
    }
  }

  it('opens a direct member connection with the same settings, counts its round trips, reads or explains $indexStats there', async () => {
    const host = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(live.uri)?.[1];
    expect(host).toBeTruthy();
    const before = live.adapter.roundTrips;
    const member = await live.adapter.connectMember(host as string);
    expect(await live.adapter.connectMember(host as string)).toBe(member); // cached per host
    const ping = await member.command('admin', { ping: 1 });
    expect(ping.ok).toBe(1);
    const orders = snap.databases[0]?.collections.find((c) => c.name === 'orders');
    expect(orders).toBeDefined();
    const copy = structuredClone(orders as NonNullable<typeof orders>);
    const problem = await readMember(member, copy, 10_000);
    if (snap.server.capabilities.indexStats.supported === true) {
      // the same node under the same host name: its counters are not added twice, and it is said why
      expect(problem).toMatch(/^its \$indexStats rows name host ".+", whose counters were already read/);
      expect(copy.indexes.find((i) => i.name === 'total_1')?.accesses).toHaveLength(1);
    } else {
      console.log(`[index-usage live] ${live.kind}: $indexStats refused on the member connection too, recorded as: ${problem ?? ''}`);
      expect(problem).toMatch(/^\$indexStats failed there: /);
    }
    expect(live.adapter.roundTrips).toBeGreaterThan(before);
  });

  it('confirms the redundant index on a scratch copy and drops it afterwards', async () => {
    const redundant = runRule(rule, snap).filter((x) => x.messageId === 'redundant');
    expect(redundant).toHaveLength(1);
    const run = await confirmFindings(snap, redundant, live.adapter, [rule], { budgetMs: 8_000, maxDocs: 400 });
    const k = run.findings[0]?.confirmation;
    console.log(`[index-usage live] ${live.kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
    expect(k?.summary).toMatch(/Inserting 400 copied documents took/);
    expect(k?.measurements.filter((m) => m.unit === 'ms')).toHaveLength(2);
    // Whether the server's explain() names the index it picks, proven on the source collection: then the planner
    // must pick the longer index on the copy; else the plan cannot be checked and the summary says so.
    const explained = await live.db.collection('orders').find({ status: 'new' }).explain('queryPlanner');
    const plan = planIndexes((explained.queryPlanner as Record<string, unknown> | undefined)?.winningPlan ?? explained.queryPlanner ?? explained);
    if (plan.indexes.length > 0 || plan.collscan) expect(k?.status).toBe('supported');
    else {
      expect(k?.status).toBe('inconclusive');
      expect(k?.summary).toContain('names no index or stage');
    }
    expect(run.cleanedUp).toBe(true);
    if (run.where) await expectScratchDropped(live.client, run.where);
  });
});
