import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { check } from '../../src/check';
import { NOISE_MARGIN } from '../../src/confirm/verdict';
import type { CheckResult, Finding } from '../../src/core/types';
import { loadSnapshot } from '../../src/core/snapshot-file';
import { formatHtml } from '../../src/report/html';
import { useLiveDb } from '../../test/support/live-db';
import { onlyRules } from '../../test/support/only-rules';
import { runProcess } from '../../test/support/run';
import {
  type EmbedSeed,
  embedLogLines,
  embedOperations,
  embedRecords,
  EXTENDED_MIX,
  extendedOperations,
  POST_COMMENTS,
  seedEmbedPairs,
} from '../../test/support/embed-workload';
import rule from './index';

const DB = 'mongo_advisor_test_embed_reference';
const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');

// One server is enough: the subject is the decision on a workload, not a difference between servers. It runs where
// $sample exists (SecantusDB, mongod), the collector's own path; FerretDB 1.24 has no $sample and no $lookup to replay.
const caps = inject('capabilities');
const why =
  'embed-reference runs its live test once, on a server with $sample and $lookup (SecantusDB or mongod; FerretDB ' +
  'has neither)';
if (!caps.has.sample) console.log(`[embed-reference live] skipped: ${why}`);

const ours = (findings: readonly Finding[]) => findings.filter((f) => f.ruleId === 'embed-reference');
const oneLine = (s: string): string => s.replace(/\s+/g, ' ');

/** The largest ratio printed in the proof's "Reads:" sentence: the upper end of the reads' interval. */
function readsHigh(summary: string): number {
  const sentence = /Reads: .*?\)\./.exec(summary)?.[0] ?? '';
  const ends = [...sentence.matchAll(/([\d.]+)x/g)].map((m) => Number(m[1]));
  expect(ends.length, summary).toBeGreaterThan(0);
  return Math.max(...ends);
}

/** (a) as the Done-when says it: embed, the reads faster beyond the noise and the workload's mix not worse. */
function expectEmbedProven(orders: Finding | undefined): void {
  expect(orders?.messageId).toBe('embedLookup');
  const k = orders?.confirmation;
  expect(k?.status, k?.summary).toBe('supported');
  expect(k?.summary).toMatch(/every parent read the same children both ways/);
  expect(readsHigh(k?.summary ?? '')).toBeLessThan(1 / NOISE_MARGIN);
  expect(k?.summary).toMatch(/The workload's mix \(\d+ reads, 1 insert, 1 update per run/);
  expect(k?.summary).toMatch(/Both intervals lie below 1x by more than the 10% noise margin/);
}

/**
 * The three pairs' decisions as the Done-when says them, from any door: (a) embed, with the migration naming the
 * database; (b) keep the comments referenced, the figures in the message, no embed advice; (c) nothing for the users
 * and their audit trail. The proof of (a) is checked apart (expectEmbedProven), where the run confirmed.
 */
function expectThreePairs(findings: readonly Finding[]): { orders: Finding; posts: Finding } {
  const found = ours(findings);
  expect(found.map((f) => `${f.target.collection}:${String(f.evidence.decision)}`).sort()).toEqual([
    'orders:embed',
    'posts:keepReferenced',
  ]);
  // (a) orders: 1-5 items, bounded
  const orders = found.find((f) => f.target.collection === 'orders') as Finding;
  expect(orders.messageId).toBe('embedLookup');
  expect(orders.evidence).toMatchObject({
    basis: 'lookup',
    childrenMax: 5,
    joinCalls: 120,
    childInserts: 8,
    childUpdatesById: 2,
  });
  // items come with their order and none since: no growth, the embedded order stays small
  expect(orders.evidence.projectedChildren).toBe(5);
  expect(Number(orders.evidence.embeddedBytes)).toBeGreaterThan(0);
  expect(Number(orders.evidence.embeddedBytes)).toBeLessThan(2_000);
  expect(orders.recommendation?.action).toBe('embed');
  const merge = orders.recommendation?.commands?.find((c) => c.includes('$merge')) ?? '';
  expect(merge).toContain(`db.getSiblingDB("${DB}").getCollection("orders").aggregate(`);
  expect(merge).toContain(`into: { db: "${DB}", coll: "orders_embedded" }`);
  // every printed command pastes into mongosh as it is (s14-paste runs such a $merge in mongosh): one line naming
  // its database, quoted; a template to fill in is a comment, so pasting it does nothing
  const commands = orders.recommendation?.commands ?? [];
  expect(commands.length).toBeGreaterThan(0);
  const pasteable = new RegExp(`^(// fill in the <…> first: )?db\\.getSiblingDB\\("${DB}"\\)[^\\n]*$`);
  for (const c of commands) expect(c).toMatch(pasteable);

  // (b) posts: up to 5,000 comments growing daily: reference, no embed advice, the figures in the message
  const posts = found.find((f) => f.target.collection === 'posts') as Finding;
  expect(posts.messageId).toBe('keepChildrenLookup');
  expect(posts.evidence.childrenMax).toBe(Math.max(...POST_COMMENTS));
  expect(Number(posts.evidence.projectedChildren)).toBeGreaterThan(Math.max(...POST_COMMENTS));
  expect(posts.evidence).toMatchObject({ childInserts: 300, childUpdates: 30, joinCalls: 12 });
  expect(posts.message).toMatch(/most 5,000, over 5 read; at most [\d,]+ in 365 days/);
  expect(posts.recommendation?.action).toBe('keep referenced');
  expect(posts.recommendation?.commands ?? []).toEqual([]); // comments.postId is indexed
  expect(posts.confirmation).toBeUndefined();
  expect(JSON.stringify(posts)).not.toContain('$merge');

  // (c) users and audit_events: read by _id alone, no pair
  expect(found.filter((f) => ['users', 'audit_events'].includes(f.target.collection ?? ''))).toEqual([]);
  return { orders, posts };
}

describe.skipIf(!caps.has.sample)('embed-reference on three pairs (live, default budgets)', () => {
  let seed: EmbedSeed;
  const live = useLiveDb(DB, async (db) => void (seed = await seedEmbedPairs(db)));
  const dir = mkdtempSync(join(tmpdir(), 'embed-reference-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let fromRecords: Finding[] = [];

  it('decides the three pairs from the workload given to the API: embed, keep referenced, nothing', async () => {
    const t0 = performance.now();
    const records = embedRecords(DB, embedOperations(DB, seed));
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: false,
      workload: { from: 'the test workload', records },
    });
    expectThreePairs(result.findings);
    fromRecords = ours(result.findings);
    for (const v of [seed.orders[0], seed.comments[0], seed.users[0]])
      expect(JSON.stringify(result)).not.toContain(String(v));
    console.log(`[embed-reference live] from the records (no proof): wall ${Math.round(performance.now() - t0)} ms`);
  });

  it('the same pairs from a mongod JSON log, through the CLI (--log): the same decisions, embed proven', async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` first (npm test does it)');
    const t0 = performance.now();
    const log = join(dir, 'mongod.log');
    writeFileSync(log, embedLogLines(DB, embedOperations(DB, seed)).join('\n') + '\n');
    const config = join(dir, 'embed-only.json');
    writeFileSync(config, JSON.stringify(onlyRules('embed-reference')));
    const saved = join(dir, 'snapshot.json');
    const args = [CLI, 'check', live.uri, '--db', DB, '--log', log, '--config', config, '--save-snapshot', saved];
    const json = await runProcess(process.execPath, [...args, '-q', '--format', 'json']);
    expect(json.code, json.err).toBe(0);
    const result = JSON.parse(json.out) as CheckResult;
    const { orders } = expectThreePairs(result.findings);
    for (const f of ours(result.findings))
      console.log(`[embed-reference live] ${f.message}\n  → ${f.confirmation?.summary ?? '(no proof)'}`);
    // the log and the records give the same evidence, pair by pair (the proof reads nothing else); the pace figures
    // are counted per day of age up to now (rules/embed-reference/collect.ts paceOf), and this run reads them later
    // than the first test did: 100 children a day over 50 days reads 99.999 some 22 s on. Those are equal to the
    // clock's drift between the two runs (well under 0.1% in an hour), the rest exactly.
    const PACED = ['childrenPerDayMax', 'projectedChildren', 'embeddedBytes'];
    const evidence = (fs: readonly Finding[], paced: boolean): Record<string, Finding['evidence']> =>
      Object.fromEntries(
        fs.map((f) => [
          f.target.collection ?? '',
          Object.fromEntries(Object.entries(f.evidence).filter(([k]) => PACED.includes(k) === paced)),
        ]),
      );
    expect(evidence(ours(result.findings), false)).toEqual(evidence(fromRecords, false));
    const [later, first] = [evidence(ours(result.findings), true), evidence(fromRecords, true)];
    expect(Object.keys(later).sort()).toEqual(Object.keys(first).sort());
    for (const [coll, figures] of Object.entries(first)) {
      for (const k of PACED) {
        const [a, b] = [Number(later[coll]?.[k]), Number(figures[k])];
        expect(Number.isFinite(a) && Number.isFinite(b), `${coll} ${k}: ${a} / ${b}`).toBe(true);
        expect(Math.abs(a - b), `${coll} ${k}: ${a} from the log, ${b} from the records`).toBeLessThanOrEqual(
          Math.abs(b) * 0.001,
        );
      }
    }
    expectEmbedProven(orders);

    // the HTML report's table of the trade-off, from this run: a row per pair, both directions, the proof's figures
    const snapshot = loadSnapshot(saved, rule.needs);
    const html = formatHtml({ result, snapshot });
    const table = html.slice(html.indexOf('Embed or reference, both directions'));
    expect(table.length, 'the HTML report has the embed-reference table').toBeLessThan(html.length);
    const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => oneLine(m[1] ?? '').replace(/<[^>]+>/g, '|'));
    const row = (parent: string) => rows.find((r) => r.includes(`|${parent}|`)) ?? '';
    expect(row('orders')).toMatch(/\|order_items\|.*\|embed\|.*\|120\|.*supported: reads .*x.*; mix .*x/);
    expect(row('posts')).toMatch(/\|comments\|.*\|keep referenced\|.*\|12\|.*400 \/ [\d,]+ \/ 5000/);

    // no value of the workload or the data anywhere
    const text = json.out + JSON.stringify(snapshot) + html;
    for (const v of [seed.orders[0], seed.comments[0], seed.users[0]]) expect(text).not.toContain(String(v));
    expect(text).not.toContain('sku-');
    console.log(`[embed-reference live] from the log (CLI, proof): wall ${Math.round(performance.now() - t0)} ms`);
  });

  it('an extended reference written far more than read: the proof refutes the embed, keep referenced', async () => {
    const t0 = performance.now();
    // beyond the Done-when, at the default budget too: the mix differs by 2x or more (a line write is its copy's too)
    const records = embedRecords(DB, extendedOperations(DB, seed));
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      collections: ['invoices', 'invoice_lines'],
      confirm: true,
      workload: { from: 'the test workload', records },
    });
    const [invoices, ...rest] = ours(result.findings);
    expect(rest).toEqual([]);
    console.log(`[embed-reference live] ${invoices?.message}\n  → ${invoices?.confirmation?.summary}`);
    expect(invoices?.messageId).toBe('extendedLookup');
    expect(invoices?.message).toContain('The read keeps `qty`, `sku` of each child: an extended reference');
    expect(invoices?.evidence).toMatchObject({
      decision: 'extendedReference',
      fields: 'qty,sku',
      joinCalls: EXTENDED_MIX.views,
      childInserts: EXTENDED_MIX.inserts,
    });
    const k = invoices?.confirmation;
    expect(k?.status, k?.summary).toBe('refuted');
    expect(k?.summary).toMatch(/The workload's mix \(1 read, 18 inserts, 2 updates per run/);
    expect(k?.summary).toMatch(/The reads were not timed apart: the mix, reads included, decides on its own\./);
    expect(k?.summary).toMatch(/keep the children referenced\.$/);
    // refuted: the migration is withdrawn, no $merge to paste
    expect(invoices?.recommendation?.action).toBe('Withdrawn: extended reference');
    expect(invoices?.recommendation?.commands ?? []).toEqual([]);
    expect(JSON.stringify(invoices)).not.toContain('$merge');
    console.log(`[embed-reference live] refuted: wall ${Math.round(performance.now() - t0)} ms`);
  });

  // last: the replay adds order items
  it('reads the same counts from system.profile in the real mongosh, inserts included', async (ctx) => {
    if (!caps.has.profiler) ctx.skip('the server has no profiler (system.profile)');
    if (!existsSync(PLUGIN)) throw new Error('dist/advisor.js is missing: run `npm run build` first');
    const t0 = performance.now();
    const ops = embedOperations(DB, seed).filter((o) => ['orders', 'order_items', 'users'].includes(o.coll));
    // The test turns the profiler on and back off; the advisor never changes the level.
    await live.db
      .collection('system.profile')
      .drop()
      .catch(() => undefined);
    await live.db.command({ profile: 2 });
    try {
      for (const { command } of ops) {
        const { $db: _db, ...rest } = command;
        await live.db.command(rest);
      }
    } finally {
      await live.db.command({ profile: 0 });
    }
    const options = JSON.stringify({ confirm: false, rules: onlyRules('embed-reference').rules });
    const url = `${live.uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
    const script = `load(${JSON.stringify(PLUGIN)}); advisor.check(undefined, ${options})`;
    const r = await runProcess(MONGOSH, [url, '--quiet', '--norc', '--eval', script], {
      env: { MONGOSH_NO_UPDATE_CHECK: '1' },
    });
    expect(r.code, r.err).toBe(0);
    const text = oneLine(r.out);
    console.log(`[embed-reference live] mongosh:\n${r.out}`);
    expect(text).toContain(
      '`orders` reads `order_items` with a `$lookup` (`_id` → `orderId`) in 120 calls; per order, 3 children',
    );
    expect(text).toContain('`order_items` receives 8 inserts, 2 updates (2 by `_id`), 0 deletes');
    expect(text).toContain(`db.getSiblingDB("${DB}").getCollection("orders").aggregate([{ $lookup:`);
    expect(text).not.toMatch(/`users`|`audit_events`|`posts`/);
    expect(text).not.toContain('sku-');
    console.log(`[embed-reference live] from the profiler (mongosh): wall ${Math.round(performance.now() - t0)} ms`);
  });
});
