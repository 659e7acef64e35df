import type { ServerInfo } from '../core/types';

/**
 * The server as the report headers name it: what it is, and the MongoDB version it answers as when it is another
 * product that imitates one ("SecantusDB 0.7.0b3 imitating MongoDB 8.2.11", "FerretDB v1.24.0 imitating MongoDB
 * 7.0.42"); "MongoDB 8.0.4" for mongod itself. A FerretDB snapshot written before the imitator was recorded reads
 * "FerretDB imitating MongoDB …": its own version was not kept.
 */
export function serverName(server: Pick<ServerInfo, 'version' | 'flavor' | 'imitator'>): string {
  const imitator = server.imitator ?? (server.flavor === 'ferretdb' ? 'FerretDB' : undefined);
  return imitator ? `${imitator} imitating MongoDB ${server.version}` : `MongoDB ${server.version}`;
}

const TOPOLOGY: Record<ServerInfo['topology'], string> = {
  standalone: 'standalone',
  replicaSet: 'replica set',
  sharded: 'sharded cluster',
  unknown: 'topology unknown',
};

/** The topology in a DBA's words, for headers ("replica set", not the snapshot's `replicaSet`). */
export function topologyName(topology: ServerInfo['topology']): string {
  return TOPOLOGY[topology];
}

/** The header's server part: "SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, replica set". */
export function serverLine(server: Pick<ServerInfo, 'version' | 'flavor' | 'imitator' | 'topology'>): string {
  return `${serverName(server)}, ${topologyName(server.topology)}`;
}
