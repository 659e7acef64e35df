import { beforeAll, describe, expect, it } from 'vitest';
import { readOnly } from '../../src/adapters/read-only';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { dataOf } from '../../src/core/collector';
import { analyze, collectPlan } from '../../src/core/runner';
import type { CollectionSnapshot, Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import { recordingAdapter } from '../../test/support/recording';
import rule from './index';
import { type IndexAccess, indexUsageCollector, readMember } from './collect';
import { claimOf } from './analyze';
import { winningPlanFacts } from '../../test/support/explain';
import { expectScratchDropped } from '../../test/support/scratch';
import { useLiveDb } from '../../test/support/live-db';

const DB = 'mongo_advisor_test_index_usage';

describe('index-usage (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    const now = Date.now();
    await db.collection('orders').insertMany(
      Array.from({ length: 400 }, (_, i) => ({
        status: ['new', 'paid', 'shipped'][i % 3],
        customer: `c${i % 50}`,
        total: i * 3,
        createdAt: new Date(now - i * 60_000),
      })),
    );
    await db.collection('orders').createIndexes([
      { key: { status: 1 }, name: 'status_1' },
      { key: { status: 1, createdAt: -1 }, name: 'status_1_createdAt_-1' },
      { key: { customer: 1 }, name: 'customer_1' },
      { key: { total: 1 }, name: 'total_1' },
    ]);
    // use one index, so that on a server with $indexStats it is not "unused"
    for (let i = 0; i < 5; i++)
      await db
        .collection('orders')
        .find({ customer: `c${i}` })
        .hint('customer_1')
        .toArray();
    // a second collection with an index, and one with _id only (the collector does not run there)
    await db.collection('carts').insertMany(Array.from({ length: 20 }, (_, i) => ({ user: `u${i}` })));
    await db.collection('carts').createIndex({ user: 1 }, { name: 'user_1' });
    await db.collection('plain').insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
  });
  let snap: Snapshot;
  /** The commands collect sent for this rule (core and collectors), in order. */
  let sent: string[];
  let orders: CollectionSnapshot | undefined;

  beforeAll(async () => {
    const recording = recordingAdapter(live.adapter);
    snap = await collectSnapshot(recording, { db: DB, collectors: collectPlan([rule]) });
    sent = recording.sent.map((c) => c.label);
    orders = snap.databases[0]?.collections.find((c) => c.name === 'orders');
  });

  it(
    'round trips: $indexStats once per collection with an index besides _id_, member commands on a replica ' +
      'set only',
    () => {
      const data = dataOf(indexUsageCollector, orders);
      const count = (label: string): number => sent.filter((l) => l === label).length;
      console.log(
        `[index-usage live] ${live.kind} (${snap.server.topology}): ${sent.length} commands: ${sent.join(', ')}`,
      );
      // carts and orders have an index besides _id_; plain does not. A server without $indexStats is asked once per
      // run.
      expect(count('aggregate $indexStats')).toBe(data ? 2 : 1);
      if (snap.server.topology !== 'replicaSet') {
        // the probe told the topology: the collector sends no hello of its own and never replSetGetConfig
        expect(count('replSetGetConfig')).toBe(0);
        expect(count('hello')).toBeLessThanOrEqual(1);
      } else if (data) {
        // once per run, whatever the number of collections
        expect(count('replSetGetConfig')).toBe(1);
      }
      expect(snap.collectors.find((c) => c.id === indexUsageCollector.id)?.version).toBe(1);
    },
  );

  it('finds the redundant prefix on real listIndexes output', () => {
    const findings = runRule(rule, snap);
    const redundant = findings.filter((f) => claimOf(f.messageId) === 'redundant');
    expect(redundant.map((f) => [f.target.index, f.evidence.longer])).toEqual([['status_1', 'status_1_createdAt_-1']]);
    expect(redundant[0]?.message).toContain(
      'Index `status_1` { status: 1 } is a prefix of `status_1_createdAt_-1` { status: 1, createdAt: -1 }',
    );
  });

  it('reads the members hello lists: nothing to do on a standalone, every member on a replica set', async () => {
    // What the server proves it is, read with the test's own client: hello's setName, me and hosts.
    const hello = await live.client.db('admin').command({ hello: 1 });
    const fromProbe = dataOf(indexUsageCollector, orders);
    if (snap.server.topology !== 'replicaSet') expect(fromProbe?.members).toBeUndefined();
    const topology = typeof hello.setName === 'string' ? 'replicaSet' : snap.server.topology;
    if (topology !== snap.server.topology) {
      // The collector reads members by the topology the probe recorded; the probe reads it from serverStatus's repl
      // section, which SecantusDB 0.7 does not send though its hello names a set. Run the collector once more with
      // the topology hello proves, so the member reads are exercised on this server all the same.
      console.log(
        `[index-usage live] ${live.kind}: hello names set ${String(hello.setName)} but the probe recorded ` +
          `topology ${snap.server.topology}; reading the members with topology ${topology}`,
      );
    }
    const notes: string[] = [];
    const data = await indexUsageCollector.collect({
      adapter: readOnly(live.adapter),
      server: { ...snap.server, topology },
      maxTimeMS: 10_000,
      serverStatus: null,
      note: (m) => notes.push(m),
      collection: orders as CollectionSnapshot,
      listed: { name: 'orders', type: 'collection', options: {} },
      docs: [],
      ids: [],
      naturalIds: null,
      run: new Map(),
    });
    const members = data?.members;
    if (topology !== 'replicaSet') {
      expect(members).toBeUndefined();
    } else if (!data) {
      expect(members).toBeUndefined(); // no $indexStats anywhere: the "not checked" line says so
    } else {
      const hidden = members?.hiddenUnknown ? `, hidden members unknown: ${members.hiddenUnknown}` : '';
      console.log(
        `[index-usage live] ${live.kind}: replica set ${String(hello.setName)}, ` +
          `hosts ${JSON.stringify(hello.hosts)}: read ${JSON.stringify(members?.read)}, not ` +
          `read ${JSON.stringify(members?.notRead)}${hidden}`,
      );
      const hosts = [
        ...((hello.hosts as string[] | undefined) ?? []),
        ...((hello.passives as string[] | undefined) ?? []),
      ];
      // the connected member under the name hello gives it, then every other data-bearing member, read or said why not
      expect(members?.read[0]).toBe(hello.me);
      expect([...(members?.read ?? []), ...(members?.notRead ?? []).map((n) => n.host)].sort()).toEqual(
        expect.arrayContaining(hosts.sort()),
      );
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

  it(
    'sums use where the server has $indexStats and its counters move, and says so where they ' + 'cannot be read',
    async (ctx) => {
      if (!dataOf(indexUsageCollector, orders)) {
        const all = snap.databases[0]?.collections ?? [];
        const why = all
          .flatMap((c) => c.notes)
          .find((n) => n.message.startsWith('index use could not be read ($indexStats)'))?.message;
        console.log(
          `[index-usage live] ${live.kind}: no $indexStats (${why ?? 'no note'}); checking the "not checked" ` +
            `lines instead of unused indexes`,
        );
        // the collector said why once for the run; the rule names every collection it could not check
        expect(why).toBeDefined();
        expect(
          all.flatMap((c) => c.notes).filter((n) => n.message.startsWith('index use could not be read')),
        ).toHaveLength(1);
        const notes = analyze(snap, { only: ['index-usage'] }, [rule]).notes.map((n) => n.message);
        expect(notes.join('\n')).toContain(
          'index-usage: index use was not checked on 2 collections (carts, orders): $indexStats could not ' +
            'be read there',
        );
      } else await judgedWhereCountersMove(ctx);
    },
  );

  /** With $indexStats: judged where its counters move and carry a start date, said where they cannot be read. */
  async function judgedWhereCountersMove(ctx: { skip(note?: string): void }): Promise<void> {
    // What the server proves its counters do, read with the test's own client: the seed hinted customer_1 five times.
    const rows = await live.db
      .collection('orders')
      .aggregate<{ name: string; accesses: { ops: unknown; since: unknown } }>([{ $indexStats: {} }])
      .toArray();
    const customer = rows.find((r) => r.name === 'customer_1')?.accesses;
    const moves = Number(customer?.ops ?? 0) >= 5;
    const dated = rows.every((r) => r.accesses?.since instanceof Date);
    console.log(
      `[index-usage live] ${live.kind}: customer_1 after 5 hinted queries: ops ${String(customer?.ops)}, ` +
        `since ${String(customer?.since)}`,
    );
    if (moves && dated) {
      // counters started seconds ago: the warm-up guard holds every index back…
      const guarded = runRule(rule, snap);
      expect(guarded.some((f) => claimOf(f.messageId) === 'unused')).toBe(false);
      expect(guarded.find((f) => f.messageId === 'tooRecent' && f.target.collection === 'orders')?.message).toContain(
        '`total_1`',
      );
      // …and without it, the never-queried index is unused while the hinted one is not
      const unused = runRule(rule, snap, { warmupDays: 0 })
        .filter((f) => claimOf(f.messageId) === 'unused')
        .map((f) => f.target.index);
      expect(unused).toContain('total_1');
      expect(unused).not.toContain('customer_1');
    } else if (!dated) {
      // No start date: the counters are not read as use; one note says which and why, and nothing is called unused.
      for (const options of [{}, { warmupDays: 0 }]) {
        const out = analyze(snap, { rules: { 'index-usage': { options } }, only: ['index-usage'] }, [rule]);
        expect(
          out.findings.filter(
            (f) => claimOf(f.messageId) === 'unused' || ['tooRecent', 'tooRecentUnnamed', 'kept'].includes(f.messageId),
          ),
        ).toEqual([]);
        const note = out.notes.find((n) => n.message.includes('index use was not judged'));
        expect(note?.message).toContain('`total_1`');
        expect(note?.message).toContain('where MongoDB gives the date its counters started');
      }
    } else {
      const note =
        `$indexStats counters did not move: customer_1 shows ops ${String(customer?.ops)} after 5 hinted ` +
        `queries, so unused indexes cannot be told from used ones on ${live.kind}`;
      console.log(`[index-usage live] ${note}`);
      ctx.skip(note);
    }
  }

  it(
    'opens a direct member connection with the same settings, counts its round trips, reads or explains ' +
      '$indexStats there',
    async () => {
      const host = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(live.uri)?.[1];
      expect(host).toBeTruthy();
      const before = live.adapter.roundTrips;
      const member = await live.adapter.connectMember(host as string);
      expect(await live.adapter.connectMember(host as string)).toBe(member); // cached per host
      const ping = await member.command('admin', { ping: 1 });
      expect(ping.ok).toBe(1);
      expect(orders).toBeDefined();
      const c = orders as CollectionSnapshot;
      const data = dataOf(indexUsageCollector, c);
      const accesses: Record<string, IndexAccess[]> = structuredClone(data?.accesses ?? {});
      const problem = await readMember(member, c, 10_000, accesses);
      if (data) {
        // the same node under the same host name: its counters are not added twice, and it is said why
        expect(problem).toMatch(/^its \$indexStats rows name host ".+", whose counters were already read/);
        expect(accesses.total_1).toHaveLength(1);
      } else {
        console.log(
          `[index-usage live] ${live.kind}: $indexStats refused on the member connection too, recorded ` +
            `as: ${problem ?? ''}`,
        );
        expect(problem).toMatch(/^\$indexStats failed there: /);
      }
      expect(live.adapter.roundTrips).toBeGreaterThan(before);
    },
  );

  it('confirms the redundant index on a scratch copy and drops it afterwards', async () => {
    const redundant = runRule(rule, snap).filter((x) => claimOf(x.messageId) === 'redundant');
    expect(redundant).toHaveLength(1);
    const run = await confirmFindings(snap, redundant, live.adapter, [rule], { budgetMs: 8_000, maxDocs: 400 });
    const k = run.findings[0]?.confirmation;
    console.log(`[index-usage live] ${live.kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
    expect(k?.summary).toMatch(/Inserting 400 copied documents took/);
    expect(k?.measurements.filter((m) => m.unit === 'ms')).toHaveLength(2);
    // a size the server would not give (0 on a collection holding documents) is left out, never shown as 0 B
    expect(k?.measurements.filter((m) => m.unit === 'bytes' && !(m.median > 0))).toEqual([]);
    // Whether the server's explain() names the index it picks, proven on the source collection: then the planner
    // must pick the longer index on the copy; else the plan cannot be checked and the summary says so.
    const explained = await live.db.collection('orders').find({ status: 'new' }).explain('queryPlanner');
    const plan = winningPlanFacts(explained);
    if (plan.indexes.length > 0 || plan.stages.includes('COLLSCAN')) expect(k?.status).toBe('supported');
    else {
      expect(k?.status).toBe('inconclusive');
      expect(k?.summary).toContain('names no index or stage');
    }
    expect(run.cleanedUp).toBe(true);
    expect(run.where).toBeTruthy();
    await expectScratchDropped(live.client, run.where);
  });
});
