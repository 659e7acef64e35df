import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { main } from '../src/cli/main';
import { QUERY_RULES } from '../src/core/query-rules';
import type { LintResult } from '../src/core/baseline';
import { useLiveDb } from './support/live-db';
import { rulesOffConfig } from './support/rules-off';

const DB = 'mongo_advisor_test_lint_queries';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (s) => (out += s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => (err += `${s}\n`),
    isTTY: false,
  });
  return { code, out, err };
}

/** The shop's queries file, aimed at this test's database. */
function queriesFile(dir: string): string {
  const text = readFileSync(join(__dirname, 'fixtures', 'workload', 'lint', 'shop-queries.jsonl'), 'utf8')
    .replaceAll('"shop.', `"${DB}.`)
    .replaceAll('"$db": "shop"', `"$db": "${DB}"`);
  const file = join(dir, 'queries.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('lint --queries <uri>: the shop queries explained by the server', () => {
  const live = useLiveDb(DB, async (db) => {
    const day = 86_400_000;
    const t0 = Date.UTC(2025, 0, 1);
    await db.collection('orders').insertMany(
      Array.from({ length: 300 }, (_, i) => ({
        status: ['open', 'pending', 'closed'][i % 3],
        customerId: i % 40,
        createdAt: new Date(t0 + (i % 90) * day),
        total: i * 3,
      })),
    );
    await db.collection('products').insertMany(Array.from({ length: 100 }, (_, i) => ({ sku: `SKU-${i}` })));
    await db.collection('events').insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        type: ['view', 'checkout'][i % 2],
        at: new Date(t0 + i * 3_600_000),
      })),
    );
    await db.collection('orders').createIndex({ status: 1 });
    await db.collection('products').createIndex({ sku: 1 }, { unique: true });
  });

  const dir = mkdtempSync(join(tmpdir(), 'ma-queries-live-'));
  // Only the query checks: the snapshot rules have their own tests.
  const config = rulesOffConfig(dir, 'config.json');

  const lint = async (): Promise<{ code: number; result: LintResult; found: string[] }> => {
    const r = await cli([
      'lint',
      live.uri,
      '--db',
      DB,
      '--queries',
      queriesFile(dir),
      '--config',
      config,
      '-f',
      'json',
      '-q',
    ]);
    expect(r.err).not.toMatch(/\n\s+at /);
    // The explain replies echo the queries' values (parsedQuery, command): none reaches the report.
    for (const value of ['abc-12', '64b7f0c2a1b2c3d4e5f60718', 'checkout', 'expired', '2025-06-0']) {
      expect(r.out + r.err).not.toContain(value);
    }
    const result = JSON.parse(r.out) as LintResult;
    const found = result.findings.map((f) => `${f.ruleId} ${f.target.collection ?? ''}`).sort();
    return { code: r.code, result, found };
  };

  it('online and offline name each problem alike: the same rule and message ids (SARIF, baselines)', async () => {
    // The same queries against the same indexes: explained by this server, and judged from the spec that declares them
    const fixtures = join(__dirname, 'fixtures', 'workload', 'lint');
    const spec = join(fixtures, 'spec-bare.json');
    const offline = await cli([
      'lint',
      '--queries',
      join(fixtures, 'shop-queries.jsonl'),
      '--spec',
      spec,
      '--config',
      config,
      '-f',
      'json',
      '-q',
    ]);
    expect(offline.err).not.toMatch(/\n\s+at /);
    const online = await lint();
    // Keyed by rule and shape (printed without values): the message id must be the same whichever path found it.
    const ids = (r: LintResult): Map<string, string> =>
      new Map(
        r.findings.map((f) => [
          `${f.ruleId} ${/^The query (.+) \([^()]*:\d+\) /.exec(f.message)?.[1] ?? f.message}`,
          f.messageId,
        ]),
      );
    const judged = JSON.parse(offline.out) as LintResult;
    const [on, off] = [ids(online.result), ids(judged)];
    const both = [...on.keys()].filter((k) => off.has(k));
    expect(both.map((k) => `${k.split(' ')[0] ?? ''}/${on.get(k) ?? ''}`)).toEqual(
      expect.arrayContaining([
        'query-collection-scan/scan',
        'query-in-memory-sort/sort',
        'query-unbounded-regex/caseInsensitive',
      ]),
    );
    for (const k of both) expect(on.get(k), k).toBe(off.get(k));
    // Where the verdicts differ (SecantusDB plans two of the orders queries as collection scans although the status
    // index bounds them; the partial-index check is offline only), each id is still one of the rule's own.
    const vocabulary = new Set(QUERY_RULES.flatMap((r) => Object.keys(r.messages).map((m) => `${r.id}/${m}`)));
    for (const f of [...online.result.findings, ...judged.findings])
      expect(vocabulary).toContain(`${f.ruleId}/${f.messageId}`);
    console.log(`[lint --queries] ${live.kind}: online ${[...on].join('; ')}`);
    const basis = (r: LintResult): string[] =>
      r.findings.flatMap((f) => /\(judged from ([^)]+)\)\.$/.exec(f.message)?.[1] ?? []);
    expect(new Set(basis(judged))).toEqual(new Set(['the indexes the spec declares']));
    const explained = inject('capabilities').has.explainStages;
    expect(new Set(basis(online.result))).toEqual(
      new Set([explained ? "the server's winning plan" : 'the live indexes']),
    );

    // SARIF: the events scan is the same rule and message id in both reports
    const sarifOf = async (args: string[]): Promise<string[]> => {
      const r = await cli([...args, '--config', config, '-f', 'sarif', '-q']);
      type Sarif = { runs: { results: { ruleId: string; properties: { messageId: string } }[] }[] };
      const results = (JSON.parse(r.out) as Sarif).runs.flatMap((run) => run.results);
      return results.map((x) => `${x.ruleId}/${x.properties.messageId}`);
    };
    const onlineSarif = await sarifOf(['lint', live.uri, '--db', DB, '--queries', queriesFile(dir)]);
    const offlineSarif = await sarifOf(['lint', '--queries', join(fixtures, 'shop-queries.jsonl'), '--spec', spec]);
    for (const ids of [onlineSarif, offlineSarif]) {
      expect(ids).toContain('query-collection-scan/scan');
      expect(ids.filter((id) => /Explained/.test(id))).toEqual([]);
    }
  });

  it('without the indexes: a collection scan and in-memory sorts (exit 1); with them: exit 0', async () => {
    const before = await lint();
    const offline = before.result.notes.some((n) => /judged offline against the live indexes/.test(n.message));
    // Explained (SecantusDB) or judged offline where the server's explain names no stage (FerretDB): same verdict.
    expect(before.found).toEqual(
      expect.arrayContaining([
        'query-collection-scan events',
        'query-in-memory-sort orders',
        'query-unbounded-regex products',
      ]),
    );
    expect(before.code).toBe(1);
    const explained = before.result.findings.filter((f) =>
      f.message.endsWith("(judged from the server's winning plan)."),
    );
    // A server whose explain names no stage (FerretDB) gets the offline analysis, and a note says so.
    expect(offline).toBe(!inject('capabilities').has.explainStages);
    if (!offline) expect(explained.map((f) => f.ruleId)).toContain('query-collection-scan');
    const scan = before.result.findings.find(
      (f) => f.ruleId === 'query-collection-scan' && f.target.collection === 'events',
    );
    expect(scan?.recommendation?.commands).toEqual([
      `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("events").createIndex({ type: 1, at: 1 })`,
    ]);

    await live.db.collection('orders').createIndex({ status: 1, customerId: 1, createdAt: -1 });
    await live.db.collection('orders').createIndex({ status: 1, createdAt: 1 });
    await live.db.collection('orders').createIndex({ status: 1, total: -1 });
    await live.db.collection('events').createIndex({ type: 1, at: 1 });
    const after = await lint();
    expect(after.found.filter((f) => f.startsWith('query-collection-scan'))).toEqual([]);
    expect(after.found).toContain('query-unbounded-regex products');
    const sorts = after.found.filter((f) => f.startsWith('query-in-memory-sort'));
    // SecantusDB's planner never reads a sort from an index: its plans keep their SORT stage whatever the indexes (it
    // explains { status: 1, customerId: 1, createdAt: -1 } under a SORT by createdAt). Offline, the ESR indexes serve.
    if (offline || live.kind !== 'secantusdb') expect(sorts).toEqual([]);
    expect(after.code).toBe(0);
    // Nothing was written: the update of the queries file was only planned.
    expect(await live.db.collection('orders').countDocuments({ status: 'expired' })).toBe(0);
  });
});
