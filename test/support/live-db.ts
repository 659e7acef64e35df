import { type Db, MongoClient } from 'mongodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { liveUri } from './live-uri';

export interface LiveDb {
  readonly uri: string;
  readonly kind: string;
  client: MongoClient;
  db: Db;
  adapter: DriverAdapter;
}

/**
 * A fresh database on the test server for one describe block: dropped, seeded, then handed over with a driver
 * client and an advisor adapter; dropped and closed afterwards. Call it first in the block, so its hooks run
 * before the block's own.
 */
export function useLiveDb(name: string, seed: (db: Db) => Promise<void>): LiveDb {
  const live = { uri: liveUri(), kind: inject('serverKind') } as LiveDb;
  beforeAll(async () => {
    live.client = await MongoClient.connect(live.uri);
    live.db = live.client.db(name);
    await live.db.dropDatabase();
    await seed(live.db);
    live.adapter = await DriverAdapter.connect(live.uri);
  });
  afterAll(async () => {
    await live.adapter?.close();
    await live.client?.db(name).dropDatabase();
    await live.client?.close();
  });
  return live;
}
