import type { CollectionSnapshot, IdProfile, IdType } from '../../src/core/types';
import { spearmanWithPosition } from '../../src/core/stats';

export interface IdPatternOptions extends Record<string, unknown> {
  monotonicThreshold: number;
  randomThreshold: number;
  randomEntropyShare: number;
  smallIdBytes: number;
  minSample: number;
  recordIdBytes: number;
}

export type IdOrder = 'monotonic' | 'random' | 'unclear' | 'unknown';

export interface IdPatternStats {
  label: string;
  mainType: IdType;
  mixed: { type: IdType; share: number }[];
  /** BSON bytes of the _id value (median). */
  idBytes: number;
  monotonicity: number | null;
  /** Entropy of the first byte, as a share of the most the sample could show (0..1). */
  leadingEntropyShare: number | null;
  order: IdOrder;
  sampleSize: number;
}

const LABELS: Record<IdType, string> = {
  objectId: 'ObjectId',
  uuid: 'UUID',
  binary: 'binary',
  string: 'string',
  int: '32-bit integer',
  long: '64-bit integer',
  double: 'double',
  decimal: 'decimal',
  date: 'date',
  object: 'embedded document',
  other: 'other',
};

export function idLabel(p: IdProfile, main: IdType): string {
  if (main !== 'uuid') return LABELS[main];
  const versions = Object.entries(p.uuidVersions).sort((a, b) => b[1] - a[1]);
  const v = versions[0]?.[0];
  return v ? `UUID v${v}` : 'UUID';
}

export function idPatternStats(c: CollectionSnapshot, o: IdPatternOptions): IdPatternStats | null {
  const p = c.sample.id;
  if (!p) return null;
  const counts = Object.entries(p.types) as [IdType, number][];
  const total = counts.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  counts.sort((a, b) => b[1] - a[1]);
  const mainType = (counts[0] as [IdType, number])[0];
  // A clustered collection stores its documents in _id order, so its natural order is the _id order (rho would read 1
  // whatever the insertion order was): there, only the leading bytes can tell a random _id.
  const rho = !c.clustered && p.naturalOrderRanks.length >= o.minSample ? spearmanWithPosition(p.naturalOrderRanks) : null;
  const maxBits = Math.min(8, Math.log2(Math.max(2, total)));
  const first = p.leadingByteEntropy[0];
  const entropyShare = first === undefined ? null : first / maxBits;
  let order: IdOrder = 'unknown';
  if (rho !== null && Number.isFinite(rho)) {
    if (rho >= o.monotonicThreshold) order = 'monotonic';
    else if (Math.abs(rho) < o.randomThreshold && (entropyShare === null || entropyShare >= o.randomEntropyShare)) order = 'random';
    else order = 'unclear';
  } else if (entropyShare !== null && total >= o.minSample) {
    order = entropyShare >= o.randomEntropyShare ? 'random' : 'unknown';
  }
  return {
    label: idLabel(p, mainType),
    mainType,
    mixed: counts.length > 1 ? counts.map(([type, n]) => ({ type, share: n / total })) : [],
    idBytes: p.sizeBytes.p50,
    monotonicity: rho === null || !Number.isFinite(rho) ? null : rho,
    leadingEntropyShare: entropyShare,
    order,
    sampleSize: total,
  };
}

/**
 * Extra bytes secondary indexes would carry if entries held the _id instead of an 8-byte recordId.
 * `currentBytes` is null when the server reported no size (or 0 bytes) for any secondary index of a collection that
 * holds documents: those sizes were not measured, and are not 0.
 */
export function secondaryIndexPenalty(c: CollectionSnapshot, idBytes: number, recordIdBytes: number): { entries: number; extraBytes: number; currentBytes: number | null; secondaryIndexes: number } {
  const count = c.stats?.count ?? 0;
  const secondary = c.indexes.filter((i) => i.name !== '_id_');
  const perEntry = idBytes - recordIdBytes;
  const unmeasured = count > 0 && secondary.some((i) => i.sizeBytes === null || i.sizeBytes === 0);
  const currentBytes = unmeasured ? null : secondary.reduce((s, i) => s + (i.sizeBytes ?? 0), 0);
  return { entries: count * secondary.length, extraBytes: Math.max(0, perEntry) * count * secondary.length, currentBytes, secondaryIndexes: secondary.length };
}

/** How today's secondary index bytes compare with the estimated growth, in words. */
export function penaltyShare(p: ReturnType<typeof secondaryIndexPenalty>, formatBytes: (n: number) => string): string {
  if (p.secondaryIndexes === 0) return 'no secondary indexes today';
  const n = `${p.secondaryIndexes} secondary ${p.secondaryIndexes === 1 ? 'index' : 'indexes'}`;
  if (p.currentBytes === null) return `${n} today; the server reported no size for them, so the share is unknown`;
  return `${Math.round((p.extraBytes / p.currentBytes) * 100)}% of today's ${formatBytes(p.currentBytes)} in ${n}`;
}
