/**
 * The index proof's copy size on the real test servers (rules/query-indexes, option `proofDocs`): with the run's
 * default limits a proof copies past the default 5,000 documents, up to the whole collection; a `maxDocs` the user
 * chose (`--confirm-docs`) is kept and the proof says its copy was smaller than the planner's trial. The shop's orders
 * shape comes from a slow-query log built from its commands (no profiler needed). FerretDB's explain names no plan:
 * not run, and the line says why.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import rule from '../rules/query-indexes';
import { check } from '../src/check';
import type { Scratch, ScratchPlan } from '../src/confirm/scratch';
import type { Finding } from '../src/core/types';
import { readSlowQueryLog } from '../src/workload/log-reader';
import { useLiveDb } from './support/live-db';
import { seedShop, SHOP_MARKER, SHOP_MARKER_NUMBER, shopCommands, slowLogLines } from './support/shop-workload';

const DB = 'mongo_advisor_test_proof_size';
const ORDERS = 6000;
/**
 * Each proof's budget. The subject is the copy's size, which no budget cuts (a copy never stops below the planner's
 * trial or the whole collection, src/confirm/index-proof.ts copyWithin), and the sentence saying what set it: the
 * timing phases after the copy prove nothing here.
 */
const BUDGET_MS = 3000;

/** The shop's orders finds as a slow-query log of this database, read back as the run's workload. */
async function ordersWorkload(): Promise<{ from: string; records: readonly unknown[] }> {
  const finds = shopCommands()
    .map((c) => c.command)
    .filter((c) => c.find === 'orders' && (c.sort as object | undefined) !== undefined);
  const entries = [...finds, ...finds].map((command) => ({
    ns: `${DB}.orders`,
    command: { ...command, $db: DB },
    millis: 40,
  }));
  const { records } = await readSlowQueryLog(Readable.from([slowLogLines(entries).join('\n') + '\n']));
  return { from: 'the shop log', records };
}

/** A run's progress lines, each with the seconds since the run began, printed as they come (a slow phase shows). */
function progress(): (line: string) => void {
  const t0 = performance.now();
  return (line) => console.log(`[index-proof-size live] ${((performance.now() - t0) / 1000).toFixed(1)} s ${line}`);
}

/** The proof of the index proposed for the orders shape (its key is candidates.ts' business, not this test's). */
const proofOf = (findings: readonly Finding[]) =>
  findings.find((f) => f.ruleId === 'query-indexes' && typeof f.evidence.proposed === 'string')?.confirmation;

describe('the index proof copies what the planner needs (live)', () => {
  const live = useLiveDb(DB, (db) => seedShop(db, { orders: ORDERS, customers: 60, events: 50 }));
  const ferret = (): boolean => live.kind === 'ferretdb';

  it("copies past the run's default 5,000 documents, up to the whole collection", async () => {
    const workload = await ordersWorkload();
    let plan: ScratchPlan | null = null;
    const onScratch = (s: Scratch): void => void (plan = s.plan);
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: true,
      budgetMs: BUDGET_MS,
      workload,
      onScratch,
      log: progress(),
    });
    // The consent line, told before any write, counts the proof's copy: its proofDocs, past the default 5,000.
    expect(plan).toMatchObject({ experiments: 1, maxDocs: 20_000 });
    const k = proofOf(result.findings);
    console.log(`[index-proof-size live] ${live.kind} default: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(k).toBeDefined();
    const text = JSON.stringify(result);
    expect(text).not.toContain(SHOP_MARKER);
    expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
    expect(result.confirm?.cleanedUp).toBe(true);
    if (ferret()) {
      expect(k?.status).toBe('not-run');
      expect(k?.summary).toMatch(/^Not proven on a copy: the server's explain names no plan stage and no index/);
      return;
    }
    expect(k?.summary).toMatch(/^On 6,000 copied documents \(the whole collection\) with the collection's indexes/);
    expect(k?.summary).not.toMatch(/planner's trial/);
  });

  it('keeps a maxDocs the user chose, and says the copy was smaller than the trial', async () => {
    const workload = await ordersWorkload();
    let plan: ScratchPlan | null = null;
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: true,
      budgetMs: BUDGET_MS,
      maxDocs: 2000,
      workload,
      onScratch: (s: Scratch) => void (plan = s.plan),
      log: progress(),
    });
    expect(plan).toMatchObject({ maxDocs: 2000 });
    const k = proofOf(result.findings);
    console.log(`[index-proof-size live] ${live.kind} chosen: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(result.confirm?.cleanedUp).toBe(true);
    if (ferret()) return void expect(k?.status).toBe('not-run');
    expect(k?.status).toBe('inconclusive');
    expect(k?.summary).toMatch(/^On 2,000 copied documents \(the run's --confirm-docs\)/);
    expect(k?.summary).toContain(
      "the copy held 2,000 documents, fewer than the planner's trial reads (10,000) and than the collection holds " +
        '(6,000), so every plan may tie.',
    );
  });
});
