/**
 * Names as data and views, live through the real CLI (issue 26). Collections, fields and indexes named
 * `constructor`, `__proto__`, `valueOf`, `hasOwnProperty` and `toString` (SecantusDB accepts every one, `__proto__` as
 * a collection name too): `check --no-confirm` with a queries file prints, for each collection, the createIndex with
 * its field first, then the sort, then the range; `collect` then `analyze` run every rule over them without an
 * internal error. A query on a view gets no createIndex (MongoDB supports no index operations on a view,
 * https://www.mongodb.com/docs/manual/core/views/#index-use-and-sort-operations), but a note naming the source.
 * test/names-as-data.test.ts and rules/query-indexes/view.test.ts pin the same at the unit level.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOfEntries } from '../src/lib/names-as-data';
import { runProcess } from './support/run';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_names_data';
const NAMES = ['constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'toString'] as const;
const log = (line: string): void => console.log(`[names-as-data live] ${line}`);

/** The keys of a printed createIndex, in order, however the command builder quotes them. */
function keysOf(command: string): string[] {
  const keyText = /createIndex\((\{[^}]*\})/.exec(command)?.[1] ?? '';
  return [...keyText.matchAll(/\[?["']?([\w$]+)["']?\]?\s*:\s*(-?1)/g)].map((m) => `${m[1]}:${m[2]}`);
}

describe('Object.prototype names and views through the real CLI', () => {
  const uri = liveUri();
  let client: MongoClient;
  const dir = mkdtempSync(join(tmpdir(), 'mongo-advisor-names-'));
  /** The names the server took as collection, field and index names (it may refuse some). */
  const seeded: string[] = [];
  let viewRefused: string | null = null;

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    await db.dropDatabase();
    for (const name of NAMES) {
      try {
        const docs = Array.from({ length: 300 }, (_, i) =>
          keyOfEntries<unknown>([['points', i % 50], ['x', i], ...NAMES.map((f): [string, number] => [f, i % 7])]),
        );
        await db.collection(name).insertMany(docs);
        for (const f of NAMES) await db.collection(name).createIndex(keyOfEntries([[f, 1]]), { name: f });
        seeded.push(name);
      } catch (err) {
        log(`the server refused ${name} as a name: ${String(err)}`);
      }
    }
    await db.collection('orders').insertMany(Array.from({ length: 200 }, (_, i) => ({ customerId: i % 20, total: i })));
    try {
      await db.createCollection('paid', { viewOn: 'orders', pipeline: [{ $match: { total: { $gt: 10 } } }] });
    } catch (err) {
      viewRefused = String(err); // FerretDB 1.24: "support for field viewOn … is not implemented yet"
    }
    log(`seeded: ${seeded.join(', ')}${viewRefused ? `; no view: ${viewRefused}` : ''}`);
  });
  afterAll(async () => {
    await client?.db(DB).dropDatabase();
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('check --no-confirm prints { <name>: 1, points: -1, x: 1 } for a query on each name', async (ctx) => {
    if (seeded.length === 0) ctx.skip('the server took none of the names');
    const file = join(dir, 'names.jsonl');
    // collection n queried on field n: one shape each, under the per-collection cap
    const lines = seeded.map(
      (n) =>
        `{"find": ${JSON.stringify(n)}, "filter": {${JSON.stringify(n)}: 3, "x": {"$gt": 5}}, ` +
        `"sort": {"points": -1}, "$db": "${DB}"}`,
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runProcess(process.execPath, [CLI, 'check', uri, '--db', DB, '--queries', file, '--no-confirm']);
    expect(r.code, r.err).toBe(1);
    expect(r.out).not.toMatch(/internal|failed internally/i);
    const commands = r.out.split('\n').filter((l) => l.includes('createIndex('));
    for (const n of seeded) {
      const mine = commands.filter((c) => c.includes(n) && keysOf(c)[0] === `${n}:1`);
      expect(mine, `a createIndex led by ${n} in:\n${r.out}`).toHaveLength(1);
      expect(keysOf(mine[0] ?? '')).toEqual([`${n}:1`, 'points:-1', 'x:1']);
    }
    // no index lost its field: every proposal has three fields
    for (const c of commands) expect(keysOf(c), c).toHaveLength(3);
  });

  it('collect then analyze: every rule runs over them, the snapshot keeps every name', async (ctx) => {
    if (seeded.length === 0) ctx.skip('the server took none of the names');
    const snap = join(dir, 'snap.json');
    const c = await runProcess(process.execPath, [CLI, 'collect', uri, '--db', DB, '-o', snap]);
    expect(c.code, c.err).toBe(0);
    const parsed = JSON.parse(readFileSync(snap, 'utf8')) as {
      databases: { collections: { name: string; sample: { fields: object }; indexes: { key: object }[] }[] }[];
    };
    const colls = parsed.databases[0]?.collections ?? [];
    for (const n of seeded) {
      const coll = colls.find((x) => x.name === n);
      expect(coll, n).toBeDefined();
      for (const f of NAMES) expect(Object.keys(coll?.sample.fields ?? {}), `${n}.${f}`).toContain(f);
      expect(coll?.indexes.map((i) => Object.keys(i.key)[0]).sort()).toEqual(['_id', ...NAMES].sort());
    }
    const a = await runProcess(process.execPath, [CLI, 'analyze', snap]);
    expect([0, 1], a.err).toContain(a.code);
    expect(a.out + a.err).not.toMatch(/failed internally|internal error/i);
  });

  it('a query on a view: no createIndex for it, a finding naming the source collection', async (ctx) => {
    if (viewRefused) ctx.skip(`the server creates no views: ${viewRefused}`);
    // SecantusDB accepts createIndex on a view (MongoDB refuses it: a divergence); the advice follows MongoDB
    const file = join(dir, 'view.jsonl');
    writeFileSync(file, `{"find": "paid", "filter": {"customerId": 3}, "sort": {"total": -1}, "$db": "${DB}"}\n`);
    const r = await runProcess(process.execPath, [CLI, 'check', uri, '--db', DB, '--queries', file, '--no-confirm']);
    expect(r.code === 0 || r.code === 1, r.err).toBe(true);
    expect(r.out).not.toMatch(/paid"?\)?\.createIndex/);
    expect(r.out).toMatch(/runs on a view of `orders`/);
    expect(r.out).toContain('MongoDB supports no index operations on a view');
    const l = await runProcess(process.execPath, [CLI, 'lint', uri, '--db', DB, '--queries', file]);
    expect(l.out).not.toMatch(/paid"?\)?\.createIndex/);
    expect(l.out.replace(/\s+/g, ' ')).toContain('on this view were not judged: MongoDB supports no index operations');
  });
});
