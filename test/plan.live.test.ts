/**
 * The collection plan: check() collects only what the enabled rules read, and the snapshot says which parts ran.
 * Commands are counted on the wire's side of the advisor (every command its adapter sends).
 */
import { describe, expect, it } from 'vitest';
import { check } from '../src/index';
import { rules } from '../rules';
import { analyze } from '../src/core/runner';
import { COLLECT_PARTS, type Snapshot } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { recordingAdapter } from './support/recording';

const DB = 'mongo_advisor_test_plan';

describe('collect plan (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('posts').insertMany(Array.from({ length: 50 }, (_, i) => ({ i, tags: ['a', 'b'] })));
    await db.collection('posts').createIndex({ i: 1 });
  });

  it('with only array-growth: at most 9 commands, and none of the parts other rules need', async () => {
    const a = recordingAdapter(live.adapter);
    const r = await check(a, { db: DB, collections: ['posts'], confirm: false, settings: { only: ['array-growth'] } });
    console.log(`[plan live] only array-growth: ${a.sent.length} commands: ${a.sent.map((c) => c.label).join(', ')}`);
    expect(a.sent.length).toBeLessThanOrEqual(9);
    const labels = a.sent.map((c) => c.label);
    for (const absent of ['serverStatus', 'aggregate $indexStats', 'listDatabases', 'replSetGetConfig', 'explain', 'killCursors', 'getMore']) expect(labels).not.toContain(absent);
    expect(r.notes.map((n) => n.message).join('\n')).not.toMatch(/not collected/);
  });

  it('with every rule: every part runs, and the snapshot says so', async () => {
    const a = recordingAdapter(live.adapter);
    let collected: readonly string[] | undefined;
    await check(a, { db: DB, collections: ['posts'], confirm: false, onSnapshot: (s) => (collected = s.collected) });
    console.log(`[plan live] every rule: ${a.sent.length} commands`);
    expect(collected).toEqual([...COLLECT_PARTS]);
    expect(a.sent.map((c) => c.label)).toContain('listDatabases');
  });

  it('a rule whose data the snapshot lacks says so, never passes silently', async () => {
    let snap: Snapshot | undefined;
    await check(live.adapter, { db: DB, confirm: false, settings: { only: ['array-growth'] }, onSnapshot: (s) => (snap = s) });
    expect(snap?.collected).toEqual([]);
    if (!snap) throw new Error('no snapshot');
    const out = analyze(snap, {}, rules);
    const missing = out.notes.filter((n) => /not collected/.test(n.message)).map((n) => n.message.split(':')[0]);
    expect(missing.sort()).toEqual(rules.filter((r) => (r.needs ?? []).length > 0).map((r) => r.id).sort());
  });
});
