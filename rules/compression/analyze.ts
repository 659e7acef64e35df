import type { CollectionSnapshot, Compressibility, ServerInfo } from '../../src/core/types';

export interface CompressionOptions extends Record<string, unknown> {
  minGain: number;
  cacheShare: number;
  minDataBytes: number;
}

export type Codec = 'snappy' | 'zlib' | 'zstd';
const CODECS: readonly Codec[] = ['snappy', 'zlib', 'zstd'];

export interface CompressionStats {
  current: string;
  /** Uncompressed bytes over bytes on disk, as the server reports them (size / storageSize). */
  serverRatio: number | null;
  /** Uncompressed data plus indexes of the collection: what the cache holds when all of it is hot. */
  dataAndIndexBytes: number;
  cacheBytes: number | null;
  outgrowsCache: boolean;
  /** The sample's ratio per codec, measured in process (null: codec unavailable or no sample). */
  ratios: Record<Codec, number | null>;
  /** Ratio of the current codec on the sample (1 for none), the yardstick zstd is held against. */
  currentRatio: number | null;
  /** zstd's ratio over the current codec's, on the same sample. */
  gain: number | null;
  /** Why zstd's gain is unknown, when it is. */
  gainUnknown: string | null;
}

function ratioOf(c: Compressibility | undefined, codec: Codec): number | null {
  const b = c?.codecs[codec];
  return c && b !== null && b !== undefined && b > 0 ? c.bytes / b : null;
}

export function zstdSupported(server: ServerInfo): boolean {
  const [major = 0, minor = 0] = server.versionArray;
  return major > 4 || (major === 4 && minor >= 2);
}

/** Compression facts for one collection; null when it has no WiredTiger block compressor to judge. */
export function compressionStats(c: CollectionSnapshot, server: ServerInfo, o: CompressionOptions): CompressionStats | null {
  const s = c.stats;
  if (!s || !s.blockCompressor || s.count === 0) return null;
  const current = s.blockCompressor;
  const comp = c.compressibility;
  const ratios = Object.fromEntries(CODECS.map((k) => [k, ratioOf(comp, k)])) as Record<Codec, number | null>;
  const serverRatio = s.storageSizeBytes > 0 ? s.sizeBytes / s.storageSizeBytes : null;
  const currentRatio = current === 'none' ? 1 : (CODECS as readonly string[]).includes(current) ? ratios[current as Codec] : null;
  const zstd = ratios.zstd;
  const gain = zstd !== null && currentRatio !== null && currentRatio > 0 ? zstd / currentRatio : null;
  let gainUnknown: string | null = null;
  if (gain === null) {
    if (!comp) gainUnknown = c.sample.size === 0 ? 'no documents were sampled' : 'the sample was not measured';
    else if (zstd === null) gainUnknown = comp.unavailable?.zstd ?? 'zstd could not run here';
    else gainUnknown = comp.unavailable?.[current as Codec] ?? `the current compressor (${current}) could not run here`;
  }
  const dataAndIndexBytes = s.sizeBytes + s.totalIndexSizeBytes;
  const cacheBytes = server.cacheBytes;
  return {
    current,
    serverRatio,
    dataAndIndexBytes,
    cacheBytes,
    outgrowsCache: cacheBytes !== null && cacheBytes > 0 && dataAndIndexBytes > o.cacheShare * cacheBytes,
    ratios,
    currentRatio,
    gain,
    gainUnknown,
  };
}
