import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APP_NAME } from '../../src/core/names';
import { exclusionOf, makeRecord, opKindOf, parseNamespace } from '../../src/workload/record';

describe('record helpers', () => {
  it('excludes the appName the driver adapter sets (APP_NAME, src/core/names.ts) and nothing else', () => {
    const driver = readFileSync(path.join(__dirname, '../../src/adapters/driver.ts'), 'utf8');
    const set = [...driver.matchAll(/appName: ([^,\n]+)/g)].map((m) => m[1]);
    expect(set.length).toBeGreaterThan(0);
    expect(new Set(set)).toEqual(new Set(['APP_NAME']));
    const ns = { db: 'app', coll: 'orders' };
    expect(exclusionOf(APP_NAME, ns)).toBe('own');
    expect(exclusionOf('shop-api', ns)).toBeNull();
  });

  it('keeps the command out of JSON, inspection and key lists', () => {
    const facts = { source: 'file', ns: { db: 'a', coll: 'b' }, op: 'find' } as const;
    const rec = makeRecord(facts, { find: 'b', filter: { s: 'x9' } });
    expect(rec.command.filter).toEqual({ s: 'x9' });
    expect(JSON.stringify(rec)).not.toContain('x9');
    expect(inspect(rec, { depth: 9 })).not.toContain('x9');
    expect(Object.keys(rec)).toEqual(['source', 'ns', 'op']);
  });

  it('tells the kind by the first field and splits namespaces at the first dot', () => {
    expect(opKindOf({ findAndModify: 'c', query: {} })).toBe('findAndModify');
    expect(opKindOf({ aggregate: 'c', pipeline: [] })).toBe('aggregate');
    expect(opKindOf({ createIndexes: 'c' })).toBe('other');
    expect(parseNamespace('db.system.buckets.x')).toEqual({ db: 'db', coll: 'system.buckets.x' });
    expect(parseNamespace('nodot')).toBeNull();
  });
});
