import { commandCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { Capability, CapabilityName, ServerInfo } from '../core/types';
import { versionAtLeast } from '../lib/version';

const yes = (evidence: string): Capability => ({ supported: true, evidence });
const no = (evidence: string): Capability => ({ supported: false, evidence });
const unknown = (evidence: string): Capability => ({ supported: null, evidence });

/**
 * The topology as serverStatus tells it (asked with its `repl` section): mongos, a replica-set member, a standalone
 * mongod, or 'unknown' when the reply cannot tell (then `hello` decides). A member's serverStatus always carries
 * repl.setName and a mongos's names its process; a standalone is a `mongod` process without `repl`. Products that
 * imitate MongoDB may leave `repl` out while `hello` names a replica set (SecantusDB's process is "secantus") or name
 * no process at all (FerretDB): those are not called standalone from serverStatus.
 */
export function topologyFromStatus(status: Doc): ServerInfo['topology'] {
  const proc = typeof status.process === 'string' ? status.process.replace(/\.exe$/i, '') : '';
  if (proc.endsWith('mongos')) return 'sharded';
  const repl = status.repl as Doc | undefined;
  if (repl && typeof repl.setName === 'string') return 'replicaSet';
  return proc.endsWith('mongod') ? 'standalone' : 'unknown';
}

/**
 * Server facts from buildInfo and, when the plan needs it, serverStatus; `hello` only when serverStatus could not
 * tell the topology. Two read-only round trips either way. The serverStatus reply is returned too (null when refused
 * or not asked), for collectors that need more of it; it is never stored in the snapshot.
 */
export async function probeServer(
  adapter: Adapter,
  maxTimeMS: number,
  opts: { serverStatus?: boolean } = {},
): Promise<{ server: ServerInfo; status: Doc | null }> {
  const build = await adapter.command('admin', { buildInfo: 1, maxTimeMS });
  const versionArray = Array.isArray(build.versionArray)
    ? (build.versionArray as unknown[]).map(Number)
    : String(build.version).split('.').map(Number);
  const flavor = build.ferretdbVersion !== undefined || build.ferretdbFeatures !== undefined ? 'ferretdb' : 'mongodb';
  let storageEngine: string | null = null;
  let cacheBytes: number | null = null;
  let status: Doc | null = null;
  let topology: ServerInfo['topology'] = 'unknown';
  // serverStatus only when an enabled rule reads it (storage engine, cache size, data handles): the plan says. Its
  // `repl` section (small) gives the topology, which saves the hello.
  if (opts.serverStatus === true) {
    try {
      status = await adapter.command('admin', {
        serverStatus: 1,
        maxTimeMS,
        repl: 1,
        metrics: 0,
        locks: 0,
        opLatencies: 0,
        network: 0,
      });
      storageEngine = ((status.storageEngine as Doc | undefined)?.name as string | undefined) ?? null;
      const cache = ((status.wiredTiger as Doc | undefined)?.cache as Doc | undefined)?.['maximum bytes configured'];
      cacheBytes = cache === undefined ? null : Number(cache);
      topology = topologyFromStatus(status);
    } catch {
      // serverStatus needs the clusterMonitor role; the rules that use it say so.
    }
  }
  if (topology === 'unknown') topology = await topologyFromHello(adapter);
  const capabilities = capabilitiesOf(String(build.version), versionArray, flavor);
  // A product that answers as MongoDB says so in buildInfo: named in the report's header, never judged differently.
  const imitator =
    typeof build.secantusVersion === 'string'
      ? `SecantusDB ${build.secantusVersion}`
      : flavor === 'ferretdb'
        ? `FerretDB${typeof build.ferretdbVersion === 'string' ? ` ${build.ferretdbVersion}` : ''}`
        : undefined;
  const server: ServerInfo = {
    version: String(build.version),
    versionArray,
    flavor,
    ...(imitator ? { imitator } : {}),
    storageEngine,
    topology,
    capabilities,
    cacheBytes,
  };
  return { server, status };
}

/** What the server can do as far as buildInfo tells, before any collection is probed. */
function capabilitiesOf(
  version: string,
  versionArray: number[],
  flavor: ServerInfo['flavor'],
): Record<CapabilityName, Capability> {
  return {
    sample: unknown('not probed: no collection to probe on'),
    indexStats: unknown(
      'not probed: the index-usage rule reads $indexStats itself and says when the server refuses it',
    ),
    bsonSize: unknown('not probed: no collection to probe on'),
    arraySize: unknown('not probed: no collection to probe on'),
    collStats: unknown('not probed: no collection to probe on'),
    validators: unknown(`not proven without a write; MongoDB has them since 3.2 (server reports ${version})`),
    clusteredCollections:
      versionAtLeast(versionArray, 5, 3) || flavor === 'ferretdb'
        ? unknown(`not proven without a write; MongoDB has them since 5.3 (server reports ${version})`)
        : no(`server version ${version} is older than 5.3`),
    collMod: unknown('not proven without a write'),
  };
}

/** The topology from hello, when serverStatus was not read or did not say. */
async function topologyFromHello(adapter: Adapter): Promise<ServerInfo['topology']> {
  const hello: Doc = await adapter.command('admin', { hello: 1 }).catch((): Doc => ({}));
  return hello.msg === 'isdbgrid'
    ? 'sharded'
    : typeof hello.setName === 'string'
      ? 'replicaSet'
      : Object.keys(hello).length
        ? 'standalone'
        : 'unknown';
}

/**
 * Read-only aggregation probes on one existing collection: $sample, $bsonSize and $size, first together in one
 * pipeline (one round trip where the server has all three, as MongoDB does); when that fails, one at a time, so each
 * answer (or error) is the evidence for its own capability. Once per run. `$indexStats` is not probed: the index-usage
 * rule's collector reads it and says when the server refuses it.
 */
export async function probeAggregation(
  adapter: Adapter,
  server: ServerInfo,
  db: string,
  coll: string,
  maxTimeMS: number,
): Promise<void> {
  const run = (pipeline: Doc[]) =>
    // Every probe pipeline yields at most one document: a batch of 2 tells the server the cursor is done, so it closes
    // it in the same reply (a batch of 1 leaves it open and costs a killCursors).
    commandCursor(
      adapter,
      db,
      { aggregate: coll, pipeline: [...pipeline, { $limit: 1 }], cursor: { batchSize: 2 }, maxTimeMS },
      { limit: 1, maxTimeMS },
    );
  const together = async (): Promise<boolean> => {
    try {
      await run([
        { $sample: { size: 1 } },
        { $project: { _id: 0, s: { $bsonSize: '$$ROOT' }, n: { $size: { $literal: [1, 2] } } } },
      ]);
    } catch {
      return false; // one of them is missing: ask each on its own below
    }
    const where = `on ${db}.${coll} (one pipeline with $sample, $bsonSize and $size)`;
    server.capabilities.sample = yes(`aggregate $sample answered ${where}`);
    server.capabilities.bsonSize = yes(`aggregate $bsonSize answered ${where}`);
    server.capabilities.arraySize = yes(`aggregate $size answered ${where}`);
    return true;
  };
  // FerretDB answers $sample and $bsonSize with NotImplemented: asking them together first would only add a round trip
  // there. Each capability is still proven by asking.
  if (server.flavor !== 'ferretdb' && (await together())) return;
  const tryPipeline = async (name: CapabilityName, pipeline: Doc[], what: string): Promise<void> => {
    try {
      await run(pipeline);
      server.capabilities[name] = yes(`${what} answered on ${db}.${coll}`);
    } catch (err) {
      server.capabilities[name] = no(`${what} failed: ${describeServerError(err)}`);
    }
  };
  await tryPipeline('sample', [{ $sample: { size: 1 } }, { $project: { _id: 1 } }], 'aggregate $sample');
  await tryPipeline(
    'bsonSize',
    [{ $limit: 1 }, { $project: { _id: 0, s: { $bsonSize: '$$ROOT' } } }],
    'aggregate $bsonSize',
  );
  await tryPipeline(
    'arraySize',
    [{ $limit: 1 }, { $project: { _id: 0, n: { $size: { $literal: [1, 2] } } } }],
    'aggregate $size',
  );
}

/** Marks capabilities proven by what listCollections returned (a read-back, no write needed). */
export function proveFromCollectionOptions(server: ServerInfo, options: Doc, where: string): void {
  if (options.validator !== undefined && server.capabilities.validators.supported !== true) {
    server.capabilities.validators = yes(`a validator is stored on ${where}`);
  }
  if (options.clusteredIndex !== undefined && server.capabilities.clusteredCollections.supported !== true) {
    server.capabilities.clusteredCollections = yes(`${where} is clustered`);
  }
}
