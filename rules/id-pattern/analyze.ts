import type { CollectionSnapshot, IdProfile, IdType } from '../../src/core/types';
import { spearmanWithPosition } from '../../src/core/stats';
import type { NaturalOrder } from './collect';
import type { IdPatternOptions } from './index';

export type IdOrder = 'monotonic' | 'random' | 'unclear' | 'unknown';

export interface IdPatternStats {
  label: string;
  mainType: IdType;
  mixed: { type: IdType; share: number }[];
  /** BSON bytes of the _id value (median). */
  idBytes: number;
  monotonicity: number | null;
  /** _ids read in natural order behind `monotonicity` (0 when none were read). */
  naturalOrderIds: number;
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

function idLabel(p: IdProfile, main: IdType): string {
  if (main !== 'uuid') return LABELS[main];
  const versions = Object.entries(p.uuidVersions).sort((a, b) => b[1] - a[1]);
  const v = versions[0]?.[0];
  return v ? `UUID v${v}` : 'UUID';
}

/** The _id facts of a collection: its sample's _id profile and, on a regular collection, the _ids' natural order. */
export function idPatternStats(c: CollectionSnapshot, natural: NaturalOrder | undefined, o: IdPatternOptions): IdPatternStats | null {
  const p = c.sample.id;
  if (!p) return null;
  const counts = Object.entries(p.types) as [IdType, number][];
  const total = counts.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  counts.sort((a, b) => b[1] - a[1]);
  const mainType = (counts[0] as [IdType, number])[0];
  // A clustered collection stores its documents in _id order, so its natural order is the _id order (rho would read 1
  // whatever the insertion order was): there, only the leading bytes can tell a random _id.
  const ranks = c.clustered ? [] : (natural?.ranks ?? []);
  const rho = ranks.length >= o.minSample ? spearmanWithPosition(ranks) : null;
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
    naturalOrderIds: ranks.length,
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

/** The estimated growth of the secondary indexes against what they take today, in words (for a recommendation's reason). */
export function penaltyInWords(p: ReturnType<typeof secondaryIndexPenalty>, formatBytes: (n: number) => string): string {
  if (p.secondaryIndexes === 0) return 'the collection has no secondary index today, so none would grow';
  const n = `${p.secondaryIndexes} secondary ${p.secondaryIndexes === 1 ? 'index' : 'indexes'}`;
  if (p.currentBytes === null) return `about ${formatBytes(p.extraBytes)} more in its ${n}; the server reported no size for them, so the share is unknown`;
  return `about ${formatBytes(p.extraBytes)} more in its ${n}: ${Math.round((p.extraBytes / p.currentBytes) * 100)}% of today's ${formatBytes(p.currentBytes)}`;
}
