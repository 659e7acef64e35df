import { describe, expect, it } from 'vitest';
import { whyNotReading } from '../../src/adapters/read-only';
import type { Adapter, CursorOptions, Doc } from '../../src/core/adapter';
import { APP_NAME, SCRATCH_PREFIX } from '../../src/core/names';
import {
  QUERY_STATS_LIMIT,
  queryStatsCommand,
  readQueryStats,
  recordOfQueryStats,
} from '../../src/workload/query-stats';
import { shapesOf } from '../../src/workload/shape';
import { flat, grouped } from '../fixtures/workload/query-stats';

describe('recordOfQueryStats', () => {
  it.each([
    ['grouped (newer)', grouped],
    ['flat (8.0)', flat],
  ])('reads %s metrics as per-execution means', (_, e) => {
    const rec = recordOfQueryStats(e);
    expect(rec).toMatchObject({
      source: 'queryStats',
      ns: { db: 'shop', coll: 'orders' },
      op: 'find',
      appName: 'orders-api',
      execCount: 4,
      durationMillis: 150,
      keysExamined: 5000,
      docsExamined: 5000,
      nreturned: 20,
      hasSortStage: true,
      usedDisk: false,
      shapeOnly: true,
      queryShapeHash: grouped.queryShapeHash,
    });
    if (typeof rec === 'string') throw new Error(rec);
    expect(rec.command).toMatchObject({ find: 'orders', sort: { createdAt: -1 } });
    expect(rec.command).not.toHaveProperty('cmdNs');
  });

  it('leaves out the advisor own shapes and entries without a shape', () => {
    const own = { ...grouped, key: { ...grouped.key, client: { application: { name: 'mongo-advisor' } } } };
    expect(recordOfQueryStats(own)).toBe('own');
    expect(recordOfQueryStats({ key: {}, metrics: {} })).toBe('malformed');
  });
});

/** An adapter whose cursor answers with `docs` (or throws `err`), recording what was sent. */
function stub(answer: { docs?: Doc[]; err?: Error }) {
  const sent: { db: string; cmd: Doc; opts: CursorOptions | undefined }[] = [];
  const adapter = {
    kind: 'driver',
    source: 'stub',
    bson: {} as Adapter['bson'],
    roundTrips: 0,
    command: () => Promise.reject(new Error('the reader uses the cursor')),
    close: () => Promise.resolve(),
    cursor(db: string, cmd: Doc, opts?: CursorOptions) {
      sent.push({ db, cmd, opts });
      if (answer.err !== undefined) return Promise.reject(answer.err);
      const docs = answer.docs ?? [];
      const limit = opts?.limit ?? Infinity;
      return Promise.resolve({ docs: docs.slice(0, limit), exhausted: docs.length <= limit });
    },
  } satisfies Adapter;
  return { adapter, sent };
}

const withKey = (key: Record<string, unknown>) => ({ ...grouped, key: { ...grouped.key, ...key } });
const onDb = (db: string) => withKey({ queryShape: { ...grouped.key.queryShape, cmdNs: { db, coll: 'orders' } } });
/** MongoDB's refusals as the driver surfaces them: code, codeName, the server's message. */
const serverError = (code: number, codeName: string, message: string) =>
  Object.assign(new Error(message), { code, codeName });

describe('queryStatsCommand', () => {
  it('reads untransformed, this database only, not the advisor, costliest first, one past the limit', () => {
    const cmd = queryStatsCommand({ db: 'shop', maxTimeMS: 5000, limit: 200 });
    expect(cmd).toMatchObject({ aggregate: 1, maxTimeMS: 5000 });
    const pipeline = cmd.pipeline as Doc[];
    expect(pipeline[0]).toEqual({ $queryStats: {} });
    expect(pipeline[1]).toEqual({
      $match: { 'key.queryShape.cmdNs.db': 'shop', 'key.client.application.name': { $ne: APP_NAME } },
    });
    expect(pipeline).toContainEqual({ $limit: 201 });
    expect(pipeline.at(-1)).toEqual({ $limit: 201 });
  });

  it('passes the read-only gate', () => {
    expect(whyNotReading(queryStatsCommand({ db: 'shop', maxTimeMS: 1 }))).toBeNull();
  });
});

describe('readQueryStats', () => {
  it("sends one aggregate on admin, on the primary; gives the database's records and a no-replay note", async () => {
    const other = onDb('billing');
    const own = withKey({ client: { application: { name: APP_NAME } } });
    const { adapter, sent } = stub({ docs: [grouped, flat, other, own, { key: {}, metrics: {} }] });
    const read = await readQueryStats(adapter, { db: 'shop', maxTimeMS: 5000 });
    if ('reason' in read) throw new Error(read.reason);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ db: 'admin', opts: { readPreference: 'primary', limit: QUERY_STATS_LIMIT + 1 } });
    expect(read.records).toHaveLength(2);
    expect(read.records.every((r) => r.source === 'queryStats' && r.shapeOnly && r.ns.db === 'shop')).toBe(true);
    expect(read).toMatchObject({ entries: 5, malformed: 1, own: 1, truncated: false });
    expect(read.notes).toContainEqual(expect.stringMatching(/no command a scratch proof could replay/));
    expect(read.notes).toContainEqual(expect.stringMatching(/^1 \$queryStats entries of shop have no query shape/));
  });

  it('reads the shapes behind the placeholders: the same shape id as a real command of that shape', async () => {
    const { adapter } = stub({ docs: [grouped] });
    const read = await readQueryStats(adapter, { db: 'shop', maxTimeMS: 5000 });
    if ('reason' in read) throw new Error(read.reason);
    const [rec] = read.records;
    if (!rec) throw new Error('no record');
    const [fromStats] = shapesOf(rec.command, 'shop', { placeholders: true });
    const real = {
      find: 'orders',
      filter: { status: 'paid', createdAt: { $gte: new Date() } },
      sort: { createdAt: -1 },
    };
    const [fromReal] = shapesOf({ ...real, limit: 20 }, 'shop');
    expect(fromStats?.id).toBe(fromReal?.id);
  });

  it('says when the limit cut the list, and when the server holds nothing for the database', async () => {
    const cut = await readQueryStats(stub({ docs: [grouped, flat, grouped] }).adapter, {
      db: 'shop',
      maxTimeMS: 1,
      limit: 2,
    });
    if ('reason' in cut) throw new Error(cut.reason);
    expect(cut).toMatchObject({ entries: 2, truncated: true });
    expect(cut.records).toHaveLength(2);
    expect(cut.notes).toContainEqual(expect.stringMatching(/more than 2 query shapes of shop: the 2 with the most/));
    const none = await readQueryStats(stub({ docs: [] }).adapter, { db: 'shop', maxTimeMS: 1 });
    if ('reason' in none) throw new Error(none.reason);
    expect(none.records).toEqual([]);
    expect(none.notes).toEqual([expect.stringMatching(/^\$queryStats holds no query of shop: /)]);
  });

  it('never reads a scratch database', async () => {
    const { adapter, sent } = stub({ docs: [grouped] });
    const read = await readQueryStats(adapter, { db: `${SCRATCH_PREFIX}x`, maxTimeMS: 1 });
    if (!('reason' in read)) throw new Error('a scratch database was read');
    expect(read.reason).toMatch(/scratch database/);
    expect(sent).toHaveLength(0);
  });

  it.each([
    // Before 7.1, and SecantusDB 0.7.0b3 (which reports 8.2.11): the stage is unknown.
    [
      serverError(40324, 'Location40324', "Unrecognized pipeline stage name: '$queryStats'"),
      /^this server does not recognize the \$queryStats stage \(Location40324 \(40324\): .*\); MongoDB has it/,
    ],
    // document_source_query_stats.cpp, with the feature off.
    [
      serverError(
        224,
        'QueryFeatureNotAllowed',
        '$queryStats is not allowed in the current configuration. You may need to enable the correponding feature flag',
      ),
      /^\$queryStats is not enabled on this server \(QueryFeatureNotAllowed \(224\): .*\); MongoDB enables it on Atlas/,
    ],
    [
      serverError(13, 'Unauthorized', 'not authorized on admin to execute command { aggregate: 1 }'),
      /^the user may not read \$queryStats \(Unauthorized \(13\): .*\): it needs the queryStatsRead and queryStats/,
    ],
    // FerretDB 1.24's reply to {aggregate: 1}, as the live test reads it.
    [
      serverError(
        9,
        'FailedToParse',
        "Invalid command format: the 'aggregate' field must specify a collection name or 1",
      ),
      /^this server refuses \{aggregate: 1\}, the database-wide aggregate \$queryStats needs \(FailedToParse/,
    ],
    [serverError(238, 'NotImplemented', 'not implemented'), /^this server does not implement \$queryStats \(/],
    [serverError(50, 'MaxTimeMSExpired', 'operation exceeded time limit'), /^\$queryStats could not be read \(Max/],
  ])('turns a refusal into one sentence: %s', async (err, expected) => {
    const read = await readQueryStats(stub({ err }).adapter, { db: 'shop', maxTimeMS: 1 });
    if (!('reason' in read)) throw new Error('read');
    expect(read.reason).toMatch(expected);
    expect(read.reason).not.toMatch(/\n|\bat .+:\d+:\d+/);
    expect(read.reason).toMatch(/\.$/);
  });
});
