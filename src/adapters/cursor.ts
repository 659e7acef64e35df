import type { CursorOptions, CursorRead, Doc } from './types';

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
  let seen = 0;
  const keep = (got: Doc[]): void => {
    seen += got.length;
    if (opts.each) opts.each(got);
    else docs.push(...got);
  };
  let replies = 0;
  try {
    if (limit <= 0 || batches <= 0) return { docs, exhausted: false };
    for (;;) {
      if (c.buffered() > 0 && seen < limit) {
        keep(await c.take(limit - seen));
        continue;
      }
      if (c.done()) return { docs, exhausted: true };
      if (seen >= limit || replies >= batches) break;
      count();
      replies++;
      const doc = await c.fetch();
      if (doc !== null) keep([doc]);
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

export { commandCursor, readCursor } from '../lib/cursor';
