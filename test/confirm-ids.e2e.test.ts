/**
 * A confirming `check` (the real CLI) of a database whose collections have ObjectId and string `_id`s: the validator
 * experiment is measured for both (its copies keep their `_id`s, so they pass the schema proposed from them), and
 * id-pattern's clustered-vs-regular experiment runs — where the server keeps validators and clustered collections.
 * Elsewhere each says why it could not run.
 */
import { ObjectId } from 'mongodb';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { CheckResult } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { runProcess } from './support/run';
import { expectScratchDropped } from './support/scratch';

const DB = 'mongo_advisor_test_confirm_ids';
const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const SECRET = 'SECRET-confirm-ids';

describe('confirming check of ObjectId and string _ids (real CLI)', () => {
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    const day = 86_400;
    const start = Math.floor(Date.now() / 1000) - 400 * day;
    // an index led by the time field: the evidence of time-ordered access id-pattern's clustering advice needs
    await db.collection('events').createIndex({ at: 1 });
    await db.collection('events').insertMany(
      Array.from({ length: 400 }, (_, i) => ({
        _id: ObjectId.createFromTime(start + i * 3600),
        type: i % 3 ? 'view' : 'click',
        at: new Date((start + i * 3600) * 1000),
        note: `${SECRET} ${i}`,
      })),
    );
    await db.collection<{ _id: string }>('codes').insertMany(
      Array.from({ length: 400 }, (_, i) => ({
        _id: `CODE-${String(i).padStart(5, '0')}`,
        label: `${SECRET} ${i}`,
        uses: i,
      })),
    );
  });

  it('measures the validator findings of both collections and runs clustered vs regular', async () => {
    // 400 documents: far below id-pattern's 100 MB clustering line, lowered by a configuration file
    const config = join(mkdtempSync(join(tmpdir(), 'confirm-ids-')), 'advisor.json');
    writeFileSync(config, JSON.stringify({ rules: { 'id-pattern': { options: { clusterMinBytes: 0 } } } }));
    const r = await runProcess(process.execPath, [
      CLI,
      'check',
      live.uri,
      '--db',
      DB,
      '--format',
      'json',
      // any verdict will do (the subject is that the copies keep their _ids and are measured): the least budget
      '--confirm-budget',
      '2',
      '--fail-on',
      'error',
      '--config',
      config,
    ]);
    expect(r.err).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    const result = JSON.parse(r.out) as CheckResult;
    const validator = (coll: string) =>
      result.findings.find(
        (f) => f.ruleId === 'validator' && f.target.collection === coll && f.messageId.startsWith('missing'),
      );
    for (const coll of ['events', 'codes']) {
      const k = validator(coll)?.confirmation;
      console.log(
        `[confirm-ids] ${inject('serverKind')} validator ${coll}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`,
      );
      expect(k, `no confirmation on the validator finding of ${coll}`).toBeDefined();
      if (caps.has.validators) {
        expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
        expect(k?.summary).not.toMatch(/None of the .* passes|accepted 0 of/);
        expect(k?.measurements.length).toBeGreaterThan(0);
      } else {
        expect(k?.status).toBe('not-run');
        expect(k?.summary).not.toBe('');
      }
    }
    const ids = result.findings.find((f) => f.ruleId === 'id-pattern' && f.target.collection === 'events');
    const k = ids?.confirmation;
    console.log(
      `[confirm-ids] ${inject('serverKind')} id-pattern ` +
        `events: ${ids?.messageId ?? 'none'} ${k?.status ?? 'none'}: ${k?.summary ?? ''}`,
    );
    expect(ids?.messageId).toBe('recommendClustered');
    if (caps.has.clustered) {
      expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
      expect(k?.measurements.map((m) => m.label)).toEqual(
        expect.arrayContaining([expect.stringMatching(/clustered/), expect.stringMatching(/regular/)]),
      );
    } else {
      expect(k?.status).toBe('not-run');
      expect(k?.summary).toMatch(/clustered/);
    }
    expect(r.out).not.toContain(SECRET);
    expect(result.confirm.cleanedUp).toBe(true);
    await expectScratchDropped(live.client, result.confirm.where);
  });
});
