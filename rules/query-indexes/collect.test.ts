import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter';
import type { DatabaseContext } from '../../src/core/collector';
import { makeRecord, opKindOf } from '../../src/workload/record';
import { collectionOf, sampleOf, snapshotOf, withData } from '../../test/support/fixtures';
import { snapshotProblems } from '../../test/support/rule-tester';
import { commandsOf, MAX_COMMANDS, queryWorkload, workloadData } from './collect';

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

  it('says so when the profiler holds nothing', async () => {
    const empty = { cursor: () => Promise.resolve({ docs: [], exhausted: true }) } as unknown as Adapter;
    const { ctx, notes } = context({ adapter: empty });
    const data = await queryWorkload.collect(ctx);
    expect(data).toEqual({ sources: [], records: 0, collections: [] });
    expect(notes.join('\n')).toContain('holds no operation to learn from');
  });
});
