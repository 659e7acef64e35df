import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';
import { BSON, EJSON } from 'bson';
import type { Doc } from '../../src/core/adapter';
import { defineCollector } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';

const bytes = { type: 'integer', minimum: 0 } as const;
const compressed = { type: ['integer', 'null'], minimum: 0 } as const;
const why = { type: 'string', maxLength: 400 } as const;

/** The sampled documents serialised and compressed in WiredTiger-sized blocks, per codec (byte counts only). */
export const COMPRESSIBILITY_SCHEMA = {
  type: 'object',
  required: ['docs', 'bytes', 'serializer', 'blockBytes', 'codecs'],
  additionalProperties: false,
  properties: {
    /** Documents measured and their serialised bytes (the uncompressed size). */
    docs: bytes,
    bytes,
    /**
     * How documents were serialised: BSON (as stored), else Extended JSON or JSON text when the host's BSON objects
     * could not be.
     */
    serializer: { enum: ['bson', 'ejson', 'json'] },
    /** Bytes per block compressed, after WiredTiger's default leaf page (32 KB). */
    blockBytes: bytes,
    /** Compressed bytes per codec; null with the reason in `unavailable` when the codec could not load. */
    codecs: {
      type: 'object',
      required: ['snappy', 'zlib', 'zstd'],
      additionalProperties: false,
      properties: { snappy: compressed, zlib: compressed, zstd: compressed },
    },
    unavailable: { type: 'object', additionalProperties: false, properties: { snappy: why, zlib: why, zstd: why } },
  },
} as const;
export type Compressibility = FromSchema<typeof COMPRESSIBILITY_SCHEMA>;

/** WiredTiger's default leaf page for collections (leaf_page_max=32KB): the unit a block compressor sees. */
export const BLOCK_BYTES = 32 * 1024;
/** WiredTiger's default levels: zlib 6 (Z_DEFAULT_COMPRESSION), zstd 6 (MongoDB's zstdDefaultCompressionLevel). */
const ZLIB_LEVEL = 6;
const ZSTD_LEVEL = 6;
/**
 * At most this much of the sample is compressed (the sample itself is capped at 64 MiB by collect): 128 blocks
 * give the ratio to well under 1%, and the three codecs take about 0.1 s per MB here.
 */
const MAX_BYTES = 4 * 1024 * 1024;

type Codec = (block: Buffer) => number;
type CodecName = 'snappy' | 'zlib' | 'zstd';

interface Codecs {
  fns: Partial<Record<CodecName, Codec>>;
  unavailable: Partial<Record<CodecName, string>>;
}

// Optional native and WebAssembly codecs are loaded at run time, never bundled: the mongosh bundle cannot
// carry a .node file, and a missing codec must cost one "unavailable" line, not the whole collect.
const load = createRequire(__filename);
let loaded: Promise<Codecs> | null = null;

function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 160) ?? 'unknown error';
}

/** The three block compressors MongoDB offers, each as "bytes in -> compressed bytes". Loaded once. */
function loadCodecs(): Promise<Codecs> {
  loaded ??= (async (): Promise<Codecs> => {
    const fns: Codecs['fns'] = {};
    const unavailable: Codecs['unavailable'] = {};
    fns.zlib = (b) => zlib.deflateSync(b, { level: ZLIB_LEVEL }).length;
    try {
      const snappy = load('snappy') as { compressSync(b: Buffer): Buffer };
      snappy.compressSync(Buffer.from('probe'));
      fns.snappy = (b) => snappy.compressSync(b).length;
    } catch (err) {
      unavailable.snappy = `the snappy package could not load (${reason(err)})`;
    }
    // Node 22.15+ has zstd built in; Node 20 does not.
    const zlibZstd = zlib as unknown as {
      zstdCompressSync?: (b: Buffer, o?: unknown) => Buffer;
      constants: Record<string, number | undefined>;
    };
    if (typeof zlibZstd.zstdCompressSync === 'function') {
      const level = zlibZstd.constants.ZSTD_c_compressionLevel;
      const compress = zlibZstd.zstdCompressSync;
      fns.zstd = (b) => compress(b, level === undefined ? undefined : { params: { [level]: ZSTD_LEVEL } }).length;
    } else {
      try {
        const zstd = load('@bokuweb/zstd-wasm') as {
          init(): Promise<void>;
          compress(b: Uint8Array, level: number): Uint8Array;
        };
        await zstd.init();
        fns.zstd = (b) => zstd.compress(b, ZSTD_LEVEL).length;
      } catch (err) {
        unavailable.zstd =
          `no zstd here: Node ${process.versions.node} has no built-in zstd and @bokuweb/zstd-wasm could not ` +
          `load (${reason(err)})`;
      }
    }
    return { fns, unavailable };
  })();
  return loaded;
}

/**
 * A document whose BSON values come from another copy of the bson library (mongosh's), rebuilt with ours:
 * each foreign value gives its canonical Extended JSON (`toExtendedJSON`, which every bson type has) and ours
 * parses it back. Throws on a value it cannot rebuild.
 */
function adoptForeignBson(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date || v instanceof Uint8Array || v instanceof RegExp)
    return v;
  if (depth > 200) throw new Error('document nested too deeply');
  const bsonType = (v as { _bsontype?: unknown })._bsontype;
  if (typeof bsonType === 'string') {
    const ext = (v as { toExtendedJSON?: (o?: unknown) => unknown }).toExtendedJSON;
    if (typeof ext !== 'function') throw new Error(`a ${bsonType} value without toExtendedJSON`);
    return (
      EJSON.deserialize({ v: ext.call(v, { relaxed: false, legacy: false }) }, { relaxed: false }) as { v: unknown }
    ).v;
  }
  if (Array.isArray(v)) return v.map((x) => adoptForeignBson(x, depth + 1));
  const out: Doc = {};
  for (const [k, x] of Object.entries(v as Doc)) out[k] = adoptForeignBson(x, depth + 1);
  return out;
}

/**
 * Serialises documents as the server stores them (BSON). mongosh hands over its own copy of the bson
 * library, whose objects another copy refuses ("Unsupported BSON version"): those are rebuilt with ours first;
 * failing that, Extended JSON text, then JSON text, and the serializer used is recorded.
 */
export function serializeDocs(docs: readonly Doc[]): { buffers: Buffer[]; serializer: Compressibility['serializer'] } {
  const bson = (d: Doc): Buffer => Buffer.from(BSON.serialize(d, { ignoreUndefined: false }));
  try {
    return { buffers: docs.map(bson), serializer: 'bson' };
  } catch {
    // another bson copy's objects, most likely
  }
  try {
    return { buffers: docs.map((d) => bson(adoptForeignBson(d) as Doc)), serializer: 'bson' };
  } catch {
    // fall through
  }
  try {
    return {
      buffers: docs.map((d) => Buffer.from(EJSON.stringify(d, { relaxed: false }), 'utf8')),
      serializer: 'ejson',
    };
  } catch {
    // fall through
  }
  const plain = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);
  return { buffers: docs.map((d) => Buffer.from(JSON.stringify(d, plain) ?? '', 'utf8')), serializer: 'json' };
}

/** Concatenates documents into blocks of about `blockBytes`, as WiredTiger fills a leaf page before compressing it. */
export function toBlocks(
  buffers: readonly Buffer[],
  blockBytes = BLOCK_BYTES,
  maxBytes = MAX_BYTES,
): { blocks: Buffer[]; docs: number; bytes: number } {
  const blocks: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  let bytes = 0;
  let docs = 0;
  for (const b of buffers) {
    if (bytes + b.length > maxBytes && docs > 0) break;
    current.push(b);
    size += b.length;
    bytes += b.length;
    docs++;
    if (size >= blockBytes) {
      blocks.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
  }
  if (current.length) blocks.push(Buffer.concat(current));
  return { blocks, docs, bytes };
}

/** Compressed bytes of the sample per codec, measured in process. Never stores a document. */
export async function measureCompressibility(docs: readonly Doc[]): Promise<Compressibility | null> {
  if (docs.length === 0) return null;
  const { buffers, serializer } = serializeDocs(docs);
  const { blocks, docs: used, bytes } = toBlocks(buffers);
  const { fns, unavailable } = await loadCodecs();
  const run = (name: CodecName): number | null => {
    const f = fns[name];
    if (!f) return null;
    let total = 0;
    // WiredTiger keeps a block uncompressed when compression does not pay
    for (const b of blocks) total += Math.min(b.length, f(b));
    return total;
  };
  const out: Compressibility = {
    docs: used,
    bytes,
    serializer,
    blockBytes: BLOCK_BYTES,
    codecs: { snappy: run('snappy'), zlib: run('zlib'), zstd: run('zstd') },
  };
  if (Object.keys(unavailable).length) out.unavailable = unavailable;
  return out;
}

/**
 * The sample's compressibility with snappy, zlib and zstd, measured in process on the documents collect already read:
 * no command is sent. Byte counts only; a codec that cannot load is recorded as unavailable with the reason.
 */
export const compressibility = defineCollector<Compressibility, 'collection'>({
  id: 'compression',
  version: 1,
  scope: 'collection',
  description: "the sample's documents compressed in process with snappy, zlib and zstd in 32 KB blocks (no command)",
  schema: COMPRESSIBILITY_SCHEMA,
  async collect(ctx) {
    if (ctx.docs.length === 0) return null;
    try {
      return await measureCompressibility(ctx.docs);
    } catch (err) {
      ctx.note(`compression: the sample's compressibility could not be measured: ${reason(err)}`);
      return null;
    }
  },
});
