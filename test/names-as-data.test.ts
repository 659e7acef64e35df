/**
 * Names as data (issue 26, Build 4): a field, collection or index named after a member of Object.prototype
 * (`constructor`, `__proto__`, `valueOf`, `hasOwnProperty`, `toString`) is a name like any other. A plain `{}` answers
 * `k in key` for `constructor` and drops `key.__proto__ = 1`, so a query on `constructor` sorted by `points` was
 * advised `createIndex({ points: -1 })`. Here every workload reader (queries file, log line, profiler document), the
 * listIndexes reducer, the snapshot file's round trip and every rule get those names; test/names-as-data.live.test.ts
 * takes the same names through collect and the real CLI.
 */
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';
import queryIndexes from '../rules/query-indexes/index';
import { queryWorkload, workloadData } from '../src/collect/workload';
import { collectorsOf } from '../src/core/collector';
import { analyze } from '../src/core/runner';
import { parseSnapshot, serializeSnapshot } from '../src/core/snapshot-file';
import type { CollectionSnapshot, Snapshot } from '../src/core/types';
import { indexFromListIndexes } from '../src/lib/index-keys';
import { byName, hasName, keyOfEntries, ownValue } from '../src/lib/names-as-data';
import { adviseIndexes } from '../src/workload/candidates';
import { recordOfLogLine } from '../src/workload/log-reader';
import { recordOfProfileDocument } from '../src/workload/profiler';
import { parseQueriesText } from '../src/workload/queries-file';
import type { WorkloadRecord } from '../src/workload/record';
import { shapesOf } from '../src/workload/shape';
import { collectionOf, sampleOf, snapshotOf, withData } from './support/fixtures';
import { runRuleWithNotes } from './support/rule-tester';

export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'valueOf', 'hasOwnProperty', 'toString'] as const;

/** JSON text: the only way to write `__proto__` as an own key in a literal is to parse it. */
const json = (v: unknown): string => JSON.stringify(v);
/** A document whose keys are all own, `__proto__` included (as JSON.parse and BSON make them). */
const doc = (entries: [string, unknown][]): Record<string, unknown> => keyOfEntries(entries);
const findText = (name: string, coll = 'orders'): string =>
  `{"find": ${json(coll)}, "filter": {${json(name)}: 3, "x": {"$gt": 5}}, "sort": {"points": -1}, "$db": "app"}`;

/** The keys of an index key, in order, own ones only (what `createIndex` would be sent). */
const ownKeys = (key: object): string[] => Object.keys(key);

function advisedKey(records: WorkloadRecord[]): string[][] {
  const shapes = records.flatMap((r) => shapesOf(r.command, r.ns.db));
  return adviseIndexes(shapes, () => [{ name: '_id_', key: { _id: 1 } }]).candidates.map((c) => ownKeys(c.key));
}

describe('the helpers take every name as data', () => {
  it('byName, hasName, ownValue and keyOfEntries', () => {
    const r = byName<number>();
    for (const n of PROTOTYPE_NAMES) {
      expect(hasName(r, n)).toBe(false);
      expect(ownValue(r, n)).toBeUndefined();
      r[n] = 1;
    }
    expect(Object.keys(r)).toEqual(PROTOTYPE_NAMES);
    for (const n of PROTOTYPE_NAMES) expect(ownValue({}, n)).toBeUndefined();
    const key = keyOfEntries([
      ['__proto__', 1],
      ['points', -1],
      ['__proto__', -1],
    ]);
    expect(Object.keys(key)).toEqual(['__proto__', 'points']);
    expect(Object.getPrototypeOf(key)).toBe(Object.prototype);
    expect(JSON.stringify(key)).toBe('{"__proto__":1,"points":-1}');
  });
});

describe('every workload reader keeps an Object.prototype name as a field of the advised index', () => {
  for (const name of PROTOTYPE_NAMES) {
    const expected = [name, 'points', 'x'];
    it(`${name}: queries file`, () => {
      expect(advisedKey(parseQueriesText(findText(name)))).toEqual([expected]);
    });
    it(`${name}: slow-query log line`, () => {
      const cmd = JSON.parse(findText(name)) as Record<string, unknown>;
      const attr = { type: 'command', ns: 'app.orders', command: cmd, planSummary: 'COLLSCAN', durationMillis: 150 };
      const line = json({ t: { $date: '2026-11-01T00:00:00.000Z' }, c: 'COMMAND', id: 51803, msg: 'Slow query', attr });
      const r = recordOfLogLine(line);
      if (typeof r === 'string') throw new Error(`the log line was not read: ${r}`);
      expect(advisedKey([r])).toEqual([expected]);
    });
    it(`${name}: profiler document`, () => {
      const cmd = JSON.parse(findText(name)) as Record<string, unknown>;
      const r = recordOfProfileDocument(
        JSON.parse(`{"op":"query","ns":"app.orders","command":${json(cmd)},"millis":150}`),
      );
      if (typeof r === 'string') throw new Error(`the profiler document was not read: ${r}`);
      expect(advisedKey([r])).toEqual([expected]);
    });
  }

  it('a profiler document or log line whose op is an Object.prototype name is no operation kind', () => {
    for (const op of PROTOTYPE_NAMES) {
      const r = recordOfProfileDocument({ op, ns: 'app.orders', command: { ping: 1 } });
      if (typeof r === 'string') throw new Error(`read as ${r}`);
      expect(r.op).toBe('other');
      const attr = `{"type":${json(op)},"ns":"app.orders","command":{"ping":1},"durationMillis":150}`;
      const l = recordOfLogLine(`{"t":{"$date":"2026-11-01T00:00:00.000Z"},"c":"COMMAND","id":51803,"attr":${attr}}`);
      if (typeof l === 'string') throw new Error(`read as ${l}`);
      expect(l.op).toBe('other');
    }
  });
});

describe('indexes, census and collections named so survive collect, the snapshot file and every rule', () => {
  it('the listIndexes reducer keeps a `__proto__` key as a key', () => {
    const spec = JSON.parse('{"v":2,"key":{"__proto__":1,"constructor":-1},"name":"__proto__"}') as Record<
      string,
      unknown
    >;
    const ix = indexFromListIndexes(spec);
    expect(Object.keys(ix.key)).toEqual(['__proto__', 'constructor']);
    expect(ix.name).toBe('__proto__');
  });

  /** Collection `name` with every hostile field in its census, an index named after each on that field. */
  function hostile(name: string): CollectionSnapshot {
    const fields = doc([
      ['_id', { present: 40, types: { objectId: 40 } }],
      ['points', { present: 40, types: { int: 40 } }],
      ['x', { present: 40, types: { int: 40 } }],
      ...PROTOTYPE_NAMES.map((n): [string, unknown] => [n, { present: 40, types: { int: 40 } }]),
    ]) as never;
    const indexes = [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 4096 },
      ...PROTOTYPE_NAMES.map((n) => ({ name: n, key: doc([[n, 1]]) as Record<string, 1>, sizeBytes: 4096 })),
    ];
    return collectionOf(name, { indexes, sample: sampleOf([], { fields }) });
  }

  function hostileSnapshot(): Snapshot {
    const colls = PROTOTYPE_NAMES.map(hostile);
    // collection i is queried on field i: one shape per collection, each under the per-collection cap
    const records = PROTOTYPE_NAMES.flatMap((n) =>
      Array.from({ length: 4 }, () => parseQueriesText(findText(n, n))).flat(),
    );
    const data = workloadData(records, 'app', colls, () => undefined);
    return snapshotOf(colls, { databases: [withData({ name: 'app', collections: colls }, queryWorkload, data)] });
  }

  it('the snapshot file keeps `__proto__` as an own key of index keys, the census and the workload', () => {
    const all = collectorsOf(rules);
    const back = parseSnapshot(JSON.parse(serializeSnapshot(hostileSnapshot(), all)), 'names.json', all);
    const colls = back.databases[0]?.collections ?? [];
    expect(colls.map((c) => c.name)).toEqual(PROTOTYPE_NAMES);
    for (const c of colls) {
      expect(Object.keys(c.sample.fields)).toEqual(['_id', 'points', 'x', ...PROTOTYPE_NAMES]);
      expect(c.indexes.map((i) => Object.keys(i.key)[0])).toEqual(['_id', ...PROTOTYPE_NAMES]);
    }
    expect(serializeSnapshot(back, all)).toContain('"__proto__"');
  });

  it('every rule runs over them without an internal error', () => {
    const out = analyze(hostileSnapshot(), {}, rules);
    const failed = out.findings.filter((f) => f.messageId === 'internalError').map((f) => f.message);
    expect(failed).toEqual([]);
    // each collection's names came through as written: no rule read a missing name as Object.prototype's member
    for (const f of out.findings) expect(f.message).not.toMatch(/function|\[object Object\]|native code/);
  });

  it('query-indexes proposes each field first, then the sort, then the range: { <name>: 1, points: -1, x: 1 }', () => {
    const out = runRuleWithNotes(queryIndexes, hostileSnapshot());
    const commands = out.findings.flatMap((f) =>
      (f.recommendation?.commands ?? []).map((c) => [f.target.collection, c]),
    );
    for (const name of PROTOTYPE_NAMES) {
      // the createIndex (a redundant prefix it leaves would add its hide, with the undo as a comment)
      const mine = commands.filter(([coll, c]) => coll === name && c?.includes('.createIndex(')).map(([, c]) => c);
      expect(mine, `a createIndex for collection ${name}`).toHaveLength(1);
      // loosely: the builder may quote keys or name the collection with getSiblingDB/getCollection
      const keyText = /createIndex\((\{[^}]*\})/.exec(mine[0] ?? '')?.[1] ?? '';
      const keys = [...keyText.matchAll(/\[?["']?([\w$]+)["']?\]?\s*:\s*(-?1)/g)].map((m) => `${m[1]}:${m[2]}`);
      expect(keys).toEqual([`${name}:1`, 'points:-1', 'x:1']);
    }
  });
});
