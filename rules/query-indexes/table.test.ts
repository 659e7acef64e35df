import { describe, expect, it } from 'vitest';
import { analyzeAndConfirm } from '../../src/check';
import type { CheckResult, IndexSnapshot } from '../../src/core/types';
import { formatHtml, loadHtmlAssets } from '../../src/report/html';
import { formatJson } from '../../src/report/json';
import { formatMarkdown } from '../../src/report/markdown';
import { makeRecord, opKindOf, type RecordFacts } from '../../src/workload/record';
import { collectionOf, snapshotOf, withData } from '../../test/support/fixtures';
import { queryWorkload, workloadData } from '../../src/collect/workload';
import rule from './index';
import { resolveOptions } from '../../src/core/options';
import { type QueryIndexesOptions, queryIndexesOptionsSchema } from './options';

const MARKER = 'ZZTABLE_MARKER_91';
const MARKER_NUMBER = 9_191_919;
/** A collection name that tries to be HTML, a link and a table cell break. */
const HOSTILE = 'o<img src=x onerror=alert(1)>|`x`[a](javascript:alert(1))';

const ix = (name: string, key: Record<string, 1 | -1>): IndexSnapshot => ({ name, key, sizeBytes: 40_000 });

interface Run {
  command: Record<string, unknown>;
  calls: number;
  facts: Partial<RecordFacts>;
}

/** `app` with `coll` holding these indexes, its workload collector having read these runs. */
function snapshotWith(coll: string, indexes: IndexSnapshot[], runs: Run[]) {
  const colls = [collectionOf(coll, { indexes: [ix('_id_', { _id: 1 }), ...indexes] })];
  const records = runs.flatMap(({ command, calls, facts }) =>
    Array.from({ length: calls }, () =>
      makeRecord({ source: 'log', ns: { db: 'app', coll }, op: opKindOf(command), ...facts }, command),
    ),
  );
  const data = workloadData(records, 'app', colls, () => undefined);
  return snapshotOf(colls, { databases: [withData({ name: 'app', collections: colls }, queryWorkload, data)] });
}

const counted = (examined: number, returned: number, ms: number): Partial<RecordFacts> => ({
  durationMillis: ms,
  keysExamined: 0,
  docsExamined: examined,
  nreturned: returned,
  planSummary: 'COLLSCAN',
});

function runs(coll: string): Run[] {
  return [
    // Served in full by status_1: no proposal.
    { command: { find: coll, filter: { status: MARKER } }, calls: 50, facts: counted(20, 20, 1) },
    // No index: reads 10,000 to return 5, 4 times; the largest waste.
    { command: { find: coll, filter: { customerId: MARKER_NUMBER } }, calls: 4, facts: counted(10_000, 5, 120) },
    // No index: reads 2,000 to return 10, 3 times.
    { command: { find: coll, filter: { sku: MARKER } }, calls: 3, facts: counted(2_000, 10, 30) },
  ];
}

async function resultOf(coll: string): Promise<CheckResult> {
  const snapshot = snapshotWith(coll, [ix('status_1', { status: 1 })], runs(coll));
  return analyzeAndConfirm(snapshot, null, { db: 'app', rules: [rule], confirm: false });
}

describe("query-indexes' table of shapes", () => {
  it('one row per shape, highest impact first, figures per call, the index used and the one proposed', async () => {
    const result = await resultOf('orders');
    expect(result.tables?.map((x) => x.title)).toEqual([
      'Indexes proposed, highest impact first',
      'Query shapes, highest impact first',
    ]);
    const [ixs, t] = result.tables ?? [];
    expect(ixs?.target).toEqual({ db: 'app' });
    expect(ixs?.rows).toEqual([
      [
        'orders',
        'db.getSiblingDB("app").getCollection("orders").createIndex({ customerId: 1 }, { name: "customerId_1" })',
        1,
        4,
        480,
        null,
      ],
      [
        'orders',
        'db.getSiblingDB("app").getCollection("orders").createIndex({ sku: 1 }, { name: "sku_1" })',
        1,
        3,
        90,
        null,
      ],
    ]);
    expect(t?.target).toEqual({ db: 'app' });
    expect(t?.columns.map((c) => c.title)).toEqual([
      'collection',
      'shape',
      'calls',
      'time in all',
      'p95',
      'examined / call',
      'returned / call',
      'index used',
      'served',
      'proposed index',
      'proof on scratch',
    ]);
    expect(t?.rows).toEqual([
      [
        'orders',
        'db.orders.find({ customerId: ?number })',
        4,
        480,
        120,
        10_000,
        5,
        null,
        'no index',
        '{ customerId: 1 }',
        null,
      ],
      ['orders', 'db.orders.find({ sku: ?string })', 3, 90, 30, 2_000, 10, null, 'no index', '{ sku: 1 }', null],
      ['orders', 'db.orders.find({ status: ?string })', 50, 50, 1, 20, 20, 'status_1', 'fully', null, null],
    ]);
    // The findings read in the same order: the largest waste first.
    expect(result.findings.map((f) => f.evidence.proposed)).toEqual(['customerId_1', 'sku_1']);
  });

  it('shows the proof of a confirmed finding: its verdict, examined before → after, the insert cost', async () => {
    const snapshot = snapshotWith('orders', [ix('status_1', { status: 1 })], runs('orders'));
    const { findings } = await resultOf('orders');
    const brief = 'examined 10,000 → 5 per call; inserts 1.2x (95% interval 1.1x–1.3x) with it';
    const confirmed = findings.map((f, i) =>
      i === 0
        ? {
            ...f,
            confirmation: {
              status: 'supported' as const,
              summary: 's',
              brief,
              measurements: [],
              where: 'w',
              durationMs: 1,
            },
          }
        : f,
    );
    const tables = rule.tables?.({
      snapshot,
      options: resolveOptions<QueryIndexesOptions>(rule.id, queryIndexesOptionsSchema),
      findings: confirmed,
    });
    const proof = `supported: ${brief}`;
    expect(tables?.[0]?.rows.map((r) => r[5])).toEqual([proof, null]);
    expect(tables?.[1]?.rows.map((r) => r[10])).toEqual([proof, null, null]);
  });

  it('holds no value of the workload in any format', async () => {
    const result = await resultOf('orders');
    const html = formatHtml({ result, snapshot: snapshotOf([]) }, loadHtmlAssets());
    for (const out of [formatJson(result), formatMarkdown(result), html]) {
      expect(out).toContain('db.orders.find({ customerId: ?number })');
      expect(out).not.toContain(MARKER);
      expect(out).not.toContain(String(MARKER_NUMBER));
    }
  });

  it('a hostile collection name is escaped in HTML and Markdown', async () => {
    const result = await resultOf(HOSTILE);
    const html = formatHtml({ result, snapshot: snapshotOf([]) }, loadHtmlAssets());
    const section = html.slice(html.indexOf('<h2>Tables</h2>'));
    expect(section).toContain('Query shapes, highest impact first');
    expect(section).not.toContain('<img');
    expect(section).toContain('<td><code>o&lt;img src=x onerror=alert(1)&gt;|`x`[a](javascript:alert(1))</code></td>');
    const md = formatMarkdown(result);
    const rows = md.split('\n').filter((l) => l.startsWith('| ``o<img'));
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      // Six or eleven cells: the name's pipe is escaped, its backtick fenced past, so it stays one code span.
      expect([8, 13]).toContain(row.replace(/\\\|/g, '').split('|').length);
      expect(row.startsWith('| ``o<img src=x onerror=alert(1)>\\|`x`[a](javascript:alert(1))`` |')).toBe(true);
    }
  });
});
