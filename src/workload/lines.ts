/**
 * Byte-level line splitting for large logs: a file or a stream (stdin), plain or gzip (told by its first two bytes,
 * 0x1f 0x8b), read chunk by chunk. Memory stays bounded: a line longer than `maxLineBytes` is dropped as it is read
 * (never assembled) and reported through `onTooLong`. Lines are handed over as byte ranges, not strings, with a flag
 * saying whether the range holds a marker (searched once per chunk, not once per line): a caller can skip the lines
 * without it before decoding them at all.
 */
import { createReadStream } from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface LineSink {
  /** A complete line, bytes [start, end) of buf, without its newline; `marked` when the marker is in the line. */
  line(buf: Buffer, start: number, end: number, marked: boolean): void;
  /** A line past the byte limit, dropped. */
  tooLong(): void;
}

/** Splits chunks into lines; feed it with `push`, then call `end` once. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private skipping = false;

  constructor(
    private readonly marker: Buffer,
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let hit = chunk.indexOf(this.marker);
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      if (this.skipping || this.parts.length > 0) {
        this.finishCarried(chunk, start, nl);
      } else if (nl - start > this.maxLineBytes) {
        this.sink.tooLong();
      } else {
        if (hit >= 0 && hit < start) hit = chunk.indexOf(this.marker, start);
        this.sink.line(chunk, start, nl, hit >= 0 && hit < nl);
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.carry(chunk.subarray(start));
  }

  end(): void {
    if (this.skipping) {
      this.skipping = false;
      this.sink.tooLong();
    } else if (this.partBytes > 0) {
      this.emitCarried(Buffer.concat(this.parts, this.partBytes));
    }
    this.parts = [];
    this.partBytes = 0;
  }

  private carry(rest: Buffer): void {
    if (this.skipping) return;
    if (this.partBytes + rest.length > this.maxLineBytes) {
      this.skipping = true;
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    this.parts.push(rest);
    this.partBytes += rest.length;
  }

  private finishCarried(chunk: Buffer, start: number, nl: number): void {
    if (this.skipping || this.partBytes + (nl - start) > this.maxLineBytes) {
      this.skipping = false;
      this.parts = [];
      this.partBytes = 0;
      this.sink.tooLong();
      return;
    }
    this.parts.push(chunk.subarray(start, nl));
    const line = Buffer.concat(this.parts, this.partBytes + (nl - start));
    this.parts = [];
    this.partBytes = 0;
    this.emitCarried(line);
  }

  private emitCarried(line: Buffer): void {
    this.sink.line(line, 0, line.length, line.indexOf(this.marker) >= 0);
  }
}

const toBuffer = (c: unknown): Buffer => (Buffer.isBuffer(c) ? c : Buffer.from(c as string));

/** The first chunks of a stream until they hold two bytes (or the stream ends), and the iterator of the rest. */
async function head(it: AsyncIterator<unknown>): Promise<Buffer[]> {
  const got: Buffer[] = [];
  let bytes = 0;
  while (bytes < 2) {
    const next = await it.next();
    if (next.done) break;
    const b = toBuffer(next.value);
    got.push(b);
    bytes += b.length;
  }
  return got;
}

/** Raw chunks of a path or a stream, gunzipped when the data starts with gzip's magic bytes. */
export async function* inputChunks(input: string | Readable, chunkBytes = 1 << 20): AsyncGenerator<Buffer> {
  const stream = typeof input === 'string' ? createReadStream(input, { highWaterMark: chunkBytes }) : input;
  const it = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const first = await head(it);
  async function* all(): AsyncGenerator<Buffer> {
    yield* first;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield toBuffer(next.value);
    }
  }
  const firstBytes = Buffer.concat(first.slice(0, 2));
  if (firstBytes[0] !== 0x1f || firstBytes[1] !== 0x8b) {
    yield* all();
    return;
  }
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  const out = pipeline(Readable.from(all()), gunzip, () => {});
  for await (const c of out) yield toBuffer(c);
}
