/**
 * `advisor.check('orders')` in the real mongosh reads the profiler (issue 20): with entries (the shop workload replayed
 * at level 2 by the test, never by the advisor) it reports the query-indexes findings and their table of shapes; with
 * none, one line says how to get them; on a server without a profiler (FerretDB), the line says it could not be read.
 */
import { existsSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import type { CheckResult } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { mongosh as runMongosh, PLUGIN } from './support/mongosh';
import type { ProcessResult } from './support/run';
import { replayShop, seedShop, shopCommands, SHOP_MARKER, SHOP_MARKER_NUMBER } from './support/shop-workload';

const DB = 'mongo_advisor_test_mongosh_shop';
const CHECK = "advisor.check('orders', { confirm: false })";
const HOW = 'db.setProfilingLevel(1, { slowms: 100 })';

const mongosh = (uri: string, script: string, json = false): Promise<ProcessResult> =>
  runMongosh(uri, DB, script, { json });

/** The report as one line: the text report wraps long sentences at spaces. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ');

describe('advisor.check in mongosh on the shop workload (real mongosh, real server)', () => {
  const live = useLiveDb(DB, (db) => seedShop(db, { orders: 600, customers: 60, events: 300 }));

  it('with an empty profiler, or none, says how to get entries', async () => {
    if (!existsSync(PLUGIN)) throw new Error('dist/advisor.js is missing: run `npm run build` first');
    const r = await mongosh(live.uri, CHECK);
    expect(r.code, r.err).toBe(0);
    const text = oneLine(r.out);
    expect(text).toContain(HOW);
    expect(r.out).not.toMatch(/^\S+ \w+ +\S+ › shape [0-9a-f]{16} +query-indexes$/m);
    // FerretDB has no profiler: its system.profile reads empty (or is refused), and the line says either.
    const where = `the profiler (${DB}.system.profile)`;
    const empty = `${where} holds no operation to learn from (it is off, or this server keeps none)`;
    expect(
      [empty, `${where} could not be read`].some((line) => text.includes(line)),
      text,
    ).toBe(true);
  }, 120_000);

  it('with profiler entries, reports the indexes the queries need, the table of shapes, and no value', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await replayShop(live.db, 2);
    // One mongosh (a start costs seconds) for both forms of one run: the report as the prompt prints it (print), then
    // the value mongosh --json prints, after a marker.
    const both = await mongosh(live.uri, `const r = ${CHECK}; print(r); print('@@JSON'); r`, true);
    expect(both.code, both.err).toBe(0);
    const at = both.out.indexOf('@@JSON\n');
    expect(at, both.out).toBeGreaterThan(0);
    const r = { out: both.out.slice(0, at) };
    const json = { out: both.out.slice(at + '@@JSON\n'.length) };
    const text = oneLine(r.out);
    expect(text).not.toContain(HOW);
    expect(r.out).toMatch(/^▲ warn +\S+ › shape [0-9a-f]{16} +query-indexes$/m);
    expect(r.out).toContain(
      `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("orders").createIndex({ customerId: 1, status: 1, ` +
        'createdAt: -1 }, { name: "customerId_1_status_1_createdAt_-1" })',
    );
    expect(text).toContain('matches `sku` with a case-insensitive regex');
    // Highest impact first: the calls by status and customer before the 2 of the $lookup.
    const byStatus = text.indexOf('db.orders.find({ customerId: ?number, status: ?string })');
    const lookup = text.indexOf('db.orders.$lookup.foreignField({ customerId: ? })');
    expect(byStatus).toBeGreaterThan(-1);
    expect(lookup).toBeGreaterThan(byStatus);
    // The value mongosh returns holds the table of shapes, from the same run.
    const result = JSON.parse(json.out) as CheckResult;
    const ours = result.tables?.filter((t) => t.ruleId === 'query-indexes') ?? [];
    expect(ours.map((t) => t.title)).toEqual([
      'Indexes proposed, highest impact first',
      'Query shapes, highest impact first',
    ]);
    const [indexes, table] = ours;
    expect(indexes?.rows[0]?.[1]).toBe(
      `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("orders").createIndex({ customerId: 1, status: 1, ` +
        'createdAt: -1 }, { name: "customerId_1_status_1_createdAt_-1" })',
    );
    expect(table?.target).toEqual({ db: DB });
    const shapes = (table?.rows ?? []).map((row) => row[1]);
    expect(shapes).toContain('db.orders.find({ customerId: ?number, status: ?string }).sort({ createdAt: -1 })');
    // The sorted orders find, once per command of that shape in the workload and per round: the most calls and time.
    const sortedFinds = shopCommands().filter((c) => c.command.find === 'orders' && c.command.sort).length;
    expect(table?.rows[0]?.[2]).toBe(sortedFinds * 2);
    for (const out of [r.out, json.out]) {
      expect(out).not.toContain(SHOP_MARKER);
      expect(out).not.toContain(String(SHOP_MARKER_NUMBER));
    }
  }, 120_000);
});
