import type { Doc } from '../adapters/types';
import { defineCollector } from '../core/collector';
import type { FromSchema } from '../core/from-schema';
import type { ServerInfo } from '../core/types';

/** What several rules read of serverStatus: the storage engine, the WiredTiger cache and its data handles. */
export const SERVER_STATUS_SCHEMA = {
  type: 'object',
  required: ['storageEngine', 'cacheBytes', 'dataHandles'],
  additionalProperties: false,
  properties: {
    storageEngine: { type: ['string', 'null'] },
    /** WiredTiger `cache["maximum bytes configured"]`; null when the server does not report it. */
    cacheBytes: { type: ['number', 'null'] },
    /** serverStatus().wiredTiger["data-handle"] figures; null with `dataHandlesReason` when the server has none. */
    dataHandles: {
      type: ['object', 'null'],
      required: ['active', 'sweeps', 'closedBySweep'],
      additionalProperties: false,
      properties: {
        active: { type: 'number' },
        sweeps: { type: ['number', 'null'] },
        closedBySweep: { type: ['number', 'null'] },
      },
    },
    dataHandlesReason: { type: 'string' },
  },
} as const;
export type ServerStatusData = FromSchema<typeof SERVER_STATUS_SCHEMA>;
/** serverStatus().wiredTiger["data-handle"] figures. */
export type DataHandles = NonNullable<ServerStatusData['dataHandles']>;

/**
 * Why a mongos has no storage figures: it stores nothing. Its serverStatus has no `storageEngine` section (MongoDB
 * registers it for the shard role only) and no `wiredTiger` section; each shard's mongod has both.
 */
export const ROUTER_HAS_NO_STORAGE =
  'this is a mongos, which stores nothing: its serverStatus has no storageEngine or wiredTiger section ' +
  "(each shard's mongod has them; connect to a shard member to read them)";

/** Whether the server is a mongos (the probe's topology `sharded`). */
export const isRouter = (server: Partial<Pick<ServerInfo, 'topology'>>): boolean => server.topology === 'sharded';

function num(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Data-handle figures from a serverStatus reply (documented field names), or the reason there are none. Decided by
 * the section the reply carries, not by the engine's name: a server may name WiredTiger and still not report it.
 */
export function dataHandlesFrom(
  status: Doc,
  server: Pick<ServerInfo, 'flavor' | 'storageEngine'> & Partial<Pick<ServerInfo, 'topology'>>,
): Pick<ServerStatusData, 'dataHandles' | 'dataHandlesReason'> {
  const wt = status.wiredTiger as Doc | undefined;
  if (!wt && (isRouter(server) || status.process === 'mongos'))
    return { dataHandles: null, dataHandlesReason: `no data-handle figures: ${ROUTER_HAS_NO_STORAGE}` };
  if (!wt) {
    const named = (status.storageEngine as Doc | undefined)?.name ?? server.storageEngine;
    const engine = typeof named === 'string' && named !== '' ? named : null;
    let why: string;
    if (server.flavor === 'ferretdb')
      why = 'serverStatus has no wiredTiger section (FerretDB has no WiredTiger), so there are no data-handle figures';
    else if (engine === 'wiredTiger')
      why =
        'the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section, so ' +
        'the data-handle figures could not be read';
    else if (engine)
      why =
        `serverStatus has no wiredTiger section (the storage engine is ${engine}, not WiredTiger), so there ` +
        `are no data-handle figures`;
    else
      why = 'serverStatus names no storage engine and has no wiredTiger section, so there are no data-handle figures';
    return { dataHandles: null, dataHandlesReason: why };
  }
  const dh = wt['data-handle'] as Doc | undefined;
  const active = num(dh?.['connection data handles currently active']);
  if (!dh)
    return {
      dataHandles: null,
      dataHandlesReason:
        'serverStatus().wiredTiger has no "data-handle" section, so the data-handle figures could not be read',
    };
  if (active === null)
    return {
      dataHandles: null,
      dataHandlesReason:
        'serverStatus().wiredTiger["data-handle"] has no "connection data handles currently active" figure, ' +
        'so the data-handle figures could not be read',
    };
  return {
    dataHandles: {
      active,
      sweeps: num(dh['connection sweeps']),
      closedBySweep: num(dh['connection sweep dhandles closed']),
    },
  };
}

/**
 * serverStatus, read once per run by the probe (the plan asks for it when a collector sets `serverStatus`), reduced to
 * the figures rules read. Needs the clusterMonitor role; without it the data is missing and a note says why.
 */
export const serverStatus = defineCollector<ServerStatusData, 'deployment'>({
  id: 'server-status',
  version: 1,
  scope: 'deployment',
  description:
    'serverStatus (1 command per run, shared with the probe): storage engine, WiredTiger cache size and data handles',
  serverStatus: true,
  schema: SERVER_STATUS_SCHEMA,
  async collect(ctx) {
    if (!ctx.serverStatus) {
      ctx.note(
        'serverStatus was refused or not answered: the storage engine, cache size and data-handle figures ' +
          'need the clusterMonitor role',
      );
      return null;
    }
    return {
      storageEngine: ctx.server.storageEngine,
      cacheBytes: ctx.server.cacheBytes,
      ...dataHandlesFrom(ctx.serverStatus, ctx.server),
    };
  },
});
