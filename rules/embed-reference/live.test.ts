import { Readable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import { readSlowQueryLog } from '../../src/workload/log-reader';
import { check } from '../../src/check';
import type { Finding } from '../../src/core/types';
import { useLiveDb } from '../../test/support/live-db';
import {
  type EmbedSeed,
  embedLogLines,
  embedOperations,
  embedRecords,
  POST_COMMENTS,
  seedEmbedPairs,
} from '../../test/support/embed-workload';
import rule from './index';

const DB = 'mongo_advisor_test_embed_reference';

// One server is enough: the subject is the decision on a workload, not a difference between servers. It runs where
// $sample exists (SecantusDB, mongod), the collector's own path; the first-parents path is the same $group.
const caps = inject('capabilities');
const why = 'embed-reference runs its live test once, on a server with $sample (SecantusDB or mongod)';
if (!caps.has.sample) console.log(`[embed-reference live] skipped: ${why}`);

const ours = (findings: readonly Finding[]) => findings.filter((f) => f.ruleId === 'embed-reference');

describe.skipIf(!caps.has.sample)('embed-reference on three pairs (live, default budgets)', () => {
  let seed: EmbedSeed;
  const live = useLiveDb(DB, async (db) => void (seed = await seedEmbedPairs(db)));

  it('embeds the items (proven), keeps comments referenced with figures, proposes nothing for the audit', async () => {
    const t0 = performance.now();
    const records = embedRecords(DB, embedOperations(DB, seed));
    let snapshotText = '';
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: true,
      workload: { from: 'the test workload', records },
      onSnapshot: (s) => void (snapshotText = JSON.stringify(s)),
    });
    const found = ours(result.findings);
    for (const f of found)
      console.log(`[embed-reference live] ${f.message}\n  → ${f.confirmation?.summary ?? '(no proof)'}`);
    expect(found.map((f) => `${f.target.collection}:${String(f.evidence.decision)}`).sort()).toEqual([
      'orders:embed',
      'posts:keepReferenced',
    ]);

    // (a) orders: 1-5 items, bounded, embed proven on scratch
    const orders = found.find((f) => f.target.collection === 'orders') as Finding;
    expect(orders.messageId).toBe('embedLookup');
    expect(orders.evidence).toMatchObject({ basis: 'lookup', childrenMax: 5, joinCalls: 120, childInserts: 8 });
    // items come with their order and none since: no growth, the embedded order stays small
    expect(orders.evidence.projectedChildren).toBe(5);
    expect(Number(orders.evidence.embeddedBytes)).toBeGreaterThan(0);
    expect(Number(orders.evidence.embeddedBytes)).toBeLessThan(2_000);
    expect(orders.recommendation?.action).toBe('embed');
    const merge = orders.recommendation?.commands?.find((c) => c.includes('$merge')) ?? '';
    expect(merge).toContain(`db.getSiblingDB("${DB}").getCollection("orders").aggregate(`);
    expect(merge).toContain(`into: { db: "${DB}", coll: "orders_embedded" }`);
    const k = orders.confirmation;
    expect(k?.status).toBe('supported');
    expect(k?.summary).toMatch(/every parent read the same children both ways/);
    expect(k?.summary).toMatch(/Reads: the embedded find took/);
    expect(k?.summary).toMatch(/The workload's mix \(\d+ reads, 1 insert, 1 update per run/);

    // (b) posts: up to 5,000 comments growing daily: reference, no embed advice, the figures in the message
    const posts = found.find((f) => f.target.collection === 'posts') as Finding;
    expect(posts.messageId).toBe('keepChildrenLookup');
    expect(posts.evidence.childrenMax).toBe(Math.max(...POST_COMMENTS));
    expect(Number(posts.evidence.projectedChildren)).toBeGreaterThan(Math.max(...POST_COMMENTS));
    expect(posts.evidence).toMatchObject({ childInserts: 300, childUpdates: 30, joinCalls: 12 });
    expect(posts.recommendation?.action).toBe('keep referenced');
    expect(posts.recommendation?.commands ?? []).toEqual([]); // comments.postId is indexed
    expect(posts.confirmation).toBeUndefined();
    expect(JSON.stringify(posts)).not.toContain('$merge');

    // (c) users and audit_events: read by _id alone, no pair
    expect(found.filter((f) => ['users', 'audit_events'].includes(f.target.collection ?? ''))).toEqual([]);

    // no value of the workload or the data anywhere
    const text = JSON.stringify(result) + snapshotText;
    for (const v of [seed.orders[0], seed.comments[0], seed.users[0]]) expect(text).not.toContain(String(v));
    expect(text).not.toContain('sku-');
    console.log(`[embed-reference live] wall ${Math.round(performance.now() - t0)} ms`);
  });

  it('gives the same decisions from the mongod JSON log of the same workload (no proof: same evidence)', async () => {
    const t0 = performance.now();
    const lines = embedLogLines(DB, embedOperations(DB, seed));
    const { records } = await readSlowQueryLog(Readable.from([lines.join('\n') + '\n']));
    expect(records.length).toBe(lines.length);
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: false,
      workload: { from: 'the log', records },
    });
    const decisions = ours(result.findings).map((f) => `${f.target.collection}:${f.messageId}`);
    expect(decisions.sort()).toEqual(['orders:embedLookup', 'posts:keepChildrenLookup']);
    console.log(`[embed-reference live] from the log: wall ${Math.round(performance.now() - t0)} ms`);
  });

  // last: the replay adds order items
  it('reads the same counts from system.profile, inserts included', async (ctx) => {
    if (!caps.has.profiler) ctx.skip('the server has no profiler (system.profile)');
    const t0 = performance.now();
    const ops = embedOperations(DB, seed).filter((o) => ['orders', 'order_items', 'users'].includes(o.coll));
    // The test turns the profiler on and back off; the advisor never changes the level.
    await live.db
      .collection('system.profile')
      .drop()
      .catch(() => undefined);
    await live.db.command({ profile: 2 });
    try {
      for (const { command } of ops) {
        const { $db: _db, ...rest } = command;
        await live.db.command(rest);
      }
    } finally {
      await live.db.command({ profile: 0 });
    }
    const result = await check(live.adapter, { rules: [rule], db: DB, confirm: false });
    const found = ours(result.findings);
    expect(found.map((f) => `${f.target.collection}:${f.messageId}`)).toEqual(['orders:embedLookup']);
    expect(found[0]?.evidence).toMatchObject({ joinCalls: 120, childInserts: 8, childUpdatesById: 2 });
    console.log(`[embed-reference live] from the profiler: wall ${Math.round(performance.now() - t0)} ms`);
  });
});
