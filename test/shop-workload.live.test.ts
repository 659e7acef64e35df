import { Readable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import { useLiveDb } from './support/live-db';
import { replayShop, seedShop, SHOP_MARKER, SHOP_MARKER_NUMBER, slowLogLines } from './support/shop-workload';
import { readProfileDocuments } from '../src/workload/profiler';
import { readSlowQueryLog } from '../src/workload/log-reader';
import { shapesOf } from '../src/workload/shape';
import type { WorkloadRecord } from '../src/workload/record';

/** Shape id → calls, over the records of the shop's namespaces. */
function shapeCounts(records: readonly WorkloadRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.ns.db !== 'shop' || r.command === undefined) continue;
    for (const s of shapesOf(r.command, r.ns.db)) counts.set(s.id, (counts.get(s.id) ?? 0) + 1);
  }
  return counts;
}

describe('the shop workload of issue 20, from the profiler and from a log built of it', () => {
  const live = useLiveDb('shop', (db) => seedShop(db, { orders: 600, customers: 60, events: 300 }));

  it('both readers give the same shapes with the same call counts, and the shapes hold no value', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await live.db
      .collection('system.profile')
      .drop()
      .catch(() => undefined);
    await replayShop(live.db, 2);
    const docs = await live.db.collection('system.profile').find({}).toArray();
    const fromProfiler = readProfileDocuments(docs);
    const fromLog = await readSlowQueryLog(Readable.from([slowLogLines(docs).join('\n') + '\n']));
    const a = shapeCounts(fromProfiler.records);
    const b = shapeCounts(fromLog.records);
    // orders by status+customer, two regexes, the $lookup (2 shapes), the update, events by type, orders by total
    expect(a.size).toBeGreaterThanOrEqual(6);
    expect([...b.entries()].sort()).toEqual([...a.entries()].sort());
    const shapes = fromProfiler.records.flatMap((r) => (r.command ? shapesOf(r.command, r.ns.db) : []));
    const printed = JSON.stringify(shapes);
    expect(printed).not.toContain(SHOP_MARKER);
    expect(printed).not.toContain(String(SHOP_MARKER_NUMBER));
  });
});
