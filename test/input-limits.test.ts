/**
 * Big and deep input files: a 3 GB snapshot (a sparse file: no disk, no memory until read) and specs and snapshots
 * nested 5,000 levels deep get a clear error in under a second with bounded memory, in-process (timed, RSS measured)
 * and through the real CLI (exit 2, the message, no stack). Every file is made in a temp folder and deleted.
 */
import { existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_NESTING,
  MAX_SNAPSHOT_BYTES,
  MAX_SPEC_BYTES,
  readTextBounded,
  TooLarge,
  tooDeep,
} from '../src/core/input-limits';
import { loadBaseline } from '../src/core/baseline';
import { loadSnapshot } from '../src/core/snapshot-file';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../src/core/types';
import { loadSpec } from '../src/spec/format';
import { runProcess } from './support/run';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const GB = 1024 ** 3;
const MB = 1024 ** 2;

/** A $jsonSchema nested `levels` deep: { properties: { a: { properties: { a: … } } } }. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { bsonType: 'object' };
  for (let i = 0; i < levels / 2; i++) schema = { properties: { a: schema } };
  return schema;
}

/** The same schema as JSON text, written without JSON.stringify (which recurses, and overflows at this depth). */
const deepSchemaText = (levels: number): string =>
  `${'{"properties":{"a":'.repeat(levels / 2)}{"bsonType":"object"}${'}}'.repeat(levels / 2)}`;

/** Runs `fn`, which must throw; returns its message, the time it took and how much the RSS grew meanwhile. */
function measured(fn: () => unknown): { message: string; ms: number; rssGrowth: number } {
  const rss = process.memoryUsage().rss;
  const t0 = performance.now();
  let message = 'no error';
  try {
    fn();
  } catch (err) {
    message = (err as Error).message;
  }
  return { message, ms: performance.now() - t0, rssGrowth: process.memoryUsage().rss - rss };
}

describe('input files are checked for size and depth before they are read or walked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-limits-'));
  const big = join(dir, 'huge-snapshot.json');
  const bigSpec = join(dir, 'huge-spec.js');
  const bigBaseline = join(dir, 'huge-baseline.json');
  const deepSpec = join(dir, 'deep-spec.json');
  const deepSnap = join(dir, 'deep-snapshot.json');
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
    writeFileSync(big, '');
    truncateSync(big, 3 * GB); // sparse: takes no disk
    writeFileSync(bigSpec, '');
    truncateSync(bigSpec, 3 * GB);
    writeFileSync(bigBaseline, '');
    truncateSync(bigBaseline, 3 * GB);
    const schema = deepSchemaText(5000);
    const declared = `{"name":"posts","options":{"validator":{"$jsonSchema":${schema}}}}`;
    writeFileSync(deepSpec, `{"db":"app","collections":[${declared}]}`);
    const collection = `{"db":"app","name":"posts","validator":{"present":true,"jsonSchema":${schema}}}`;
    const head = `"format":${JSON.stringify(SNAPSHOT_FORMAT)},"version":${SNAPSHOT_VERSION}`;
    writeFileSync(deepSnap, `{${head},"databases":[{"name":"app","collections":[${collection}]}]}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a 3 GB snapshot: refused from its size, nothing read (in-process: time and RSS)', () => {
    const r = measured(() => loadSnapshot(big));
    console.log(`[limits] 3 GB snapshot: ${r.ms.toFixed(1)} ms, RSS +${(r.rssGrowth / MB).toFixed(1)} MB`);
    expect(r.message).toMatch(/huge-snapshot\.json is 3 GiB: mongo-advisor reads snapshots up to 256 MiB .*was read/);
    expect(r.ms).toBeLessThan(1000);
    expect(r.rssGrowth).toBeLessThan(64 * MB);
  });

  it('a 3 GB JavaScript spec: refused from its size, its code never run', () => {
    const r = measured(() => loadSpec(bigSpec));
    console.log(`[limits] 3 GB spec: ${r.ms.toFixed(1)} ms, RSS +${(r.rssGrowth / MB).toFixed(1)} MB`);
    expect(r.message).toMatch(/The spec .*huge-spec\.js is 3 GiB: mongo-advisor reads specs up to 64 MiB .*or run/);
    expect(r.ms).toBeLessThan(1000);
    expect(r.rssGrowth).toBeLessThan(64 * MB);
  });

  it('a 3 GB baseline: refused from its size, nothing read', () => {
    const r = measured(() => loadBaseline(bigBaseline));
    console.log(`[limits] 3 GB baseline: ${r.ms.toFixed(1)} ms, RSS +${(r.rssGrowth / MB).toFixed(1)} MB`);
    expect(r.message).toMatch(/The baseline .*huge-baseline\.json holds more than 64 MiB/);
    expect(r.ms).toBeLessThan(1000);
    expect(r.rssGrowth).toBeLessThan(64 * MB);
  });

  it('a spec and a snapshot nested 5,000 levels deep: a clear error, not a stack overflow', () => {
    const spec = measured(() => loadSpec(deepSpec));
    const snap = measured(() => loadSnapshot(deepSnap));
    console.log(`[limits] 5,000 levels: spec ${spec.ms.toFixed(1)} ms, snapshot ${snap.ms.toFixed(1)} ms`);
    const deeper = `nests objects deeper than ${MAX_NESTING} levels`;
    const specAt = String.raw`collections\.0\.options\.validator\.\$jsonSchema\.properties…properties`;
    expect(spec.message).toMatch(new RegExp(`${deeper} \\(at ${specAt}\\): MongoDB refuses`));
    const snapAt = String.raw`databases\.0\.collections\.0\.validator\.jsonSchema…a`;
    expect(snap.message).toMatch(new RegExp(`${deeper} \\(at ${snapAt}\\)`));
    expect(spec.ms).toBeLessThan(1000);
    expect(snap.ms).toBeLessThan(1000);
  });

  it('through the real CLI: exit 2 with the message, no stack, no "This is a bug"', async () => {
    const runs = [
      { args: ['analyze', big], says: /reads snapshots up to 256 MiB/ },
      { args: ['lint', '--spec', deepSpec], says: /nests objects deeper than 128 levels/ },
      { args: ['lint', deepSnap], says: /nests objects deeper than 128 levels/ },
    ];
    for (const { args, says } of runs) {
      const t0 = Date.now();
      const r = await runProcess(process.execPath, [CLI, ...args], { timeoutMs: 60_000, cwd: dir });
      const shown = args.join(' ').replace(dir, '…');
      console.log(`[limits] cli ${shown}: exit ${String(r.code)} in ${Date.now() - t0} ms`);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(says);
      expect(r.err).not.toMatch(/This is a bug|Maximum call stack|^\s+at /m);
    }
  }, 120_000);

  it('the walk: iterative, stops at the limit, ends on loops and does not repeat shared objects', () => {
    expect(tooDeep(deepSchema(100_000))).toMatch(/^(properties\.a\.){63}properties\.a$/);
    expect(tooDeep(deepSchema(MAX_NESTING - 2))).toBeNull();
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(tooDeep(loop)).not.toBeNull();
    let shared: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 60; i++) shared = { x: shared, y: shared }; // 2^60 paths, 61 objects
    const t0 = performance.now();
    expect(tooDeep(shared)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('reading stops past the limit even when the size said otherwise (a pipe, a file that grows)', () => {
    const f = join(dir, 'small.json');
    writeFileSync(f, 'x'.repeat(2048));
    expect(() => readTextBounded(f, 1024)).toThrow(TooLarge);
    expect(readTextBounded(f, 4096)).toHaveLength(2048);
    expect(MAX_SPEC_BYTES).toBeLessThan(MAX_SNAPSHOT_BYTES);
  });
});
