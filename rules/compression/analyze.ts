import { ROUTER_HAS_NO_STORAGE, isRouter } from '../../src/collect/server-status';
import { gapOf, noWiredTiger } from '../../src/core/gaps';
import { dataOf } from '../../src/core/collector';
import type { CollectionSnapshot, Gap, ServerInfo, Snapshot } from '../../src/core/types';
import { type Compressibility, compressibility } from './collect';
import type { CompressionOptions } from './options';
import { versionAtLeast } from '../../src/lib/version';

export type Codec = 'snappy' | 'zlib' | 'zstd';
const CODECS: readonly Codec[] = ['snappy', 'zlib', 'zstd'];

export interface CompressionStats {
  current: string;
  /** Uncompressed bytes over bytes on disk, as the server reports them (size / storageSize). */
  serverRatio: number | null;
  /** Reusable bytes left out of serverRatio (freeStorageSize); null when the server did not report them. */
  freeBytes: number | null;
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
  return versionAtLeast(server.versionArray, 4, 2);
}

/** Compression facts for one collection; null when it has no WiredTiger block compressor to judge. */
export function compressionStats(
  c: CollectionSnapshot,
  server: ServerInfo,
  o: CompressionOptions,
): CompressionStats | null {
  const s = c.stats;
  if (!s || !s.blockCompressor || s.count === 0) return null;
  const current = s.blockCompressor;
  const comp = dataOf(compressibility, c);
  const ratios = Object.fromEntries(CODECS.map((k) => [k, ratioOf(comp, k)])) as Record<Codec, number | null>;
  // Space WiredTiger can reuse (freeStorageSize, 4.4+) sits inside storageSize but holds no data: left out of the
  // ratio.
  const free =
    s.freeStorageSizeBytes !== undefined && s.freeStorageSizeBytes < s.storageSizeBytes ? s.freeStorageSizeBytes : null;
  const used = s.storageSizeBytes - (free ?? 0);
  const serverRatio = used > 0 ? s.sizeBytes / used : null;
  const currentRatio =
    current === 'none' ? 1 : (CODECS as readonly string[]).includes(current) ? ratios[current as Codec] : null;
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
    freeBytes: free,
    dataAndIndexBytes,
    cacheBytes,
    outgrowsCache: cacheBytes !== null && cacheBytes > 0 && dataAndIndexBytes > o.cacheShare * cacheBytes,
    ratios,
    currentRatio,
    gain,
    gainUnknown,
  };
}

const MAX_NAMES = 5;

/**
 * What keeps the rule from advising, once per snapshot: block compressors do not apply to this server, or the
 * compressor of some collections could not be read, or the cache size is unknown. Decided by what $collStats
 * returned (a WiredTiger creationString naming the block_compressor), not by the engine's name: a server may name
 * wiredTiger and still not report it. Messages without the runner's "compression: " prefix.
 */
export function supportNotes(snapshot: Snapshot): { message: string; level: 'skipped' | 'info'; gap?: Gap }[] {
  const { server } = snapshot;
  const notes: { message: string; level: 'skipped' | 'info' }[] = [];
  // collections whose $collStats answered and counted documents: those a block compressor applies to
  const withDocs = snapshot.databases
    .flatMap((d) => d.collections)
    .filter((c) => c.type === 'collection' && c.stats !== null && c.stats.count > 0);
  const read = withDocs.filter((c) => c.stats?.blockCompressor);
  const unread = withDocs.filter((c) => !c.stats?.blockCompressor);
  const still = (cs: readonly CollectionSnapshot[]): string =>
    cs.some((c) => dataOf(compressibility, c))
      ? " (the sample's compressibility was still measured and is in the snapshot)"
      : '';
  const otherEngine =
    server.flavor === 'ferretdb' || (server.storageEngine !== null && server.storageEngine !== 'wiredTiger');
  // A mongos names no storage engine (it stores nothing); its $collStats rows are the shards' own and say the
  // compressor.
  const router = isRouter(server);
  if (otherEngine || (server.storageEngine === null && read.length === 0 && !router)) {
    const engine =
      server.flavor === 'ferretdb'
        ? 'FerretDB, which has no WiredTiger'
        : `storage engine ${server.storageEngine ?? 'not reported (serverStatus unreadable)'}`;
    const message =
      `block compressors (snappy, zlib, zstd) are WiredTiger settings and this server runs ${engine}; ` +
      `no compression advice${still(withDocs)}`;
    const none = noWiredTiger(server);
    const gap = none ? { gap: gapOf(none, `the block compressor${still(withDocs)}`) } : {};
    return [{ level: 'skipped', message, ...gap }];
  }
  if (unread.length > 0) {
    const names =
      unread
        .slice(0, MAX_NAMES)
        .map((c) => `${c.db}.${c.name}`)
        .join(', ') + (unread.length > MAX_NAMES ? ', …' : '');
    const which =
      unread.length === withDocs.length
        ? `${withDocs.length === 1 ? 'the one collection' : `any of the ${withDocs.length} collections`} with ` +
          `documents (${names})`
        : `${unread.length} of ${withDocs.length} collections with documents (${names})`;
    const engine = server.storageEngine === 'wiredTiger' ? 'the server reports storage engine wiredTiger but ' : '';
    notes.push({
      level: 'skipped',
      message:
        `${engine}$collStats returned no wiredTiger.creationString for ${which}, so the block compressor ` +
        `could not be read; no compression advice for ${unread.length === 1 ? 'it' : 'them'}${still(unread)}`,
    });
  }
  if (read.length > 0 && server.cacheBytes === null) {
    const why = router
      ? ROUTER_HAS_NO_STORAGE
      : server.storageEngine === null
        ? 'serverStatus could not be read (it needs the clusterMonitor role)'
        : 'serverStatus has no wiredTiger.cache["maximum bytes configured"]';
    // A remark, not a gap: the ratios are still judged.
    notes.push({
      level: 'info',
      message: `${why}, so the WiredTiger cache size is unknown; compression is judged on ratios alone`,
    });
  }
  return notes;
}
