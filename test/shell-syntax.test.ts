import { describe, expect, it } from 'vitest';
import compression from '../rules/compression';
import { shellCollection, shellKey, shellString } from '../src/lib/shell';
import { runRule } from './support/rule-tester';
import { collectionOf, sampleOf, snapshotOf } from './support/fixtures';

describe('names in recommended mongosh commands', () => {
  const hostile = 'x"); db.dropDatabase(); ("\n// y';

  it('stay one literal whatever they hold', () => {
    expect(shellCollection('order-items')).toBe('db.getCollection("order-items")');
    expect(shellCollection('orders')).toBe('db.orders');
    expect(shellString(hostile)).toBe(JSON.stringify(hostile));
    expect(shellKey('tenantId')).toBe('tenantId');
    expect(shellKey('a.b')).toBe('"a.b"');
    // Parsed back as JavaScript, the literal is the name itself: nothing runs, no comment ends early.
    expect(JSON.parse(shellString(hostile))).toBe(hostile);
  });

  it('a rule built with them never lets a collection name out of its quotes', () => {
    const c = collectionOf(hostile, {
      stats: {
        count: 100_000,
        sizeBytes: 4e9,
        avgObjSize: 40_000,
        storageSizeBytes: 2e9,
        totalIndexSizeBytes: 1e6,
        nindexes: 1,
        blockCompressor: 'snappy',
      },
      sample: sampleOf([]),
    });
    const findings = runRule(compression, snapshotOf([c]));
    for (const f of findings) {
      for (const cmd of f.recommendation?.commands ?? []) {
        expect(cmd, cmd).not.toContain('\n');
        expect(cmd, cmd).not.toMatch(/db\.dropDatabase\(\); \("(?!\\)/);
      }
    }
  });
});
