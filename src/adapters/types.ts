/** A server document as the host (driver or mongosh) returns it. */
export type Doc = Record<string, unknown>;

/** BSON values made with the host's own library, so the host can serialize them. */
export interface BsonKit {
  objectId(): unknown;
  /** A UUID (Binary subtype 4) from 32 hex digits. */
  uuid(hex: string): unknown;
  /** A 64-bit integer (cursor ids must be sent back as one). */
  long(value: number | string): unknown;
}

/**
 * The one interface collect and confirm use to reach a server: database commands only.
 * Two implementations: the Node driver (CLI, Node API) and the mongosh shell context (plugin).
 */
export interface Adapter {
  readonly kind: 'driver' | 'mongosh';
  /** The connection described without a password. */
  readonly source: string;
  readonly bson: BsonKit;
  /** Commands sent so far (each is one round trip). */
  readonly roundTrips: number;
  command(db: string, cmd: Doc): Promise<Doc>;
  /**
   * A direct connection to one replica-set member (`host:port` as `hello.hosts` lists it), with the same
   * credentials and TLS settings. Optional: only adapters that own their connection can open another one.
   * Connections are cached per host and closed by `close()`; their commands count in `roundTrips`. Members are only
   * read: the driver hands them out through `readOnly` (src/adapters/read-only.ts), and so does a read-only gate.
   */
  connectMember?(host: string): Promise<Adapter>;
  close(): Promise<void>;
}

/** A server error as both hosts surface it. */
export interface ServerError {
  code?: number;
  codeName?: string;
  message: string;
}

export function asServerError(err: unknown): ServerError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; codeName?: unknown; message?: unknown; errmsg?: unknown };
    return {
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
      message: typeof e.message === 'string' ? e.message : typeof e.errmsg === 'string' ? e.errmsg : JSON.stringify(err),
    };
  }
  return { message: typeof err === 'string' ? err : JSON.stringify(err) ?? 'unknown error' };
}

/** Short description of a server error for reports: "CommandNotFound (59): no such command". */
export function describeServerError(err: unknown): string {
  const e = asServerError(err);
  const head = e.codeName ? `${e.codeName}${e.code !== undefined ? ` (${e.code})` : ''}` : e.code !== undefined ? `error ${e.code}` : 'error';
  return `${head}: ${e.message.split('\n')[0] ?? ''}`.slice(0, 240);
}
