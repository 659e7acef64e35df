import type { CollectionSnapshot, IdType } from '../../src/core/types';
import { spearmanWithPosition } from '../../src/core/stats';
import { isIdIndex } from '../../src/lib/index-keys';
import type { NaturalOrder } from './collect';
import type { IdProfile } from './id-profile';
import type { IdPatternOptions } from './options';

export type IdOrder = 'monotonic' | 'random' | 'unclear' | 'unknown';
/**
 * What the order was judged from: a UUID's version digit (confirmed by its leading bytes' entropy), the correlation of
 * `_id` order with natural (insertion) order, the leading bytes alone, or nothing.
 */
export type OrderBasis = 'uuid-version' | 'natural-order' | 'leading-bytes' | 'none';

export interface IdPatternStats {
  label: string;
  mainType: IdType;
  mixed: { type: IdType; share: number }[];
  /** Every sampled _id is a string in the canonical UUID form. */
  uuidAsString: boolean;
  /** The one UUID version every sampled UUID carries (binary or string), else null. */
  uuidVersion: number | null;
  /** BSON bytes of the _id value (median). */
  idBytes: number;
  monotonicity: number | null;
  /** _ids read in natural order behind `monotonicity` (0 when none were read). */
  naturalOrderIds: number;
  /** Entropy of the first byte, as a share of the most the sample could show (0..1). */
  leadingEntropyShare: number | null;
  order: IdOrder;
  basis: OrderBasis;
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

/** A type's name in a finding; string _ids that are all UUIDs read `UUID string`. */
export function typeLabel(p: IdProfile, type: IdType): string {
  if (type === 'string' && (p.uuidStrings ?? 0) > 0 && p.uuidStrings === p.types.string) return 'UUID string';
  return LABELS[type];
}

function idLabel(p: IdProfile, main: IdType, asString: boolean): string {
  if (main !== 'uuid' && !asString) return LABELS[main];
  const versions = Object.entries(p.uuidVersions).sort((a, b) => b[1] - a[1]);
  const v = versions[0]?.[0];
  const name = v ? `UUID v${v}` : 'UUID';
  return asString ? `${name} string` : name;
}

/** UUID versions whose leading bytes are a timestamp, most significant first (RFC 9562): they sort by creation time. */
const TIME_ORDERED_UUID = new Set([6, 7]);

/**
 * The _id facts of a collection: its sample's _id profile and, on a regular collection, the _ids' natural order.
 *
 * UUIDs (binary, or canonical strings decoded to their bytes) are judged by their version: v4 is random, v6 and v7 lead
 * with a timestamp and are time-ordered (RFC 9562) — each confirmed by the leading byte's entropy once the sample is
 * large enough to measure it (a "v4" whose bytes are not random, e.g. a sequential GUID with the version digit set,
 * falls through to the order correlation). v1 is time-based but starts with the low bits of its timestamp, which wrap
 * every ~7 minutes (not byte-ordered): it is judged like any other _id. The correlation with natural order is never the
 * basis for a UUID of one known version: 20-50 sampled random ids correlate with insertion order by chance often enough
 * to flip a verdict.
 */
export function idPatternStats(
  c: CollectionSnapshot,
  p: IdProfile | undefined,
  natural: NaturalOrder | undefined,
  o: IdPatternOptions,
): IdPatternStats | null {
  if (!p) return null;
  const counts = Object.entries(p.types) as [IdType, number][];
  const total = counts.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  counts.sort((a, b) => b[1] - a[1]);
  const mainType = (counts[0] as [IdType, number])[0];
  const uuidAsString = counts.length === 1 && mainType === 'string' && p.uuidStrings === total;
  const versions = Object.keys(p.uuidVersions).filter((v) => (p.uuidVersions[v] ?? 0) > 0);
  const uuidVersion = (mainType === 'uuid' || uuidAsString) && versions.length === 1 ? Number(versions[0]) : null;
  // A clustered collection stores its documents in _id order, so its natural order is the _id order (rho would read 1
  // whatever the insertion order was): there, only the version and the leading bytes can tell a random _id.
  const ranks = c.clustered ? [] : (natural?.ranks ?? []);
  const rho = ranks.length >= o.minSample ? spearmanWithPosition(ranks) : null;
  const maxBits = Math.min(8, Math.log2(Math.max(2, total)));
  const first = p.leadingByteEntropy[0];
  const entropyShare = first === undefined ? null : first / maxBits;
  // below minSample the entropy cannot be measured well: the version digit alone decides
  const measured = entropyShare !== null && total >= o.minSample;
  const randomBytes = entropyShare !== null && measured && entropyShare >= o.randomEntropyShare;
  let order: IdOrder = 'unknown';
  let basis: OrderBasis = 'none';
  if (uuidVersion === 4 && (!measured || randomBytes)) {
    order = 'random';
    basis = 'uuid-version';
  } else if (uuidVersion !== null && TIME_ORDERED_UUID.has(uuidVersion) && !randomBytes) {
    order = 'monotonic';
    basis = 'uuid-version';
  } else if (rho !== null && Number.isFinite(rho)) {
    basis = 'natural-order';
    if (rho >= o.monotonicThreshold) order = 'monotonic';
    else if (Math.abs(rho) < o.randomThreshold && (entropyShare === null || entropyShare >= o.randomEntropyShare))
      order = 'random';
    else order = 'unclear';
  } else if (measured) {
    basis = 'leading-bytes';
    order = randomBytes ? 'random' : 'unknown';
  }
  return {
    label: idLabel(p, mainType, uuidAsString),
    mainType,
    mixed: counts.length > 1 ? counts.map(([type, n]) => ({ type, share: n / total })) : [],
    uuidAsString,
    uuidVersion,
    idBytes: p.sizeBytes.p50,
    monotonicity: rho === null || !Number.isFinite(rho) ? null : rho,
    naturalOrderIds: ranks.length,
    leadingEntropyShare: entropyShare,
    order,
    basis,
    sampleSize: total,
  };
}

/** Bytes of the _id's value alone (what an index key or a secondary index entry of a clustered collection holds). */
export function idValueBytes(s: IdPatternStats): number {
  if (s.mainType === 'uuid') return 16;
  if (s.mainType === 'string') return Math.max(0, s.idBytes - 5);
  return s.idBytes;
}

/** BSON bytes of a UUID value: a canonical string (int32 length, 36 characters, NUL) and binary subtype 4 (int32
 * length, subtype, 16 bytes). */
export const UUID_STRING_BSON_BYTES = 4 + 36 + 1;
export const UUID_BINARY_BSON_BYTES = 4 + 1 + 16;
/** Key bytes an index entry holding the _id saves: 36 characters against 16 bytes. */
export const UUID_KEY_SAVING = 36 - 16;

export interface UuidSavings {
  documents: number | null;
  /** Bytes saved in the documents: the value, per document. */
  documentBytes: number | null;
  /** The indexes whose entries hold the _id: `_id_` and any secondary index naming `_id` (regular); every index
   * (clustered). */
  indexes: string[];
  indexEntries: number | null;
  indexBytes: number | null;
}

/**
 * What storing string UUIDs as binary saves, from the collection's document count and indexes. A regular collection's
 * secondary index entries point at the record by its recordId, not the _id (MongoDB manual, clustered collections), so
 * only the `_id` index and indexes that name `_id` in their key hold it; a clustered collection keys its records by
 * `_id` and every secondary index entry holds it. At least one entry per document per index (multikey indexes hold
 * more).
 */
export function uuidSavings(c: CollectionSnapshot): UuidSavings {
  const count = c.stats?.count ?? null;
  const indexes = c.indexes
    .filter((i) => c.clustered || i.name === '_id_' || Object.keys(i.key).includes('_id'))
    .map((i) => i.name);
  if (!c.clustered && !indexes.includes('_id_')) indexes.unshift('_id_');
  const perValue = UUID_STRING_BSON_BYTES - UUID_BINARY_BSON_BYTES;
  return {
    documents: count,
    documentBytes: count === null ? null : count * perValue,
    indexes,
    indexEntries: count === null ? null : count * indexes.length,
    indexBytes: count === null ? null : count * indexes.length * UUID_KEY_SAVING,
  };
}

/** A date field a secondary index leads with (most sampled values at the path are dates), or null. */
export interface TimeIndex {
  index: string;
  field: string;
  ttl: boolean;
}

/**
 * The evidence of time-ordered access the snapshot holds: a TTL index, or a secondary index that leads with a date
 * field of the sample. `_id` range use itself cannot be read: `$indexStats` counts accesses to `_id_` without saying
 * whether they were ranges, and the advisor reads neither the profiler nor `$queryStats`.
 */
export function timeIndex(c: CollectionSnapshot): TimeIndex | null {
  const candidates: TimeIndex[] = [];
  for (const i of c.indexes) {
    if (isIdIndex(c, i)) continue;
    const field = Object.keys(i.key)[0];
    if (!field || field === '_id') continue;
    const f = c.sample.fields[field];
    const dates = f?.types.date ?? 0;
    const ttl = i.expireAfterSeconds !== undefined;
    // a TTL index only ever expires documents by a date: it is time-ordered access whatever the sample shows
    if (ttl || (f && f.present > 0 && dates / f.present >= 0.5)) candidates.push({ index: i.name, field, ttl });
  }
  return candidates.find((x) => x.ttl) ?? candidates[0] ?? null;
}

/**
 * Extra bytes secondary indexes would carry if entries held the _id instead of an 8-byte recordId.
 * `currentBytes` is null when the server reported no size (or 0 bytes) for any secondary index of a collection that
 * holds documents: those sizes were not measured, and are not 0.
 */
export function secondaryIndexPenalty(
  c: CollectionSnapshot,
  idBytes: number,
  recordIdBytes: number,
): { entries: number; extraBytes: number; currentBytes: number | null; secondaryIndexes: number } {
  const count = c.stats?.count ?? 0;
  const secondary = c.indexes.filter((i) => !isIdIndex(c, i));
  const perEntry = idBytes - recordIdBytes;
  const unmeasured = count > 0 && secondary.some((i) => i.sizeBytes === null || i.sizeBytes === 0);
  const currentBytes = unmeasured ? null : secondary.reduce((s, i) => s + (i.sizeBytes ?? 0), 0);
  return {
    entries: count * secondary.length,
    extraBytes: Math.max(0, perEntry) * count * secondary.length,
    currentBytes,
    secondaryIndexes: secondary.length,
  };
}

/** The estimated growth of the secondary indexes against what they take today, in words (for a recommendation's
 * reason). */
export function penaltyInWords(
  p: ReturnType<typeof secondaryIndexPenalty>,
  formatBytes: (n: number) => string,
): string {
  if (p.secondaryIndexes === 0) return 'the collection has no secondary index today, so none would grow';
  const n = `${p.secondaryIndexes} secondary ${p.secondaryIndexes === 1 ? 'index' : 'indexes'}`;
  if (p.currentBytes === null)
    return (
      `about ${formatBytes(p.extraBytes)} more in its ${n}; the server reported no size for them, so the ` +
      `share is unknown`
    );
  return (
    `about ${formatBytes(p.extraBytes)} more in ` +
    `its ${n}: ${Math.round((p.extraBytes / p.currentBytes) * 100)}% of today's ${formatBytes(p.currentBytes)}`
  );
}
