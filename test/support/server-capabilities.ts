/**
 * What a test server can do, proven by asking it (never by its name or version): printed at the start of every test
 * run and handed to tests through `inject('capabilities')`, so a capability-gated test runs wherever the capability
 * exists and says why it is skipped elsewhere.
 */
import { type Db, MongoClient } from 'mongodb';
import { describeServerError } from '../../src/adapters/types';

export interface ServerCapabilities {
  /** e.g. "MongoDB 8.2.11, replicaSet" or "FerretDB 7.0.42 (ferretdb v1.24.0), standalone". */
  server: string;
  has: Record<CapabilityKey, boolean>;
  /** Why each missing capability is missing (the server's answer). */
  why: Partial<Record<CapabilityKey, string>>;
}

export const CAPABILITY_LABELS = {
  sample: '$sample',
  bsonSize: '$bsonSize',
  arraySize: '$size',
  validators: 'validators (kept, reject code 121)',
  collMod: 'collMod',
  clustered: 'clustered collections (kept)',
  explainStages: 'explain names stages',
  indexStats: '$indexStats',
  indexStatsCounts: '$indexStats counters move',
  storageSizes: '$collStats storage sizes',
  creationString: 'WiredTiger creationString',
  wiredTigerStatus: 'serverStatus.wiredTiger',
  profiler: 'system.profile',
  replicaSet: 'replica set',
  failpoints: 'configureFailPoint (test commands)',
} as const;
export type CapabilityKey = keyof typeof CAPABILITY_LABELS;

const DB = 'mongo_advisor_test_capabilities';

export async function probeTestServer(uri: string): Promise<ServerCapabilities> {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 15_000 });
  const has = {} as Record<CapabilityKey, boolean>;
  const why: Partial<Record<CapabilityKey, string>> = {};
  const check = async (key: CapabilityKey, fn: () => Promise<string | true>): Promise<void> => {
    try {
      const r = await fn();
      has[key] = r === true;
      if (r !== true) why[key] = r;
    } catch (err) {
      has[key] = false;
      why[key] = describeServerError(err);
    }
  };
  try {
    const admin = client.db('admin');
    const build = await admin.command({ buildInfo: 1 });
    const hello = await admin.command({ hello: 1 });
    const topology =
      hello.msg === 'isdbgrid' ? 'sharded' : typeof hello.setName === 'string' ? 'replicaSet' : 'standalone';
    const ferret = typeof build.ferretdbVersion === 'string' ? ` (ferretdb ${build.ferretdbVersion})` : '';
    const server = `${ferret ? 'FerretDB' : 'MongoDB'} ${String(build.version)}${ferret}, ${topology}`;
    has.replicaSet = topology === 'replicaSet';
    if (!has.replicaSet) why.replicaSet = topology;

    const db: Db = client.db(DB);
    await db.dropDatabase();
    const docs = db.collection('docs');
    await docs.insertMany(Array.from({ length: 50 }, (_, i) => ({ i, tags: ['a', 'b'], pad: 'x'.repeat(200) })));
    await docs.createIndex({ i: 1 });
    const agg = async (pipeline: object[]): Promise<unknown[]> => await docs.aggregate(pipeline).toArray();

    await check('sample', async () =>
      (await agg([{ $sample: { size: 2 } }])).length === 2 ? true : 'returned no documents',
    );
    await check('bsonSize', async () =>
      typeof (
        (await agg([{ $limit: 1 }, { $project: { s: { $bsonSize: '$$ROOT' } } }]))[0] as { s?: unknown } | undefined
      )?.s === 'number'
        ? true
        : 'no number',
    );
    await check('arraySize', async () =>
      ((await agg([{ $limit: 1 }, { $project: { n: { $size: '$tags' } } }]))[0] as { n?: unknown } | undefined)?.n === 2
        ? true
        : 'wrong length',
    );
    await check('validators', async () => {
      await db.createCollection('validated', { validator: { $jsonSchema: { required: ['a'] } } });
      const [info] = await db.listCollections({ name: 'validated' }).toArray();
      if ((info as { options?: { validator?: unknown } } | undefined)?.options?.validator === undefined)
        return 'accepted, but listCollections shows no validator';
      try {
        await db.collection('validated').insertOne({ b: 1 });
        return 'kept, but an invalid insert was accepted';
      } catch (err) {
        return (err as { code?: unknown }).code === 121
          ? true
          : `rejected with ${describeServerError(err)}, not code 121`;
      }
    });
    await check('collMod', async () => {
      await db.command({ collMod: 'docs', validationLevel: 'moderate' });
      return true;
    });
    await check('clustered', async () => {
      await db.createCollection('clustered', { clusteredIndex: { key: { _id: 1 }, unique: true } });
      const [info] = await db.listCollections({ name: 'clustered' }).toArray();
      return (info as { options?: { clusteredIndex?: unknown } } | undefined)?.options?.clusteredIndex !== undefined
        ? true
        : 'accepted, but listCollections shows no clusteredIndex';
    });
    await check('explainStages', async () => {
      const e = JSON.stringify(await docs.find({ i: 3 }).explain('queryPlanner'));
      return /"stage":"(IXSCAN|FETCH)"/.test(e) && e.includes('"indexName":"i_1"')
        ? true
        : 'the plan names no IXSCAN on i_1';
    });
    let stats: { accesses?: { ops?: unknown; since?: unknown }; name?: string }[] = [];
    await check('indexStats', async () => {
      stats = (await agg([{ $indexStats: {} }])) as typeof stats;
      return stats.length > 0 ? true : 'no rows';
    });
    await check('indexStatsCounts', async () => {
      if (!has.indexStats) return 'no $indexStats';
      await docs.find({ i: 7 }).toArray();
      const after = (await agg([{ $indexStats: {} }])) as typeof stats;
      const ops = Number(after.find((s) => s.name === 'i_1')?.accesses?.ops ?? 0);
      return ops > 0 ? true : 'accesses.ops stays 0 after a query on the index';
    });
    await check('storageSizes', async () => {
      const [s] = (await agg([{ $collStats: { storageStats: {} } }])) as {
        storageStats?: { size?: unknown; totalIndexSize?: unknown };
      }[];
      return Number(s?.storageStats?.size ?? 0) > 0 && Number(s?.storageStats?.totalIndexSize ?? 0) > 0
        ? true
        : 'size or totalIndexSize reads 0';
    });
    await check('creationString', async () => {
      const [s] = (await agg([{ $collStats: { storageStats: {} } }])) as {
        storageStats?: { wiredTiger?: { creationString?: unknown } };
      }[];
      return typeof s?.storageStats?.wiredTiger?.creationString === 'string'
        ? true
        : 'no storageStats.wiredTiger.creationString';
    });
    await check('wiredTigerStatus', async () =>
      (await admin.command({ serverStatus: 1 })).wiredTiger !== undefined
        ? true
        : 'serverStatus has no wiredTiger section',
    );
    await check('profiler', async () => {
      const r = await db.command({ profile: -1 });
      return typeof r.was === 'number' ? true : 'profile -1 answered without a level';
    });
    await check('failpoints', async () => {
      await admin.command({ configureFailPoint: 'failCommand', mode: 'off' });
      return true;
    });
    await db.dropDatabase();
    return { server, has, why };
  } finally {
    await client.close();
  }
}

/** Two lines for the run's header: what the server has, and what it lacks with the reasons. */
export function describeCapabilities(c: ServerCapabilities): string[] {
  const keys = Object.keys(CAPABILITY_LABELS) as CapabilityKey[];
  const yes = keys.filter((k) => c.has[k]).map((k) => CAPABILITY_LABELS[k]);
  const no = keys.filter((k) => !c.has[k]).map((k) => `${CAPABILITY_LABELS[k]} (${c.why[k] ?? 'no'})`);
  return [
    `  has:   ${yes.join(', ') || 'none of the probed capabilities'}`,
    `  lacks: ${no.join('; ') || 'nothing probed'}`,
  ];
}
