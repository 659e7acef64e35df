/**
 * Server gaps that more than one place can hit, each with one key and one cause, so the human reports print one line
 * per gap (`collapseGaps` in src/report/group.ts) that names every place it affected, where each place's note would
 * otherwise say the same gap again in its own words. A note keeps its whole message for JSON and snapshots.
 */
import type { Gap, ServerInfo } from './types';

/** A gap's key and cause, as gapOf takes them. */
export interface GapCause {
  key: string;
  cause: string;
}

/** $collStats counts a collection's documents but gives 0 bytes for it (SecantusDB: every size reads 0). */
export const COLLSTATS_ZERO_SIZES = {
  key: 'collstats-zero-sizes',
  cause:
    '$collStats counted documents but reported sizes of 0 bytes: this server does not measure them, ' +
    'so those sizes are unknown, not 0 B',
} as const;

/** A gap as a note carries it: its key and cause, and what this place could not check because of it. */
export function gapOf(g: GapCause, effect: string): Gap {
  return { key: g.key, cause: g.cause, effect };
}

/**
 * The server has no WiredTiger (FerretDB, or another storage engine): no data-handle or cache statistics, no block
 * compressors. Null on WiredTiger and where the engine is not known (a mongos stores nothing; serverStatus unread).
 */
export function noWiredTiger(server: Pick<ServerInfo, 'flavor' | 'storageEngine'>): GapCause | null {
  const key = 'no-wiredtiger';
  const lacks = 'so it has no WiredTiger statistics (data handles, the cache) and no block compressors';
  if (server.flavor === 'ferretdb') return { key, cause: `this server is FerretDB, which has no WiredTiger, ${lacks}` };
  if (server.storageEngine && server.storageEngine !== 'wiredTiger') {
    return { key, cause: `this server runs storage engine ${server.storageEngine}, not WiredTiger, ${lacks}` };
  }
  return null;
}

/** The server has no $indexStats (FerretDB): index use is read nowhere. */
export const NO_INDEXSTATS = {
  key: 'no-indexstats',
  cause: 'this server does not have $indexStats, so index use is not checked on it',
} as const;
