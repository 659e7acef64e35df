import type { Adapter, Doc } from './types';

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
 * Runs a cursor-returning command (find, aggregate, listCollections, listIndexes) and reads every batch,
 * stopping at `limit` documents (then the cursor is killed). Each batch is one round trip.
 */
export async function commandCursor(adapter: Adapter, db: string, cmd: Doc, opts: { limit?: number; maxTimeMS: number }): Promise<Doc[]> {
  const first = (await adapter.command(db, cmd)) as CursorReply;
  const out: Doc[] = [...(first.cursor?.firstBatch ?? [])];
  let id = first.cursor?.id;
  const ns = first.cursor?.ns ?? '';
  const coll = ns.includes('.') ? ns.slice(ns.indexOf('.') + 1) : String(Object.values(cmd)[0]);
  const limit = opts.limit ?? Infinity;
  while (!isZero(id) && out.length < limit) {
    const more = (await adapter.command(db, { getMore: asLong(adapter, id), collection: coll })) as CursorReply;
    out.push(...(more.cursor?.nextBatch ?? []));
    id = more.cursor?.id;
  }
  if (!isZero(id)) {
    await adapter.command(db, { killCursors: coll, cursors: [asLong(adapter, id)] }).catch(() => undefined);
  }
  return out.length > limit ? out.slice(0, limit) : out;
}
