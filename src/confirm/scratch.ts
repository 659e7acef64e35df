import { randomBytes } from 'node:crypto';
import { commandCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';

/** Every database the advisor writes to starts with this; nothing else is ever written. */
export const SCRATCH_PREFIX = 'mongo_advisor_scratch_';

const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * A scratch database on the user's server (or on another URI): the only place the advisor writes.
 * Drop it with `cleanup()`; the checker calls that on success, error and Ctrl-C.
 */
export class Scratch {
  readonly db: string;
  private used = false;
  private dropped = false;

  constructor(readonly adapter: Adapter, suffix = randomBytes(4).toString('hex')) {
    this.db = `${SCRATCH_PREFIX}${suffix}`;
  }

  get where(): string {
    return `scratch database ${this.db} on ${this.adapter.source}`;
  }

  async command(cmd: Doc): Promise<Doc> {
    this.used = true;
    return await this.adapter.command(this.db, cmd);
  }

  /** Creates a collection and returns the options the server reports back (listCollections), not the ones asked for. */
  async create(name: string, options: Doc = {}): Promise<Doc> {
    await this.command({ create: name, ...options });
    return await this.optionsOf(name);
  }

  async optionsOf(name: string): Promise<Doc> {
    const rows = await commandCursor(this.adapter, this.db, { listCollections: 1, filter: { name }, cursor: {} }, { maxTimeMS: 10_000 });
    return (rows[0]?.options as Doc | undefined) ?? {};
  }

  /** Inserts in batches under 8 MB (documents are sized by the caller's estimate). */
  async insertMany(coll: string, docs: readonly Doc[], approxDocBytes: number): Promise<void> {
    const perBatch = Math.max(1, Math.min(1000, Math.floor(MAX_BATCH_BYTES / Math.max(1, approxDocBytes))));
    for (let i = 0; i < docs.length; i += perBatch) {
      await this.command({ insert: coll, documents: docs.slice(i, i + perBatch), ordered: false });
    }
  }

  async drop(coll: string): Promise<void> {
    await this.command({ drop: coll }).catch(() => undefined);
  }

  async collStats(coll: string): Promise<Doc | null> {
    try {
      const rows = await commandCursor(this.adapter, this.db, { aggregate: coll, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} }, { maxTimeMS: 10_000 });
      return (rows[0]?.storageStats as Doc | undefined) ?? null;
    } catch {
      return null;
    }
  }

  /** Drops the scratch database. Safe to call twice; returns an error line instead of throwing. */
  async cleanup(): Promise<string | null> {
    if (this.dropped || !this.used) {
      this.dropped = true;
      return null;
    }
    try {
      await this.adapter.command(this.db, { dropDatabase: 1 });
      this.dropped = true;
      return null;
    } catch (err) {
      return `could not drop ${this.db}: ${describeServerError(err)}; drop it by hand with db.getSiblingDB("${this.db}").dropDatabase()`;
    }
  }

  get cleanedUp(): boolean {
    return this.dropped;
  }
}
