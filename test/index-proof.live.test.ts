/**
 * Index proof on scratch (src/confirm/index-proof.ts) on the real test servers: a candidate the planner picks is
 * supported with examined falling, a useless one refuted, a compound candidate weighed against its prefix, drops
 * proven shape by shape; results compared both ways; no planted value in any returned figure. FerretDB's explain
 * names no plan: not run, with the reason, learnt on a few documents before any full copy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf } from '../rules/query-indexes/confirm';
import { readOnly } from '../src/adapters/read-only';
import type { Doc } from '../src/adapters/types';
import { CONFIRM_DEFAULTS, type ConfirmContext } from '../src/confirm/context';
import { Budget } from '../src/confirm/harness';
import { proveDrop, proveIndex } from '../src/confirm/index-proof';
import { Scratch } from '../src/confirm/scratch';
import type { Snapshot } from '../src/core/types';
import { commandCursor } from '../src/lib/cursor';
import { useLiveDb } from './support/live-db';

const DB = 'mongo_advisor_test_index_proof';
/**
 * Fewer than the default 20,000: enough for the planner's choice to show (each customer holds one order), short
 * enough for CI. The copies are never cut below the whole collection, so each
 * proof's fixed part (copy twice, rebuild, replay, drop) grows with this, whatever its budget: 3,000 took past 15 s
 * under the full suite's load.
 */
const DOCS = 1000;
const STATUS = ['QZS-new', 'QZS-paid', 'QZS-shipped', 'QZS-void', 'QZS-held'];
const CUSTOMER = (i: number): string => `QZC-${i % 2000}`;
/** Every planted value carries this: none may reach a returned figure. */
const LEAK = /QZ/;
const NS = `${DB}.orders`;
const EXISTING: { key: Record<string, 1>; name: string }[] = [
  { key: { createdAt: 1, status: 1 }, name: 'createdAt_1_status_1' },
  { key: { customerId: 1 }, name: 'customerId_1' },
  { key: { note: 1 }, name: 'note_1' },
];

const byCustomer = (i: number): Doc => ({
  find: 'orders',
  filter: { status: STATUS[i % 5], customerId: CUSTOMER((i * 7919) % 2000) },
  sort: { createdAt: -1 },
});
const byDay = (i: number): Doc => ({
  find: 'orders',
  filter: { createdAt: { $gte: new Date(Date.UTC(2024, 0, 1 + i)), $lt: new Date(Date.UTC(2024, 0, 2 + i)) } },
});
const onlyCustomer = (i: number): Doc => ({ find: 'orders', filter: { customerId: CUSTOMER(i * 13) } });

describe('index proof (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('orders').insertMany(
      Array.from({ length: DOCS }, (_, i) => ({
        status: STATUS[i % 5],
        customerId: CUSTOMER((i * 7919) % 2000),
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1_200_000),
        note: `QZN-${i}`,
        total: i % 97,
      })),
    );
    await db.collection('orders').createIndexes(EXISTING);
  });
  let scratch: Scratch;
  let ctx: ConfirmContext;
  let rows: Doc[];
  /** The proofs' progress lines (phases with their seconds): printed with each result, so a slow phase shows. */
  const progress: string[] = [];
  const phases = (): string => progress.splice(0).join('; ');

  beforeAll(async () => {
    scratch = new Scratch(live.adapter);
    const source = readOnly(live.adapter);
    rows = await commandCursor(source, DB, { listIndexes: 'orders', cursor: {} }, { maxTimeMS: 10_000 });
    ctx = {
      source,
      scratch,
      snapshot: {} as Snapshot,
      settings: { ...CONFIRM_DEFAULTS, maxDocs: DOCS },
      budget: new Budget(120_000),
      sourceDocs: (db, coll, o) =>
        commandCursor(source, db, { find: coll, filter: {}, limit: o?.limit ?? DOCS }, { maxTimeMS: 30_000 }),
      log: (line) => void progress.push(line),
    };
  });
  afterAll(async () => {
    expect(await scratch.cleanup()).toBeNull();
  });
  const fresh = (ms: number): ConfirmContext => ({ ...ctx, budget: new Budget(ms) });
  const ferret = (): boolean => live.kind === 'ferretdb';

  it('supports a candidate the planner picks, examined falling, same results; prices its writes', async () => {
    // The test is that every phase runs (four calls replayed both ways, the prefix, the inserts priced), not a
    // budget: the proof keeps about two thirds once its copies' drops are reserved (proofShare), the timing then takes
    // at most 70% of what is left and the inserts the rest. What the phases wait on is kept small instead of the budget
    // made large: DOCS (the copies), and inserts of 50 documents (a round of 200 took about 0.3 s under load).
    const p = await proveIndex(fresh(15_000), {
      ns: NS,
      existingIndexes: rows,
      candidate: { key: { status: 1, customerId: 1, createdAt: -1 }, name: 'status_1_customerId_1_createdAt_-1' },
      prefix: { key: { status: 1 }, name: 'status_1' },
      instances: [0, 11, 222, 999].map(byCustomer),
      docs: DOCS,
      insertBatch: 50,
    });
    console.log(`[index-proof live] ${live.kind} candidate: ${JSON.stringify(p)}\n  ${phases()}`);
    expect(JSON.stringify(p)).not.toMatch(LEAK);
    if (ferret()) {
      expect(p.status).toBe('not-run');
      expect(p.reason).toMatch(/explain/);
      // learnt on a few documents, before the collection was copied twice (no copy figures to report)
      expect(p.copy).toBeUndefined();
      // and the query-indexes rule's sentence for it (what a FerretDB user reads; test/index-proof-size runs on
      // SecantusDB only)
      expect(resultOf(p, '{ status: 1, customerId: 1, createdAt: -1 }', 4, 0.5).summary).toMatch(
        /^Not proven on a copy: the server's explain names no plan stage and no index/,
      );
      return;
    }
    expect(p.copy?.copied).toBe(DOCS);
    expect(p.copy?.rebuilt).toEqual(['createdAt_1_status_1', 'customerId_1', 'note_1']);
    expect(p.sameResults).toEqual({ checked: 4, same: 4 });
    expect(p.pickedCandidate).toBe(4);
    expect(p.examinedRatio).toBeLessThan(0.5);
    expect(p.prefix?.examinedRatio).toBeLessThan(0.5);
    expect(['supported', 'inconclusive']).toContain(p.status);
    if (p.status === 'inconclusive') expect(p.reason).toMatch(/slower|time budget/);
    expect(p.writeCost?.insert?.median).toBeGreaterThan(0);
    if (p.writeCost?.bytes === null) expect(p.writeCost.sizeReason).toMatch(/size|collStats/);
  });

  it('refutes a candidate on a field no query uses', async () => {
    const p = await proveIndex(fresh(6000), {
      ns: NS,
      existingIndexes: rows,
      candidate: { key: { total: 1 }, name: 'total_1' },
      instances: [0, 1].map(byCustomer),
      docs: DOCS,
      writeCost: false,
    });
    console.log(`[index-proof live] ${live.kind} useless: ${JSON.stringify(p)}\n  ${phases()}`);
    expect(JSON.stringify(p)).not.toMatch(LEAK);
    if (ferret()) return void expect([p.status, p.copy]).toEqual(['not-run', undefined]);
    expect(p.status).toBe('refuted');
    expect(p.pickedCandidate).toBe(0);
    expect(p.reason).toMatch(/did not pick/);
  });

  it('proves a drop no shape needs, and names the shape that needs one', async () => {
    const shapes = [
      { id: 'by-customer', instances: [0, 1].map(onlyCustomer) },
      { id: 'by-day', instances: [0, 1].map(byDay) },
    ];
    // Small budgets: every shape is explained both ways whatever the budget, and both verdicts below rest on those
    // counts (no plan uses note_1; by-customer examines 1,000 times more without customerId_1); only the timing of a
    // shape that used the index needs the budget, and it decides nothing here.
    const unused = await proveDrop(fresh(3000), {
      ns: NS,
      existingIndexes: rows,
      index: 'note_1',
      shapes,
      docs: DOCS,
    });
    const needed = await proveDrop(fresh(3000), {
      ns: NS,
      existingIndexes: rows,
      index: 'customerId_1',
      shapes,
      docs: DOCS,
    });
    console.log(`[index-proof live] ${live.kind} drops: ${JSON.stringify({ unused, needed })}\n  ${phases()}`);
    expect(JSON.stringify({ unused, needed })).not.toMatch(LEAK);
    if (ferret()) {
      expect([unused.status, needed.status]).toEqual(['not-run', 'not-run']);
      expect([unused.copy, needed.copy]).toEqual([undefined, undefined]);
      return;
    }
    expect(unused.needs).toEqual([]);
    expect(['supported', 'inconclusive']).toContain(unused.status);
    expect(needed.status).toBe('refuted');
    expect(needed.needs).toEqual(['by-customer']);
  });
});
