import type { ServerInfo } from '../core/types';

/**
 * The server as the report headers name it: what it is, and the MongoDB version it answers as when it is another
 * product that imitates one ("SecantusDB 0.7.0b3 imitating MongoDB 8.2.11"); "MongoDB 8.0.4" for mongod itself.
 */
export function serverName(server: Pick<ServerInfo, 'version' | 'flavor' | 'imitator'>): string {
  if (server.flavor === 'ferretdb') return `FerretDB ${server.version}`;
  return server.imitator ? `${server.imitator} imitating MongoDB ${server.version}` : `MongoDB ${server.version}`;
}
