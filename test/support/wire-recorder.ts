import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { BSON, type Document } from 'bson';

/** MongoDB wire protocol opcodes (https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/). */
export const OP_MSG = 2013;
export const OP_COMPRESSED = 2012;

/** A message a client sent, as the recorder decoded it. */
export interface WireRequest {
  kind: 'request';
  /** The proxied connection (one client socket, one server socket), numbered from 1 in the order they opened. */
  conn: number;
  requestId: number;
  responseTo: number;
  opCode: number;
  /** OP_MSG only: the body's `$db`, its first key (the command's name) and the body itself (section kind 0). */
  db?: string;
  name?: string;
  body?: Document;
  /** OP_MSG kind 1 sections: identifier and how many documents each carried (`documents` of an insert, …). */
  sequences?: { id: string; count: number }[];
  /** OP_COMPRESSED, or another opcode: seen, not decoded. */
  undecoded?: true;
}

/** A message the server sent back, summarized (replies can be 16 MiB: their documents are not kept). */
export interface WireReply {
  kind: 'reply';
  conn: number;
  requestId: number;
  responseTo: number;
  opCode: number;
  ok?: number;
  /** `cursor.id` as a decimal string; absent when the reply names no cursor. */
  cursorId?: string;
  /** `cursor.ns` (`db.collection`, or `db.$cmd.listCollections`): what a getMore of the cursor names. */
  ns?: string;
  /** `cursor.firstBatch` / `nextBatch` length. */
  batch?: number;
  code?: number;
  undecoded?: true;
}

export type WireEntry = WireRequest | WireReply;

export interface WireRecorder {
  /** The proxy's address, `127.0.0.1:<port>`. */
  readonly address: string;
  /** Every message seen so far, in the order it was seen on its connection (connections interleave). */
  readonly log: WireEntry[];
  /** Messages logged from now on only: returns the index to slice `log` from. */
  mark(): number;
  /** Resolves once no proxied connection is open (a client that exited has closed them all), or after `ms`. */
  idle(ms?: number): Promise<boolean>;
  close(): Promise<void>;
}

const HEADER = 16;

/** Decodes one whole message (header included). Never throws: a message it cannot read is logged as undecoded. */
function decode(msg: Buffer, conn: number, direction: 'request' | 'reply'): WireEntry {
  const requestId = msg.readInt32LE(4);
  const responseTo = msg.readInt32LE(8);
  const opCode = msg.readInt32LE(12);
  const head = { conn, requestId, responseTo, opCode };
  if (opCode !== OP_MSG)
    return direction === 'request'
      ? { kind: 'request', ...head, undecoded: true }
      : { kind: 'reply', ...head, undecoded: true };
  try {
    const flags = msg.readUInt32LE(HEADER);
    const end = flags & 1 ? msg.length - 4 : msg.length; // checksumPresent: a CRC-32C closes the message
    let at = HEADER + 4;
    let body: Document | undefined;
    const sequences: { id: string; count: number }[] = [];
    while (at < end) {
      const kind = msg.readUInt8(at);
      at += 1;
      if (kind === 0) {
        const size = msg.readInt32LE(at);
        // Replies: keep cursor ids exact (Long), and do not turn 16 MiB of documents into strings twice.
        body = BSON.deserialize(msg.subarray(at, at + size), {
          promoteLongs: false,
          promoteValues: direction === 'request',
        });
        at += size;
      } else if (kind === 1) {
        const size = msg.readInt32LE(at);
        const stop = at + size;
        const nul = msg.indexOf(0, at + 4);
        const id = msg.toString('utf8', at + 4, nul);
        let count = 0;
        for (let d = nul + 1; d < stop; d += msg.readInt32LE(d)) count++;
        sequences.push({ id, count });
        at = stop;
      } else {
        throw new Error(`section kind ${kind}`);
      }
    }
    if (!body) throw new Error('no body section');
    if (direction === 'request') {
      return {
        kind: 'request',
        ...head,
        db: String(body.$db),
        name: Object.keys(body)[0] ?? '',
        body,
        ...(sequences.length ? { sequences } : {}),
      };
    }
    // cursor.id: a bson Long (promoteLongs false), whose toString is the decimal id
    const cursor = body.cursor as
      | { id?: { toString(): string }; ns?: string; firstBatch?: unknown[]; nextBatch?: unknown[] }
      | undefined;
    const batch = cursor?.firstBatch ?? cursor?.nextBatch;
    return {
      kind: 'reply',
      ...head,
      ok: Number(body.ok),
      ...(cursor?.id !== undefined ? { cursorId: cursor.id.toString() } : {}),
      ...(cursor?.ns !== undefined ? { ns: cursor.ns } : {}),
      ...(batch ? { batch: batch.length } : {}),
      ...(body.code !== undefined ? { code: Number(body.code) } : {}),
    };
  } catch {
    return direction === 'request'
      ? { kind: 'request', ...head, undecoded: true }
      : { kind: 'reply', ...head, undecoded: true };
  }
}

/** Cuts a byte stream into whole messages (the first int32 of each is its length) and hands each over. */
function framer(onMessage: (msg: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const len = pending.readInt32LE(0);
      if (len < HEADER || pending.length < len) break;
      onMessage(pending.subarray(0, len));
      pending = pending.subarray(len);
    }
  };
}

/**
 * A recording TCP proxy in front of a real server: it listens on 127.0.0.1 (a free port), forwards every byte to
 * `target` (`host:port`) and back unchanged, and decodes the OP_MSG messages it sees into `log`. It observes only:
 * every reply comes from the real server. Point a client at it with `directConnection=true` (so a replica set's
 * `hello` does not send the client to the member's own address) and without `compressors` (so messages stay
 * readable; OP_COMPRESSED is logged as seen, not decoded).
 */
export async function startWireRecorder(target: string): Promise<WireRecorder> {
  const [host, port] = splitHostPort(target);
  const log: WireEntry[] = [];
  const sockets = new Set<Socket>();
  let next = 0;
  const server: Server = createServer((client) => {
    const conn = ++next;
    const upstream = createConnection({ host, port });
    sockets.add(client);
    sockets.add(upstream);
    client.on(
      'data',
      framer((m) => log.push(decode(m, conn, 'request'))),
    );
    upstream.on(
      'data',
      framer((m) => log.push(decode(m, conn, 'reply'))),
    );
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (s: Socket) => () => {
      sockets.delete(s);
      s.destroy();
    };
    client.on('close', end(upstream));
    upstream.on('close', end(client));
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('the wire recorder has no TCP address');
  return {
    address: `127.0.0.1:${addr.port}`,
    log,
    mark: () => log.length,
    idle: async (ms = 5_000) => {
      const deadline = Date.now() + ms;
      while (sockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return sockets.size === 0;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function splitHostPort(target: string): [string, number] {
  const i = target.lastIndexOf(':');
  if (i < 0) return [target, 27017];
  return [target.slice(0, i).replace(/^\[|\]$/g, ''), Number(target.slice(i + 1))];
}

/** The one `host:port` of a `mongodb://` URI (the test servers are single hosts). */
export function hostOf(uri: string): string {
  const m = /^mongodb:\/\/(?:[^@/]*@)?([^/?,]+)/.exec(uri);
  if (!m?.[1]) throw new Error(`not a single-host mongodb:// URI: ${uri}`);
  return m[1];
}

/** `uri` with its host replaced by the recorder's, `directConnection=true`, and `compressors` taken out. */
export function throughRecorder(uri: string, recorder: WireRecorder, db?: string): string {
  const url = new URL(uri.replace(/^mongodb:\/\//, 'http://'));
  url.host = recorder.address;
  if (db !== undefined) url.pathname = `/${db}`;
  url.searchParams.delete('compressors');
  url.searchParams.set('directConnection', 'true');
  return url.toString().replace(/^http:\/\//, 'mongodb://');
}
