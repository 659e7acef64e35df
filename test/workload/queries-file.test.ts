import path from 'node:path';
import { ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { parseQueriesText, readQueriesFile } from '../../src/workload/queries-file';

const dir = path.join(__dirname, '../fixtures/workload/queries');

describe('readQueriesFile', () => {
  it('reads one command per line, bare or wrapped, with types and sources', () => {
    const recs = readQueriesFile(path.join(dir, 'orders.jsonl'));
    expect(recs.map((r) => [r.ns.db, r.ns.coll, r.op, r.source])).toEqual([
      ['shop', 'orders', 'find', 'file'],
      ['shop', 'orders', 'aggregate', 'file'],
      ['shop', 'orders', 'update', 'file'],
      ['shop', 'orders', 'count', 'file'],
    ]);
    expect(recs[1]?.at).toEqual({ file: 'src/orders/list.ts', line: 42 });
    const match = (recs[1]?.command.pipeline as { $match: { customerId: unknown } }[])[0];
    expect(match?.$match.customerId).toBeInstanceOf(ObjectId);
    expect((recs[0]?.command.filter as { createdAt: { $gte: unknown } }).createdAt.$gte).toBeInstanceOf(Date);
  });

  it('reads a JSON array', () => {
    const recs = readQueriesFile(path.join(dir, 'orders.json'));
    expect(recs.map((r) => r.op)).toEqual(['distinct', 'delete']);
  });

  it('names every bad line and what is wrong, without echoing values', () => {
    const text = [
      '{"find": "orders", "filter": {"secret": "s3cr3t"}}',
      '{"insert": "orders", "documents": [{"secret": "s3cr3t"}], "$db": "shop"}',
      '{"find": "orders", "filter": {"secret": "s3cr3t"',
      '{"find": "orders", "$db": "shop"}',
      '{"ns": "shop.orders", "command": {"find": "orders"}, "file": "a.ts", "line": 0}',
    ].join('\n');
    let message = '';
    try {
      parseQueriesText(text, 'q.jsonl');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^q\.jsonl has 4 unreadable entries:/);
    expect(message).toMatch(/line 1: the entry has no database/);
    expect(message).toMatch(/line 2: the entry is not one of find, aggregate/);
    expect(message).toMatch(/line 3: the entry is not valid Extended JSON/);
    expect(message).toMatch(/line 5: the entry "file" must be a string with "line" a positive integer/);
    expect(message).not.toContain('s3cr3t');
  });

  it('says so for a missing or empty file', () => {
    expect(() => readQueriesFile(path.join(dir, 'none.jsonl'))).toThrow(/no such file/);
    expect(() => parseQueriesText('// nothing\n\n')).toThrow(/holds no queries/);
    expect(() => parseQueriesText('[{"find": 1')).toThrow(/not a valid JSON array/);
  });
});
