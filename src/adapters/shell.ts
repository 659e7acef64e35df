import { redactUri } from '../core/format';
import type { Adapter, BsonKit, Doc } from './types';

/** The parts of mongosh's global scope the plugin uses. Inside require()d code shell calls return Promises. */
export interface ShellGlobals {
  db: {
    getSiblingDB(name: string): { runCommand(cmd: Doc): Promise<Doc> | Doc };
    getName(): string;
    getMongo(): { _uri?: string; getURI?: () => string };
  };
  ObjectId: (...args: unknown[]) => unknown;
  UUID: (hex?: string) => unknown;
  NumberLong: (v: string) => unknown;
}

/** Adapter over the mongosh shell context: every command goes through `db.getSiblingDB(name).runCommand`. */
export class ShellAdapter implements Adapter {
  readonly kind = 'mongosh' as const;
  readonly bson: BsonKit;
  readonly source: string;
  private count = 0;

  constructor(private readonly g: ShellGlobals) {
    this.bson = {
      objectId: () => new (g.ObjectId as unknown as new () => unknown)(),
      uuid: (hex) => g.UUID(hex),
      long: (v) => g.NumberLong(String(v)),
    };
    let uri = 'mongosh';
    try {
      const m = g.db.getMongo();
      uri = (typeof m.getURI === 'function' ? m.getURI() : m._uri) ?? 'mongosh';
    } catch {
      // the URI is only for display
    }
    this.source = redactUri(uri);
  }

  get roundTrips(): number {
    return this.count;
  }

  async command(db: string, cmd: Doc): Promise<Doc> {
    this.count++;
    return await this.g.db.getSiblingDB(db).runCommand(cmd);
  }

  close(): Promise<void> {
    return Promise.resolve(); // the shell owns its connection
  }
}
