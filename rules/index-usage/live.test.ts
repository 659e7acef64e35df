import { beforeAll, describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { readMember } from '../../src/collect/index-usage-members';
import { confirmFindings } from '../../src/confirm';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import { analyze } from '../../src/core/runner';
import rule from './index';
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

  it('on a standalone the member collector has nothing to do', () => {
    expect(snap.server.topology).not.toBe('replicaSet');
    expect(snap.databases[0]?.collections.find((c) => c.name === 'orders')?.indexUsageMembers).toBeUndefined();
  });

  it('sums use where the server has $indexStats, and says so where it has not', () => {
    const hasIndexStats = snap.server.capabilities.indexStats.supported === true;
    if (!hasIndexStats) {
      console.log(`[index-usage live] ${live.kind}: no $indexStats (${snap.server.capabilities.indexStats.evidence}); checking the "not checked" line instead of unused indexes`);
      const notes = analyze(snap, { only: ['index-usage'] }, [rule]).notes.map((n) => n.message);
      expect(notes.join('\n')).toContain('index-usage: index use was not checked: the server lacks $indexStats');
      return;
    }
    // counters started seconds ago: the warm-up guard holds every index back…
    const guarded = runRule(rule, snap);
    expect(guarded.some((f) => f.messageId === 'unused')).toBe(false);
    expect(guarded.find((f) => f.messageId === 'tooRecent')?.message).toContain('`total_1`');
    // …and without it, the never-queried index is unused while the hinted one is not
    const unused = runRule(rule, snap, { warmupDays: 0 }).filter((f) => f.messageId === 'unused').map((f) => f.target.index);
    expect(unused).toContain('total_1');
    expect(unused).not.toContain('customer_1');
  });

  it('opens a direct member connection with the same settings, counts its round trips, reads or explains $indexStats there', async () => {
    const host = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(live.uri)?.[1];
    expect(host).toBeTruthy();
    const before = live.adapter.roundTrips;
    const member = await live.adapter.connectMember(host as string);
    expect(await live.adapter.connectMember(host as string)).toBe(member); // cached per host
    const ping = await member.command('admin', { ping: 1 });
    expect(ping.ok).toBe(1);
    const copy = structuredClone(snap.databases[0]?.collections.find((c) => c.name === 'orders'));
    expect(copy).toBeDefined();
    if (!copy) return;
    const problem = await readMember(member, copy, 10_000);
    if (snap.server.capabilities.indexStats.supported === true) {
      // the same node under the same host name: its counters are not added twice
      expect(problem).toBeNull();
      expect(copy.indexes.find((i) => i.name === 'total_1')?.accesses).toHaveLength(1);
    } else {
      console.log(`[index-usage live] ${live.kind}: $indexStats refused on the member connection too, recorded as: ${problem ?? ''}`);
      expect(problem).toMatch(/^\$indexStats failed there: /);
    }
    expect(live.adapter.roundTrips).toBeGreaterThan(before);
  });

  it('confirms the redundant index on a scratch copy and drops it afterwards', async () => {
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'redundant');
    expect(f).toBeDefined();
    if (!f) return;
    const run = await confirmFindings(snap, [f], live.adapter, [rule], { budgetMs: 8_000, maxDocs: 400 });
    const k = run.findings[0]?.confirmation;
    console.log(`[index-usage live] ${live.kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
    expect(k?.summary).toMatch(/Inserting 400 copied documents took/);
    expect(k?.measurements.filter((m) => m.unit === 'ms')).toHaveLength(2);
    if (live.kind !== 'ferretdb') expect(k?.status).toBe('supported'); // the planner picks the longer index
    expect(run.cleanedUp).toBe(true);
    if (run.where) await expectScratchDropped(live.client, run.where);
  });
});
