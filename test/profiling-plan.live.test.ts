/**
 * Profiling is paid for by the rules that read it: the `_id` profile is id-pattern's collector (`id-pattern/ids`), so
 * a run with only array-growth enabled never computes it. Counted through the real collect path (check() against the
 * live server) with a counting wrapper around `profileIds`, the function that profiles the sampled `_id`s.
 */
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Snapshot } from '../src/core/types';
import { type LiveDb, useLiveDb } from './support/live-db';
import { recordingAdapter, type SentCommand } from './support/recording';

const calls = vi.hoisted(() => ({ profileIds: 0 }));

vi.mock('../rules/id-pattern/id-profile', async (importOriginal) => {
  const real = await importOriginal<typeof import('../rules/id-pattern/id-profile')>();
  return {
    ...real,
    profileIds: (ids: readonly unknown[]) => {
      calls.profileIds++;
      return real.profileIds(ids);
    },
  };
});

/**
 * The engine, imported after the mock: the live projects share one module registry per worker (vitest.config.ts),
 * so another file may have loaded the engine with the real profiler already; a fresh registry binds it to the mock.
 */
let engine: {
  check: typeof import('../src/index').check;
  rules: typeof import('../rules').rules;
  collectorsOf: typeof import('../src/core/collector').collectorsOf;
};
beforeAll(async () => {
  vi.resetModules();
  const index: typeof import('../src/index') = await import('../src/index.js');
  const registry: typeof import('../rules') = await import('../rules/index.js');
  const collector: typeof import('../src/core/collector') = await import('../src/core/collector.js');
  engine = { check: index.check, rules: registry.rules, collectorsOf: collector.collectorsOf };
});

const DB = 'mongo_advisor_test_profiling_plan';
const DOCS = 40;

/**
 * The snapshot of a `check --no-confirm` of `posts` with only the rules named enabled, sampled rather than read whole
 * (so the outlier pass has something to look for), and the commands it sent.
 */
async function snapshotWith(live: LiveDb, only: string[]): Promise<Snapshot & { sent: SentCommand[] }> {
  let taken: Snapshot | undefined;
  const adapter = recordingAdapter(live.adapter);
  const onSnapshot = (s: Snapshot): void => {
    taken = s;
  };
  await engine.check(adapter, {
    db: DB,
    collections: ['posts'],
    confirm: false,
    wholeMaxDocs: 0,
    sampleSize: 20,
    settings: { only },
    onSnapshot,
  });
  if (!taken) throw new Error('check handed back no snapshot');
  return { ...taken, sent: adapter.sent };
}

const collectorIds = (ids: readonly string[]): string[] =>
  engine.collectorsOf(engine.rules.filter((r) => ids.includes(r.id))).map((c) => c.id);

describe('profiling as collectors (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1 + i));
    const comments = (n: number) => Array.from({ length: n }, (_, k) => ({ k, at: at(k) }));
    await db
      .collection('posts')
      .insertMany(Array.from({ length: DOCS }, (_, i) => ({ i, createdAt: at(i), comments: comments(i) })));
  });
  afterEach(() => {
    calls.profileIds = 0;
  });

  it("with only array-growth: its collectors run, id-pattern's do not, the _id profile is never computed", async () => {
    const snapshot = await snapshotWith(live, ['array-growth']);
    expect(snapshot.collectors.map((c) => c.id)).toEqual(collectorIds(['array-growth']));
    expect(snapshot.collectors.map((c) => c.id)).not.toContain('id-pattern/ids');
    expect(calls.profileIds).toBe(0);
    const posts = snapshot.databases[0]?.collections.find((c) => c.name === 'posts');
    expect(posts?.sample.size).toBe(20);
    expect(Object.keys(posts?.data ?? {}).sort()).toEqual(collectorIds(['array-growth']).sort());
    expect(JSON.stringify(snapshot)).not.toContain('leadingByteEntropy');
  });

  it('with id-pattern: the _id profile is computed once per sampled collection, kept under its collector', async () => {
    const snapshot = await snapshotWith(live, ['id-pattern']);
    expect(snapshot.collectors.map((c) => c.id)).toContain('id-pattern/ids');
    expect(calls.profileIds).toBe(1);
    const posts = snapshot.databases[0]?.collections.find((c) => c.name === 'posts');
    const profile = posts?.data?.['id-pattern/ids'] as { types: Record<string, number> } | undefined;
    expect(profile?.types).toEqual({ objectId: 20 });
  });

  it(
    'the outlier pass (a whole-collection aggregate) is sent for document-size, never for ' + 'id-pattern alone',
    async (ctx) => {
      const caps = inject('capabilities');
      if (!caps.has.bsonSize || !caps.has.arraySize)
        ctx.skip('the server lacks $bsonSize or $size: the pass never runs there');
      const passes = (sent: readonly SentCommand[]): number =>
        sent.filter((c) => c.name === 'aggregate' && JSON.stringify(c.cmd.pipeline).includes('$facet')).length;
      const ids = await snapshotWith(live, ['id-pattern']);
      expect(passes(ids.sent)).toBe(0);
      expect(calls.profileIds).toBe(1);
      calls.profileIds = 0;
      const sized = await snapshotWith(live, ['document-size']);
      expect(passes(sized.sent)).toBe(1);
      expect(sized.collectors.map((c) => c.id)).toEqual(['outliers']);
      expect(calls.profileIds).toBe(0);
    },
  );
});
