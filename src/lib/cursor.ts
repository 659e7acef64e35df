import type { Adapter, CursorOptions, CursorRead, Doc } from '../core/adapter';

/*
 * Cursor reads through whatever adapter the caller holds: a collector's read-only gate (ctx.adapter), a confirm
 * context's source, the scratch handle's own. Pure over the Adapter contract (src/core/adapter.ts): it opens no
 * connection, so rules use it without reaching the adapters (src/adapters/cursor.ts re-exports it).
 */

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
  const docs: Doc[] = [];
  let seen = 0;
  const keep = (got: Doc[]): void => {
    seen += got.length;
    if (opts.each) opts.each(got);
    else docs.push(...got);
  };
  keep(first.cursor?.firstBatch ?? []);
  let id = first.cursor?.id;
  let replies = 1;
  const ns = first.cursor?.ns ?? '';
  const coll = ns.includes('.') ? ns.slice(ns.indexOf('.') + 1) : String(Object.values(cmd)[0]);
  while (!isZero(id) && seen < limit && replies < batches) {
    const getMore = { getMore: asLong(adapter, id), collection: coll };
    const more = (await adapter.command(
      db,
      opts.getMoreBatchSize === undefined ? getMore : { ...getMore, batchSize: opts.getMoreBatchSize },
    )) as CursorReply;
    replies++;
    keep(more.cursor?.nextBatch ?? []);
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
export async function readCursor(
  adapter: Adapter,
  db: string,
  cmd: Doc,
  opts: CursorOptions = {},
): Promise<CursorRead> {
  return adapter.cursor ? await adapter.cursor(db, cmd, opts) : await handSentCursor(adapter, db, cmd, opts);
}

/**
 * Runs a cursor-returning command (find, aggregate, listCollections, listIndexes) and reads every batch, stopping at
 * `limit` documents (then the cursor is killed). Each batch is one round trip. `maxTimeMS` belongs in `cmd` (the
 * server applies it to the cursor's whole life); the option is kept for callers.
 */
export async function commandCursor(
  adapter: Adapter,
  db: string,
  cmd: Doc,
  opts: { limit?: number; maxTimeMS: number } & Omit<CursorOptions, 'limit'>,
): Promise<Doc[]> {
  const { maxTimeMS: _maxTimeMS, ...rest } = opts;
  return (await readCursor(adapter, db, cmd, rest)).docs;
}
