import type { Adapter, CursorOptions, CursorRead, Doc } from './types';

/**
 * A host cursor as the adapters see it: the driver's RunCommandCursor and mongosh's RunCommandCursor both fit, through
 * a few lines each (src/adapters/driver.ts, shell.ts). The host sends getMore and killCursors itself, on the session
 * and the server that opened the cursor.
 */
export interface HostCursor {
  /** Documents received and not read yet (no round trip). */
  buffered(): number;
  /** Reads up to `n` buffered documents (no round trip). */
  take(n: number): Promise<Doc[]>;
  /** One round trip (the opening command the first time, then one getMore): its first document, or null. */
  fetch(): Promise<Doc | null>;
  /** The server holds no cursor any more (exhausted or closed) and nothing is buffered. */
  done(): boolean;
  /** Kills the cursor on the server when it is still open; frees the session. */
  close(): Promise<void>;
}

/**
 * Reads a host cursor to `limit` documents or `batches` replies, counting each reply as one round trip (`count`),
 * and the killCursors of a cursor the server still holds when the read stops early. Buffered documents past the
 * limit are read and dropped, so `done()` can tell whether the server still holds the cursor.
 */
export async function readHostCursor(c: HostCursor, opts: CursorOptions, count: () => void): Promise<CursorRead> {
  const limit = opts.limit ?? Infinity;
  const batches = opts.batches ?? Infinity;
  const docs: Doc[] = [];
  let replies = 0;
  try {
    if (limit <= 0 || batches <= 0) return { docs, exhausted: false };
    for (;;) {
      if (c.buffered() > 0 && docs.length < limit) {
        docs.push(...(await c.take(limit - docs.length)));
        continue;
      }
      if (c.done()) return { docs, exhausted: true };
      if (docs.length >= limit || replies >= batches) break;
      count();
      replies++;
      const doc = await c.fetch();
      if (doc !== null) docs.push(doc);
    }
    if (c.buffered() > 0) await c.take(c.buffered());
    if (c.done()) return { docs, exhausted: true };
    count(); // the killCursors close() sends
    await c.close();
    return { docs, exhausted: false };
  } finally {
    await c.close().catch(() => undefined);
  }
}

interface CursorReply {
  cursor?: { id?: unknown; firstBatch?: Doc[]; nextBatch?: Doc[]; ns?: string };
}

function isZero(id: unknown): boolean {
  if (id === undefined || id === null) return true;
  if (typeof id === 'number' || typeof id === 'bigint') return Number(id) === 0;
  // bson Long from either host
  const s = (id as { toString(): string }).toString();
  return s === '0';
}

/** Hosts promote small 64-bit cursor ids to numbers; the server wants them back as 64-bit integers. */
function asLong(adapter: Adapter, id: unknown): unknown {
  return typeof id === 'number' || typeof id === 'bigint' ? adapter.bson.long(String(id)) : id;
}

/**
 * For adapters without `cursor` (in-process stubs): getMore and killCursors sent as commands of their own. On a real
 * server each may carry another implicit session than the command that opened the cursor, or reach another mongos.
 */
async function handSentCursor(adapter: Adapter, db: string, cmd: Doc, opts: CursorOptions): Promise<CursorRead> {
  const limit = opts.limit ?? Infinity;
  const batches = opts.batches ?? Infinity;
  const first = (await adapter.command(db, cmd)) as CursorReply;
  const docs: Doc[] = [...(first.cursor?.firstBatch ?? [])];
  let id = first.cursor?.id;
  let replies = 1;
  const ns = first.cursor?.ns ?? '';
  const coll = ns.includes('.') ? ns.slice(ns.indexOf('.') + 1) : String(Object.values(cmd)[0]);
  while (!isZero(id) && docs.length < limit && replies < batches) {
    const more = (await adapter.command(db, { getMore: asLong(adapter, id), collection: coll })) as CursorReply;
    replies++;
    docs.push(...(more.cursor?.nextBatch ?? []));
    id = more.cursor?.id;
  }
  if (!isZero(id)) {
    await adapter.command(db, { killCursors: coll, cursors: [asLong(adapter, id)] }).catch(() => undefined);
  }
  return { docs: docs.length > limit ? docs.slice(0, limit) : docs, exhausted: isZero(id) };
}

/**
 * Runs a cursor-returning command and reads it through the adapter's cursor (`Adapter.cursor`): to the end, to
 * `limit` documents or to `batches` replies; a cursor stopped early is closed. Each reply is one round trip.
 */
export async function readCursor(adapter: Adapter, db: string, cmd: Doc, opts: CursorOptions = {}): Promise<CursorRead> {
  return adapter.cursor ? await adapter.cursor(db, cmd, opts) : await handSentCursor(adapter, db, cmd, opts);
}

/**
 * Runs a cursor-returning command (find, aggregate, listCollections, listIndexes) and reads every batch, stopping at
 * `limit` documents (then the cursor is killed). Each batch is one round trip. `maxTimeMS` belongs in `cmd` (the
 * server applies it to the cursor's whole life); the option is kept for callers.
 */
export async function commandCursor(adapter: Adapter, db: string, cmd: Doc, opts: { limit?: number; maxTimeMS: number } & Omit<CursorOptions, 'limit'>): Promise<Doc[]> {
  const { maxTimeMS: _maxTimeMS, ...rest } = opts;
  return (await readCursor(adapter, db, cmd, rest)).docs;
}
