import { MongoClient } from 'mongodb';

/**
 * How the report's header names the server at `uri`, as buildInfo says it is: an imitation by its own name
 * ("(SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, "), mongod as MongoDB.
 */
export async function serverHeaderName(uri: string): Promise<string> {
  const client = await MongoClient.connect(uri);
  const build = await client
    .db('admin')
    .command({ buildInfo: 1 })
    .finally(() => client.close());
  return typeof build.secantusVersion === 'string'
    ? `(SecantusDB ${build.secantusVersion} imitating MongoDB ${String(build.version)}, `
    : build.ferretdbVersion !== undefined
      ? `(FerretDB ${String(build.ferretdbVersion)} imitating MongoDB ${String(build.version)}, `
      : `(MongoDB ${String(build.version)}, `;
}
