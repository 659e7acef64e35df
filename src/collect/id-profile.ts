import type { IdProfile, IdType } from '../core/types';
import { entropyBits, mean, percentile } from '../core/stats';
import { binaryBytes, binarySubtype, isDate, objectIdBytes, utf8Length } from './bson-size';

export interface IdShape {
  type: IdType;
  /** BSON bytes of the value. */
  size: number;
  /** The value's binary form, for leading-byte entropy only (never stored). */
  bytes: Uint8Array;
  uuidVersion?: number;
  /** A sort key that follows MongoDB's order within one type: [type order, number or string] (id-pattern ranks _ids by it). */
  order: [number, number | string];
}

const enc = new TextEncoder();

function numberBytes(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n);
  return b;
}

/** Classifies an _id value as the host returned it. */
export function idShape(v: unknown): IdShape {
  if (typeof v === 'string') return { type: 'string', size: 5 + utf8Length(v), bytes: enc.encode(v.slice(0, 16)), order: [2, v] };
  if (typeof v === 'number') {
    const int = Number.isInteger(v) && Math.abs(v) < 2 ** 31;
    return { type: int ? 'int' : 'double', size: int ? 4 : 8, bytes: numberBytes(v), order: [1, v] };
  }
  if (v && typeof v === 'object') {
    const t = (v as { _bsontype?: string })._bsontype;
    if (t === 'ObjectId' || t === 'ObjectID') {
      const b = objectIdBytes(v);
      return { type: 'objectId', size: 12, bytes: b, order: [7, Buffer.from(b).toString('hex')] };
    }
    if (t === 'Binary') {
      const b = binaryBytes(v);
      const sub = binarySubtype(v);
      const hex = Buffer.from(b).toString('hex');
      if ((sub === 4 || sub === 3) && b.length === 16) {
        return { type: 'uuid', size: 5 + 16, bytes: b, uuidVersion: (b[6] ?? 0) >> 4, order: [5, hex] };
      }
      return { type: 'binary', size: 5 + b.length, bytes: b, order: [5, `${b.length.toString(16).padStart(8, '0')}${hex}`] };
    }
    if (t === 'Long') {
      const n = Number((v as { toString(): string }).toString());
      return { type: 'long', size: 8, bytes: numberBytes(n), order: [1, n] };
    }
    if (t === 'Int32' || t === 'Double') {
      const n = Number((v as { value?: unknown }).value);
      return { type: t === 'Int32' ? 'int' : 'double', size: t === 'Int32' ? 4 : 8, bytes: numberBytes(n), order: [1, n] };
    }
    if (t === 'Decimal128') {
      const n = Number((v as { toString(): string }).toString());
      return { type: 'decimal', size: 16, bytes: numberBytes(n), order: [1, n] };
    }
    if (isDate(v)) return { type: 'date', size: 8, bytes: numberBytes(v.getTime()), order: [9, v.getTime()] };
    if (t === undefined) {
      const json = JSON.stringify(v) ?? '';
      return { type: 'object', size: 5 + utf8Length(json), bytes: enc.encode(json.slice(0, 16)), order: [3, json] };
    }
  }
  return { type: 'other', size: 8, bytes: new Uint8Array(0), order: [20, String(v)] };
}

const LEADING_BYTES = 4;

/** The _id profile of a sample: types, sizes, UUID versions and leading-byte entropy. No values kept. */
export function profileIds(sampledIds: readonly unknown[]): IdProfile {
  const types: Partial<Record<IdType, number>> = {};
  const uuidVersions: Record<string, number> = {};
  const sizes: number[] = [];
  const hist: Map<number, number>[] = Array.from({ length: LEADING_BYTES }, () => new Map<number, number>());
  for (const v of sampledIds) {
    const s = idShape(v);
    types[s.type] = (types[s.type] ?? 0) + 1;
    if (s.uuidVersion !== undefined) uuidVersions[String(s.uuidVersion)] = (uuidVersions[String(s.uuidVersion)] ?? 0) + 1;
    sizes.push(s.size);
    for (let i = 0; i < LEADING_BYTES && i < s.bytes.length; i++) {
      const h = hist[i] as Map<number, number>;
      const byte = s.bytes[i] as number;
      h.set(byte, (h.get(byte) ?? 0) + 1);
    }
  }
  return {
    types,
    uuidVersions,
    sizeBytes: { p50: sizes.length ? percentile(sizes, 50) : 0, max: sizes.length ? Math.max(...sizes) : 0, mean: sizes.length ? mean(sizes) : 0 },
    leadingByteEntropy: hist.map((h) => Math.round(entropyBits(h.values()) * 1000) / 1000),
  };
}
