import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { whyNotReading } from '../src/adapters/read-only';
import { main } from '../src/cli/main';
import type { LintResult } from '../src/core/baseline';
import { explainCommandOf, queryEntries } from '../src/spec/queries';
import { arrayEntryLines, parseQueriesText } from '../src/workload/queries-file';
import { collectionOf, snapshotOf } from './support/fixtures';
import { rulesOffConfig } from './support/rules-off';

const FIXTURES = join(__dirname, 'fixtures', 'workload', 'lint');
const QUERIES = join(FIXTURES, 'shop-queries.jsonl');
const BARE = join(FIXTURES, 'spec-bare.json');
const ESR = join(FIXTURES, 'spec-esr.json');

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

interface SarifResult {
  ruleId: string;
  level: string;
  locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
}

const sarifValidator = (() => {
  const schema = JSON.parse(
    readFileSync(
      join(__dirname, '..', 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'),
      'utf8',
    ),
  ) as object;
  const ajv = new Ajv({ strict: false, unicodeRegExp: false });
  addFormats(ajv);
  return ajv.compile(schema);
})();

/** The 1-based line of the queries file holding `text`. */
const lineOf = (file: string, text: string): number =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

describe('lint --queries against a declared spec (offline)', () => {
  it('a spec without the ESR indexes: exit 1 on the scan, the in-memory sorts and the regex reported', async () => {
    const r = await cli(['lint', '--queries', QUERIES, '--spec', BARE, '--format', 'json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as LintResult;
    const found = result.findings
      .filter((f) => f.ruleId.startsWith('query-'))
      .map((f) => `${f.severity} ${f.ruleId}/${f.messageId} ${f.target.collection ?? ''}`)
      .sort();
    expect(found).toEqual([
      'error query-collection-scan/scan events',
      'info query-partial-index/partial orders',
      'warn query-in-memory-sort/sort orders',
      'warn query-in-memory-sort/sort orders',
      'warn query-unbounded-regex/caseInsensitive products',
    ]);
    const scan = result.findings.find((f) => f.ruleId === 'query-collection-scan');
    expect(scan?.message).toMatch(
      /^The query db\.events\.find\(\{ at: \{ \$gte: \?date, \$lt: \?date \}, type: \?string/,
    );
    expect(scan?.recommendation?.commands).toEqual([
      'db.getSiblingDB("shop").getCollection("events").createIndex({ type: 1, at: 1 })',
    ]);
    const sorts = result.findings.filter((f) => f.ruleId === 'query-in-memory-sort');
    expect(sorts.map((f) => f.recommendation?.commands?.[0]).sort()).toEqual([
      'db.getSiblingDB("shop").getCollection("orders").createIndex({ customerId: 1, status: 1, createdAt: -1 })',
      'db.getSiblingDB("shop").getCollection("orders").createIndex({ status: 1, total: -1 })',
    ]);
    const partial = result.findings.find((f) => f.ruleId === 'query-partial-index');
    expect(partial?.message).toMatch(/served only in part by the index status_1: a range field is missing from it/);
    const regex = result.findings.find((f) => f.ruleId === 'query-unbounded-regex');
    expect(regex?.recommendation?.reason).toMatch(/collation of strength 1 or 2.*anchored.*text index/);
  });

  it('SARIF validates against the official schema and points each result at its query line', async () => {
    const r = await cli(['lint', '--queries', QUERIES, '--spec', BARE, '--format', 'sarif']);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out) as { runs: { results: SarifResult[] }[] };
    expect(sarifValidator(log)).toBe(true);
    const where = (log.runs[0]?.results ?? [])
      .filter((x) => x.ruleId.startsWith('query-'))
      .map((x) => [
        x.ruleId,
        x.level,
        x.locations[0]?.physicalLocation.artifactLocation.uri,
        x.locations[0]?.physicalLocation.region?.startLine,
      ]);
    const uri = relative(process.cwd(), QUERIES).split('\\').join('/');
    expect(where).toEqual([
      ['query-collection-scan', 'error', uri, lineOf(QUERIES, '"find": "events"')],
      // The entry that says where the query is written points there.
      ['query-in-memory-sort', 'warning', 'src/orders/list.ts', 42],
      ['query-unbounded-regex', 'warning', uri, lineOf(QUERIES, '"find": "products"')],
      ['query-in-memory-sort', 'warning', uri, lineOf(QUERIES, '"sort": {"total": -1}')],
      ['query-partial-index', 'note', uri, lineOf(QUERIES, '"update": "orders"')],
    ]);
  });

  it('a spec that declares the ESR indexes: exit 0, the case-insensitive regex still reported (warn)', async () => {
    const r = await cli(['lint', '--queries', QUERIES, '--spec', ESR, '--format', 'json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.out) as LintResult;
    expect(result.findings.map((f) => `${f.severity} ${f.ruleId}/${f.messageId}`)).toEqual([
      'warn query-unbounded-regex/caseInsensitive',
    ]);
    // --fail-on warn makes the regex fail the gate.
    expect((await cli(['lint', '--queries', QUERIES, '--spec', ESR, '--fail-on', 'warn'])).code).toBe(1);
  });

  it("the configuration sets a query check's severity like a spec check's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-queries-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ rules: { 'query-unbounded-regex': 'error', 'query-partial-index': 'off' } }),
    );
    const r = await cli(['lint', '--queries', QUERIES, '--spec', ESR, '--config', config, '--format', 'json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as LintResult;
    expect(result.findings.map((f) => `${f.severity} ${f.ruleId}`)).toEqual(['error query-unbounded-regex']);
  });

  it('a JSON array: each entry located at the line it starts on', () => {
    const text = '[\n  {"find": "a", "$db": "x"},\n\n  {\n    "find": "b", "s": "[{,\\"]",\n    "$db": "x"\n  }\n]\n';
    expect(arrayEntryLines(text)).toEqual([2, 4]);
    expect(parseQueriesText(text).map((r) => r.entryLine)).toEqual([2, 4]);
  });
});

describe('lint --queries: values never reach a report', () => {
  const MARK = 'zq9MARKERv';
  const NUMBER = 73519264;
  const OID = '65a1b2c3d4e5f60718293a4b';
  it('plants markers in every query and finds none in text, JSON, SARIF, JUnit or Markdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-queries-'));
    const file = join(dir, 'q.jsonl');
    const lines = [
      { find: 'orders', filter: { status: MARK, customerId: { $oid: OID } }, sort: { createdAt: -1 }, $db: 'shop' },
      { find: 'products', filter: { sku: { $regex: `${MARK}.*`, $options: 'i' } }, $db: 'shop' },
      { find: 'products', filter: { name: { $regex: MARK } }, $db: 'shop' },
      { update: 'orders', updates: [{ q: { total: { $gt: NUMBER } }, u: { $set: { note: MARK } } }], $db: 'shop' },
      { aggregate: 'events', pipeline: [{ $match: { type: { $in: [MARK, `${MARK}2`] } } }], cursor: {}, $db: 'shop' },
      { count: 'events', query: { at: { $lt: { $date: '2031-02-03T04:05:06Z' } } }, $db: 'shop' },
      {
        findAndModify: 'orders',
        query: { code: NUMBER },
        sort: { at: 1 },
        update: { $inc: { n: NUMBER } },
        $db: 'shop',
      },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
    for (const format of ['text', 'json', 'sarif', 'junit', 'markdown']) {
      const r = await cli(['lint', '--queries', file, '--spec', BARE, '--format', format, '--verbose']);
      expect(r.code).toBe(1);
      const all = r.out + r.err;
      expect(all).toMatch(/query-collection-scan/);
      for (const marker of [MARK, String(NUMBER), OID, '2031']) expect(all).not.toContain(marker);
    }
  });
});

describe('lint --queries: a bad queries file is one clear line, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-queries-bad-'));
  const write = (name: string, text: string): string => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  it.each([
    ['missing', () => join(dir, 'nope.jsonl'), /Cannot read .*nope\.jsonl: no such file\./],
    ['a directory', () => dir, /it is a directory/],
    [
      'not JSON',
      () => write('a.jsonl', '{"find": "orders", "filter": {"s": "x"'),
      /line 1: the entry is not valid Extended JSON/,
    ],
    [
      'a write',
      () => write('b.jsonl', '\n{"insert": "orders", "documents": [{"s": "x"}], "$db": "shop"}'),
      /line 2: the entry is not one of find, aggregate/,
    ],
    ['no database', () => write('c.jsonl', '{"find": "orders"}'), /line 1: the entry has no database/],
    ['empty', () => write('d.jsonl', '// nothing\n'), /holds no queries/],
  ])('%s', async (_name, file, message) => {
    const r = await cli(['lint', '--queries', file(), '--spec', BARE]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).not.toContain('\\n');
    expect(r.err).not.toContain('"x"');
  });

  it('--queries with nothing to judge against', async () => {
    const r = await cli(['lint', '--queries', QUERIES]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/lint --queries needs indexes to judge the queries against/);
  });
});

describe('lint --queries online: what is explained passes the read-only gate', () => {
  it('every command kind of a queries file is explained as a read at queryPlanner', () => {
    const text = [
      '{"find": "o", "filter": {"a": 1}, "sort": {"b": -1}, "lsid": {"id": 1}, "$db": "x"}',
      '{"aggregate": "o", "pipeline": [{"$match": {"a": 1}}], "$db": "x"}',
      '{"update": "o", "updates": [{"q": {"a": 1}, "u": {"$set": {"b": 2}}}, {"q": {"c": 1}, "u": {}}], "$db": "x"}',
      '{"delete": "o", "deletes": [{"q": {"a": 2}, "limit": 1}], "$db": "x"}',
      '{"count": "o", "query": {"d": 1}, "$db": "x"}',
      '{"distinct": "o", "key": "k", "query": {"e": 1}, "$db": "x"}',
      '{"findAndModify": "o", "query": {"f": 1}, "sort": {"g": 1}, "update": {"$inc": {"n": 1}}, "$db": "x"}',
    ].join('\n');
    const entries = queryEntries(parseQueriesText(text));
    expect(entries).toHaveLength(8);
    const commands = entries.map((e) => explainCommandOf(e));
    for (const cmd of commands) {
      expect(whyNotReading(cmd)).toBeNull();
      expect(cmd?.verbosity).toBe('queryPlanner');
    }
    const inner = commands.map((c) => Object.keys(c?.explain as object)[0]);
    expect(inner).toEqual(['find', 'aggregate', 'find', 'find', 'find', 'count', 'distinct', 'find']);
    expect(JSON.stringify(commands)).not.toContain('lsid');
  });
});

describe('lint --queries against a snapshot file (offline, its recorded indexes)', () => {
  it("judges the shapes against the snapshot's indexes, and notes a collection it does not hold", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ma-queries-snap-'));
    const ix = (key: Record<string, 1 | -1>): { name: string; key: Record<string, 1 | -1>; sizeBytes: number } => ({
      name: Object.entries(key)
        .map(([k, v]) => `${k}_${v}`)
        .join('_'),
      key,
      sizeBytes: 4096,
    });
    const id = { name: '_id_', key: { _id: 1 as const }, sizeBytes: 4096 };
    const snapshot = snapshotOf([
      collectionOf('orders', { db: 'shop', indexes: [id, ix({ status: 1, customerId: 1, createdAt: -1 })] }),
      collectionOf('products', { db: 'shop', indexes: [id, ix({ sku: 1 })] }),
    ]);
    const snap = join(dir, 'snap.json');
    writeFileSync(snap, JSON.stringify(snapshot));
    const config = rulesOffConfig(dir, 'config.json');
    const r = await cli(['lint', snap, '--queries', QUERIES, '--config', config, '--format', 'json']);
    expect(r.err).not.toMatch(/\n\s+at /);
    const result = JSON.parse(r.out) as LintResult;
    expect(result.findings.map((f) => `${f.ruleId}/${f.messageId} ${f.target.collection ?? ''}`).sort()).toEqual([
      'query-collection-scan/scan events',
      'query-in-memory-sort/sort orders',
      'query-partial-index/partial orders',
      'query-unbounded-regex/caseInsensitive products',
    ]);
    // The ESR index serves the orders list; the sort by total is the one left to memory.
    expect(result.findings.find((f) => f.ruleId === 'query-in-memory-sort')?.message).toMatch(
      /\.sort\(\{ total: -1 \}\)/,
    );
    expect(result.findings.find((f) => f.ruleId === 'query-collection-scan')?.message).toMatch(
      /: no index serves it \(judged from the indexes the snapshot records\)\.$/,
    );
    expect(result.notes.map((n) => `${n.target?.collection ?? ''}: ${n.message}`)).toContain(
      'events: The queries name a collection the snapshot does not hold: it was judged with only its _id index.',
    );
    expect(r.code).toBe(1);
  });
});
