/**
 * Issue 27, build item 4: the advisor's own operations never count. With the profiler at level 2 every command the
 * advisor sends is profiled; each carries its comment where the server accepts one (find and aggregate always; count
 * and distinct from 4.4: src/adapters/tag.ts), the readers leave them out, and so a second `check` sees exactly the
 * first one's shapes and calls (before, its `count({ $nor: … })` commands topped the shapes table and grew each run).
 */
import { describe, expect, inject, it } from 'vitest';
import { rules } from '../rules';
import { check } from '../src/check';
import { queryWorkload } from '../src/collect/workload';
import { dataOf } from '../src/core/collector';
import type { Snapshot } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { dropProfile, replayShop, seedShop } from './support/shop-workload';

const DB = 'mongo_advisor_test_own_reads';

/** Shape → calls of the workload the run read, from its snapshot. */
function shapesOf(snapshot: Snapshot | undefined): Record<string, number> {
  const db = snapshot?.databases.find((d) => d.name === DB);
  const data = db ? dataOf(queryWorkload, db) : undefined;
  const out: Record<string, number> = {};
  for (const c of data?.collections ?? []) for (const s of c.shapes) out[s.printed] = s.calls;
  return out;
}

describe("the advisor's own reads on a profiler at level 2", () => {
  const live = useLiveDb(DB, (db) => seedShop(db, { orders: 400, customers: 40, events: 200 }));

  it('a second check sees exactly the first one’s shapes and calls', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await dropProfile(live.db);
    const restore = await replayShop(live.db, 2, true);
    try {
      const run = async (): Promise<Record<string, number>> => {
        let snapshot: Snapshot | undefined;
        await check(live.adapter, { rules, db: DB, confirm: false, onSnapshot: (s) => void (snapshot = s) });
        return shapesOf(snapshot);
      };
      const first = await run();
      const second = await run();
      const third = await run();
      console.log(`[own reads] ${JSON.stringify(first)}`);
      // The shop's shapes (orders by status and customer, regexes, the $lookup, the update, events by type…).
      expect(Object.keys(first).length).toBeGreaterThanOrEqual(6);
      expect(second).toEqual(first);
      expect(third).toEqual(first);
      // None of them is the advisor's: no count, distinct or $nor of its own, no read of its scratch.
      const own = Object.keys(first).filter((s) => /\$nor|\.count\(|\.distinct\(/.test(s));
      expect(own).toEqual([]);
      // The profiler did record the advisor's reads (so the test proves they were left out, not never made).
      const tagged = await live.db.collection('system.profile').countDocuments({ 'command.comment': /mongo-advisor/ });
      expect(tagged).toBeGreaterThan(0);
    } finally {
      await restore();
    }
  });
});
