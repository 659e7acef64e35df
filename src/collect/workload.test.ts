import { describe, expect, it } from 'vitest';
import type { Adapter } from '../core/adapter';
import type { DatabaseContext } from '../core/collector';
import { makeRecord, opKindOf } from '../workload/record';
import { collectionOf, sampleOf, snapshotOf, withData } from '../../test/support/fixtures';
import { snapshotProblems } from '../../test/support/rule-tester';
import { grouped } from '../../test/fixtures/workload/query-stats';
import { commandsOf, MAX_COMMANDS, profilerCompleteness, queryWorkload, workloadData } from './workload';

const MARKER = 'ZZMARKER_QI_5c1e';
const MARKER_NUMBER = 8_675_309;

const record = (command: Record<string, unknown>, db = 'app') =>
  makeRecord(
    { source: 'log', ns: { db, coll: String(Object.values(command)[0]) }, op: opKindOf(command), durationMillis: 7 },
    command,
  );

/** orders, whose `bySku` the sample found to be a map (its keys are SKUs). */
const orders = collectionOf('orders', {
  sample: sampleOf([], {
    dynamicKeys: [
      { path: 'bySku', distinctKeys: 40, medianKeys: 2, keyShapes: { code: 40 }, reason: 'data-shaped' },
    ] as never,
  }),
});

function context(over: Partial<DatabaseContext>): { ctx: DatabaseContext; notes: string[] } {
  const notes: string[] = [];
  const ctx = {
    db: 'app',
    collections: [orders],
    listed: [],
    adapter: {} as Adapter,
    server: snapshotOf([]).server,
    maxTimeMS: 1000,
    serverStatus: null,
    run: new Map(),
    note: (m: string) => void notes.push(m),
    ...over,
  };
  return { ctx, notes };
}

describe('the query-indexes workload collector', () => {
  it("folds a map's keys: two SKUs are one shape, and no SKU is written", () => {
    const commands = ['SKU-00042', 'SKU-00077'].map((sku) => ({
      find: 'orders',
      filter: { [`bySku.${sku}`]: { $gt: MARKER_NUMBER }, status: MARKER },
    }));
    const data = workloadData(
      commands.map((c) => record(c)),
      'app',
      [orders],
      () => undefined,
    );
    const shapes = data.collections[0]?.shapes ?? [];
    expect(shapes).toHaveLength(1);
    expect(shapes[0]?.calls).toBe(2);
    expect(shapes[0]?.printed).toBe('db.orders.find({ "bySku.<key>": { $gt: ?number }, status: ?string })');
    const json = JSON.stringify(data);
    for (const planted of ['SKU-00042', 'SKU-00077', MARKER, String(MARKER_NUMBER)])
      expect(json).not.toContain(planted);
  });

  it('keeps up to five real commands per shape, non-enumerable: JSON holds no planted value', () => {
    const commands = Array.from({ length: 7 }, (_, i) => ({ find: 'orders', filter: { status: `${MARKER}-${i}` } }));
    const data = workloadData(
      commands.map((c) => record(c)),
      'app',
      [orders],
      () => undefined,
    );
    const shape = data.collections[0]?.shapes[0];
    if (!shape) throw new Error('no shape');
    expect(commandsOf(shape)).toHaveLength(MAX_COMMANDS);
    expect(commandsOf(shape)[0]).toEqual(commands[0]);
    expect(Object.keys(shape)).not.toContain('commands');
    expect(JSON.stringify(data)).not.toContain(MARKER);
    // The data is what the snapshot file's schema accepts.
    const plain = collectionOf('orders');
    const db = withData({ name: 'app', collections: [plain] }, queryWorkload, data);
    expect(snapshotProblems(snapshotOf([plain], { databases: [db] }), [queryWorkload])).toEqual([]);
  });

  it('reads the given workload for its database only, and leaves out collections the run did not check', async () => {
    const given = [
      record({ find: 'orders', filter: { status: 'x' } }),
      record({ find: 'orders', filter: { status: 'x' } }, 'other'),
      record({ find: 'archive', filter: { status: 'x' } }),
    ];
    const { ctx, notes } = context({ workload: { from: 'the log mongod.log', records: given } });
    const data = await queryWorkload.collect(ctx);
    expect(data?.records).toBe(2);
    expect(data?.sources).toEqual(['log']);
    expect(data?.collections.map((c) => c.name)).toEqual(['orders']);
    expect(notes).toEqual([
      'query-indexes: 1 query shape(s) of app name collections this run did not check: not judged.',
    ]);
  });

  it('says how to get entries when the profiler cannot be read', async () => {
    const refusing = {
      cursor: () => Promise.reject(Object.assign(new Error('no such command'), { code: 59 })),
      command: () => Promise.reject(new Error('unused')),
    } as unknown as Adapter;
    const { ctx, notes } = context({ adapter: refusing });
    expect(await queryWorkload.collect(ctx)).toBeNull();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('db.setProfilingLevel(1, { slowms: 100 })');
    expect(notes[0]).toContain('--log <file>');
  });

  it('reads $queryStats (8.0) when the profiler holds nothing: shapes only, said to be incomplete', async () => {
    const sent: string[] = [];
    const adapter = {
      cursor: (db: string, cmd: Record<string, unknown>) => {
        sent.push(`${db} ${Object.keys(cmd)[0]}`);
        return Promise.resolve({ docs: db === 'admin' ? [grouped] : [], exhausted: true });
      },
    } as unknown as Adapter;
    const server = { ...snapshotOf([]).server, version: '8.0.4', versionArray: [8, 0, 4, 0] };
    const shop = collectionOf('orders', { db: 'shop' });
    const { ctx, notes } = context({ adapter, server, db: 'shop', collections: [shop] });
    const data = await queryWorkload.collect(ctx);
    expect(sent).toEqual(['shop aggregate', 'admin aggregate']);
    expect(data?.sources).toEqual(['queryStats']);
    expect(data?.complete).toBe(false);
    expect(data?.completeness).toContain('rate limit');
    const shape = data?.collections.find((c) => c.name === 'orders')?.shapes[0];
    expect(shape?.printed).toContain('status');
    expect(shape ? commandsOf(shape) : ['missing']).toEqual([]);
    expect(notes.join('\n')).toContain('no command');
    // A 7.0 server is not asked: the stage exists from 7.1.
    sent.length = 0;
    await queryWorkload.collect(context({ adapter, db: 'shop', collections: [shop] }).ctx);
    expect(sent).toEqual(['shop aggregate']);
  });

  it('says so when the profiler holds nothing', async () => {
    const empty = { cursor: () => Promise.resolve({ docs: [], exhausted: true }) } as unknown as Adapter;
    const { ctx, notes } = context({ adapter: empty });
    const data = await queryWorkload.collect(ctx);
    expect(data).toMatchObject({ sources: [], records: 0, complete: false, collections: [] });
    expect(notes.join('\n')).toContain('holds no operation to learn from');
  });

  it('a given log is slow operations only, unless the user vouches for it with --workload-complete', async () => {
    const given = [record({ find: 'orders', filter: { status: 'x' } })];
    const slow = await queryWorkload.collect(context({ workload: { from: 'the log a', records: given } }).ctx);
    expect(slow?.complete).toBe(false);
    expect(slow?.completeness).toContain('--workload-complete');
    const all = context({ workload: { from: 'the log a', records: given, complete: true } });
    const vouched = await queryWorkload.collect(all.ctx);
    expect(vouched?.complete).toBe(true);
    expect(vouched?.completeness).toContain('--workload-complete');
  });

  it('reads the profiler level with { profile: -1 } only when the profiler held entries', async () => {
    const sent: unknown[] = [];
    const entry = { op: 'query', ns: 'app.orders', command: { find: 'orders', filter: { status: 'x' } }, millis: 1 };
    const profiler = (was: number) =>
      ({
        cursor: () => Promise.resolve({ docs: [entry], exhausted: true }),
        command: (_db: string, cmd: unknown) => {
          sent.push(cmd);
          return Promise.resolve({ was, slowms: 100, sampleRate: 1, ok: 1 });
        },
      }) as unknown as Adapter;
    const full = await queryWorkload.collect(context({ adapter: profiler(2) }).ctx);
    expect(sent).toEqual([{ profile: -1 }]);
    sent.length = 0;
    expect(full).toMatchObject({ complete: true, records: 1 });
    const slow = await queryWorkload.collect(context({ adapter: profiler(1) }).ctx);
    expect(slow).toMatchObject({ complete: false, completeness: 'level 1 records only operations slower than 100 ms' });
  });
});

describe("the profiler's settings: does system.profile hold every operation?", () => {
  it.each([
    [{ was: 2, slowms: 100, sampleRate: 1 }, true, 'level 2'],
    [{ was: 2, slowms: 100 }, true, 'level 2'],
    [{ was: 1, slowms: -1, sampleRate: 1 }, true, 'slowms -1'],
    [{ was: 1, slowms: 100, sampleRate: 1 }, false, 'slower than 100 ms'],
    [{ was: 2, slowms: 100, sampleRate: 0.5 }, false, 'sampleRate 0.5'],
    [{ was: 2, slowms: 100, sampleRate: 1, filter: { millis: { $gt: 5 } } }, false, 'a filter'],
    [{ was: 0, slowms: 100, sampleRate: 1 }, false, 'off now (level 0)'],
    [{ ok: 1 }, false, 'did not say its level'],
  ])('%j: complete %s (%s)', (reply, complete, says) => {
    const c = profilerCompleteness(reply);
    expect(c.complete).toBe(complete);
    expect(c.completeness).toContain(says);
  });
});
