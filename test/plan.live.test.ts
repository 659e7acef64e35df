/**
 * The collection plan: check() runs only the collectors the enabled rules need, and the snapshot says which ran.
 * Commands are counted on the wire's side of the advisor (every command its adapter sends). The five-database figure
 * of the issue is bench/round-trips.ts (a server of its own: this one is shared with the other test files).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { check } from '../src/index';
import { rules } from '../rules';
import { analyze } from '../src/core/runner';
import { collectDeployment } from '../src/cli/deployment';
import { collectorsOf } from '../src/core/collector';
import type { Snapshot } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { recordingAdapter } from './support/recording';

const DB = 'mongo_advisor_test_plan';

describe('collect plan (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('posts').insertMany(Array.from({ length: 50 }, (_, i) => ({ i, tags: ['a', 'b'] })));
    await db.collection('posts').createIndex({ i: 1 });
    await db.client
      .db(`${DB}_other`)
      .collection('notes')
      .insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
  });
  afterAll(async () => {
    await live.client?.db(`${DB}_other`).dropDatabase();
  });

  it(
    'with only array-growth: at most 10 commands (the privilege probe among them), and none of the parts ' +
      'other rules need',
    async () => {
      const a = recordingAdapter(live.adapter);
      const r = await check(a, {
        db: DB,
        collections: ['posts'],
        confirm: false,
        settings: { only: ['array-growth'] },
      });
      console.log(`[plan live] only array-growth: ${a.sent.length} commands: ${a.sent.map((c) => c.label).join(', ')}`);
      expect(a.sent.length).toBeLessThanOrEqual(10);
      expect(a.sent.filter((c) => c.label === 'connectionStatus')).toHaveLength(1);
      const labels = a.sent.map((c) => c.label);
      for (const absent of [
        'serverStatus',
        'aggregate $indexStats',
        'listDatabases',
        'replSetGetConfig',
        'explain',
        'killCursors',
        'getMore',
      ])
        expect(labels).not.toContain(absent);
      expect(r.notes.map((n) => n.message).join('\n')).not.toMatch(/not collected/);
    },
  );

  it('with every rule: every collector runs once, and the snapshot says so with versions', async () => {
    const a = recordingAdapter(live.adapter);
    let ranIds: readonly string[] | undefined;
    let topology: string | undefined;
    await check(a, {
      db: DB,
      collections: ['posts'],
      confirm: false,
      onSnapshot: (s) => {
        ranIds = s.collectors.map((c) => `${c.id}@${c.version}`);
        topology = s.server.topology;
      },
    });
    console.log(`[plan live] every rule: ${a.sent.length} commands: ${a.sent.map((c) => c.label).join(', ')}`);
    expect(ranIds).toEqual(collectorsOf(rules).map((c) => `${c.id}@${c.version}`));
    const labels = a.sent.map((c) => c.label);
    expect(labels.filter((l) => l === 'listDatabases').length).toBe(1);
    // The members are listed once on a replica set (SecantusDB's hello names one), never on a standalone.
    const hello = await live.adapter.command('admin', { hello: 1 });
    expect(topology).toBe(typeof hello.setName === 'string' ? 'replicaSet' : 'standalone');
    expect(labels.filter((l) => l === 'replSetGetConfig').length).toBe(topology === 'replicaSet' ? 1 : 0);
    expect(labels).not.toContain('killCursors');
  });

  it(
    'several databases in one run: the server probed once, deployment-wide collectors once, each ' + 'note once',
    async () => {
      const one = recordingAdapter(live.adapter);
      const first = await collectDeployment(one, { dbs: [DB], collectors: collectorsOf(rules) });
      const two = recordingAdapter(live.adapter);
      const both = await collectDeployment(two, { dbs: [DB, `${DB}_other`], collectors: collectorsOf(rules) });
      const count = (sent: { label: string }[], label: string): number => sent.filter((c) => c.label === label).length;
      for (const label of ['buildInfo', 'listDatabases'])
        expect(count(two.sent, label), label).toBe(count(one.sent, label));
      expect(both.databases.map((d) => d.name)).toEqual([DB, `${DB}_other`]);
      const messages = both.notes.map((n) => n.message);
      expect(messages.length, messages.join('\n')).toBe(new Set(messages).size);
      expect(first.collectors.map((c) => c.id)).toEqual(both.collectors.map((c) => c.id));
    },
  );

  it('a rule whose data the snapshot lacks says so, never passes silently', async () => {
    let snap: Snapshot | undefined;
    await check(live.adapter, {
      db: DB,
      confirm: false,
      settings: { only: ['mixed-types'] },
      onSnapshot: (s) => (snap = s),
    });
    expect(snap?.collectors).toEqual([]);
    if (!snap) throw new Error('no snapshot');
    const out = analyze(snap, {}, rules);
    const missing = out.notes.filter((n) => /not collected/.test(n.message)).map((n) => n.ruleId);
    expect(missing.sort()).toEqual(
      rules
        .filter((r) => (r.needs ?? []).length > 0)
        .map((r) => r.id)
        .sort(),
    );
  });
});
