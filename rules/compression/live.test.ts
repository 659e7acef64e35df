import type { Db } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Doc } from '../../src/core/adapter';
import { collectSnapshot } from '../../src/collect';
import { serverStatus } from '../../src/collect/server-status';
import { confirmFindings } from '../../src/confirm';
import { dataOf } from '../../src/core/collector';
import type { Finding, Snapshot } from '../../src/core/types';
import { runRule, runRuleWithNotes } from '../../test/support/rule-tester';
import { compressibility } from './collect';
import rule from './index';
import { useLiveDb } from '../../test/support/live-db';

const DB = 'mongo_advisor_test_compression';

/**
 * What the server proves it reports: the block_compressor of the WiredTiger creationString in a collection's
 * $collStats, read with the test's own client and parsed here (not by the product's compressorOf, which is under test).
 */
async function creationStringOf(db: Db, name: string): Promise<{ compressor: string | null; error: string | null }> {
  try {
    const [row] = await db
      .collection(name)
      .aggregate([{ $collStats: { storageStats: {} } }])
      .toArray();
    const creation = ((row?.storageStats as Doc | undefined)?.wiredTiger as Doc | undefined)?.creationString;
    const m = typeof creation === 'string' ? /(?:^|,)block_compressor=([a-z]*)/.exec(creation) : null;
    return { compressor: m ? m[1] || 'none' : null, error: null };
  } catch (err) {
    return { compressor: null, error: (err as Error).message };
  }
}

describe('compression (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('logs').insertMany(
      Array.from({ length: 600 }, (_, i) => ({
        level: i % 7 ? 'info' : 'warn',
        service: `svc-${i % 4}`,
        message: `request ${i % 50} served in ${i % 13} ms from cache region eu-west`,
        at: new Date(1_700_000_000_000 + i * 1000),
      })),
    );
  });
  let snap: Snapshot;

  beforeAll(async () => {
    snap = await collectSnapshot(live.adapter, {
      db: DB,
      sampleSize: 600,
      collectors: [serverStatus, compressibility],
    });
  });

  it(
    'measures the sample with snappy, zlib and zstd in process, storing byte counts only, with no command of ' +
      'its own',
    async () => {
      const c = dataOf(
        compressibility,
        snap.databases[0]?.collections.find((x) => x.name === 'logs'),
      );
      expect(snap.collectors.map((r) => r.id)).toEqual(['server-status', 'compression']);
      const without = await collectSnapshot(live.adapter, { db: DB, sampleSize: 600, collectors: [serverStatus] });
      console.log(
        `[compression live] ${live.kind}: ${snap.roundTrips} round trips with the compression ` +
          `collector, ${without.roundTrips} without`,
      );
      expect(snap.roundTrips).toBe(without.roundTrips);
      expect(c?.serializer).toBe('bson');
      expect(c?.docs).toBe(600);
      expect(c?.unavailable).toBeUndefined();
      expect(c?.codecs.zstd).toBeGreaterThan(0);
      expect(c!.codecs.zstd!).toBeLessThan(c!.codecs.snappy!);
      expect(JSON.stringify(c)).not.toContain('request');
    },
  );

  it('gives advice only where $collStats names the block compressor, and says why not elsewhere', async () => {
    const stats = snap.databases[0]?.collections.find((x) => x.name === 'logs')?.stats;
    const proven = await creationStringOf(live.db, 'logs');
    // what the rule could not check, said once (the cache-size line aside: it depends on the serverStatus role)
    const notes = runRuleWithNotes(rule, snap).notes.filter(
      (n) => !n.message.includes('the WiredTiger cache size is unknown'),
    );
    expect(notes.every((n) => n.message.startsWith('compression: '))).toBe(true);
    if (proven.compressor !== null) {
      expect(stats?.blockCompressor).toBe(proven.compressor);
      expect(notes).toEqual([]);
    } else {
      expect(notes).toHaveLength(1);
      const note = notes[0];
      const engine = snap.server.storageEngine ?? 'not reported';
      const collStats = proven.error ? `; $collStats: ${proven.error}` : '';
      console.log(
        `[compression live] no creationString on ${live.kind} (storage engine ${engine}${collStats}): ` +
          (note?.message ?? ''),
      );
      expect(stats?.blockCompressor ?? null).toBeNull();
      expect(runRule(rule, snap)).toEqual([]);
      if (snap.server.storageEngine === 'wiredTiger') {
        // a server that names WiredTiger without its creationString: said as such, and which collection
        expect(note?.message).toContain(
          'compression: the server reports storage engine wiredTiger but $collStats returned no ' +
            'wiredTiger.creationString for the one collection with documents',
        );
        expect(note?.message).toContain(`${DB}.logs`);
      } else expect(note?.message).toContain('WiredTiger');
      expect(note?.message).toContain("the sample's compressibility was still measured");
    }
  });

  it('confirms on scratch collections created with each compressor, proven by their creationString', async () => {
    // The capability the experiment needs, proven here: create with a compressor, then read it back.
    let created: { compressor: string | null; error: string | null };
    try {
      await live.db.createCollection('probe_zstd', {
        storageEngine: { wiredTiger: { configString: 'block_compressor=zstd' } },
      });
      created = await creationStringOf(live.db, 'probe_zstd');
    } catch (err) {
      created = { compressor: null, error: `create refused: ${(err as Error).message}` };
    }
    await live.db
      .collection('probe_zstd')
      .drop()
      .catch(() => undefined);
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
    const readBack = created.compressor ?? `nothing (${created.error ?? 'no creationString'})`;
    console.log(
      `[compression live] ${live.kind}, zstd read back as ${readBack}: ${c?.status ?? 'none'}: ${c?.summary ?? ''}`,
    );
    expect(run.cleanedUp).toBe(true);
    if (created.compressor === 'zstd') {
      expect(['supported', 'refuted', 'inconclusive']).toContain(c?.status);
      expect(c?.measurements.map((m) => m.label).slice(0, 2)).toEqual(['storageSize, snappy', 'storageSize, zstd']);
    } else {
      expect(c?.status).toBe('not-run');
      expect(c?.measurements).toEqual([]);
      if (created.error?.startsWith('create refused')) expect(c?.reason).toMatch(/refused/);
      else if (created.compressor === null) {
        expect(c?.reason).toContain('carry no wiredTiger.creationString, so the compressor it got cannot be read back');
        if (snap.server.storageEngine === 'wiredTiger')
          expect(c?.reason).toContain('although the server reports storage engine wiredTiger');
      } else expect(c?.reason).toMatch(/created it with block_compressor=/);
    }
  });
});
