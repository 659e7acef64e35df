import { beforeAll, describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import type { Finding, Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import rule from './index';
import { useLiveDb } from '../../test/support/live-db';

const DB = 'mongo_advisor_test_compression';

describe('compression (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('logs').insertMany(
      Array.from({ length: 600 }, (_, i) => ({ level: i % 7 ? 'info' : 'warn', service: `svc-${i % 4}`, message: `request ${i % 50} served in ${i % 13} ms from cache region eu-west`, at: new Date(1_700_000_000_000 + i * 1000) })),
    );
  });
  let snap: Snapshot;

  beforeAll(async () => {
    snap = await collectSnapshot(live.adapter, { db: DB, sampleSize: 600 });
  });

  it('measures the sample with snappy, zlib and zstd in process, storing byte counts only', () => {
    const c = snap.databases[0]?.collections.find((x) => x.name === 'logs')?.compressibility;
    expect(c?.serializer).toBe('bson');
    expect(c?.docs).toBe(600);
    expect(c?.unavailable).toBeUndefined();
    expect(c?.codecs.zstd).toBeGreaterThan(0);
    expect(c!.codecs.zstd!).toBeLessThan(c!.codecs.snappy!);
    expect(JSON.stringify(c)).not.toContain('request');
  });

  it('gives advice only where WiredTiger sets block compressors, and says why not elsewhere', () => {
    const stats = snap.databases[0]?.collections.find((x) => x.name === 'logs')?.stats;
    if (snap.server.storageEngine === 'wiredTiger') {
      expect(stats?.blockCompressor).toBeTruthy();
    } else {
      const note = snap.notes.find((n) => n.message.startsWith('compression:'));
      console.log(`[compression live] no advice on ${live.kind}: ${note?.message ?? ''}`);
      expect(note?.message).toContain('WiredTiger');
      expect(runRule(rule, snap)).toEqual([]);
    }
  });

  it('confirms on scratch collections created with each compressor, proven by their creationString', async () => {
    const finding: Finding = {
      ruleId: 'compression',
      messageId: 'zstdSmaller',
      severity: 'warn',
      target: { db: DB, collection: 'logs' },
      message: 'forced for the live test',
      evidence: { blockCompressor: 'snappy', sampleDocs: 600, sampleBytes: 600 * 150 },
      docsUrl: '',
    };
    const run = await confirmFindings(snap, [finding], live.adapter, [rule], { budgetMs: 20_000 });
    const c = run.findings[0]?.confirmation;
    console.log(`[compression live] ${c?.status ?? 'none'}: ${c?.summary ?? ''}`);
    expect(run.cleanedUp).toBe(true);
    if (snap.server.storageEngine !== 'wiredTiger') {
      expect(c?.status).toBe('not-run');
      expect(c?.reason).toMatch(/creationString|refused/);
      return;
    }
    expect(['supported', 'refuted', 'inconclusive']).toContain(c?.status);
    expect(c?.measurements.map((m) => m.label).slice(0, 2)).toEqual(['storageSize, snappy', 'storageSize, zstd']);
  });
});
