import { Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { redactUri } from '../core/format';
import type { Adapter, BsonKit, Doc } from './types';

const bson: BsonKit = {
  objectId: () => new ObjectId(),
  uuid: (hex) => new UUID(hex),
  long: (v) => Long.fromString(String(v)),
};

export interface DriverAdapterOptions {
  /** How long to wait for a server before giving up (ms). */
  serverSelectionTimeoutMS?: number;
}

/** Adapter over the Node driver. Call `connect` first; commands go through `db.command`. */
export class DriverAdapter implements Adapter {
  readonly kind = 'driver' as const;
  readonly bson = bson;
  readonly source: string;
  private count = 0;

  private constructor(private readonly client: MongoClient, uri: string) {
    this.source = redactUri(uri);
  }

  static async connect(uri: string, opts: DriverAdapterOptions = {}): Promise<DriverAdapter> {
    const client = new MongoClient(uri, {
      appName: 'mongo-advisor',
      serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
      connectTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
    });
    await client.connect();
    return new DriverAdapter(client, uri);
  }

  get roundTrips(): number {
    return this.count;
  }

  async command(db: string, cmd: Doc): Promise<Doc> {
    this.count++;
    return (await this.client.db(db).command(cmd));
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
