/*
 * What an `_id` value is, without keeping it: its BSON type, size, leading bytes and sort key. Shared by the core read
 * (src/collect/sample.ts chunks `_id` lists by size and orders them) and id-pattern's profiler
 * (rules/id-pattern/id-profile.ts), so it lives here rather than in either room.
 */
import type { IdType } from '../core/types';
import { binaryBytes, binarySubtype, isDate, objectIdBytes, utf8Length } from './bson-size';

export interface IdShape {
  type: IdType;
  /** BSON bytes of the value. */
  size: number;
  /** The value's binary form, for leading-byte entropy only (never stored). */
  bytes: Uint8Array;
  uuidVersion?: number;
  /** A string in the canonical UUID form (8-4-4-4-12 hex digits, RFC 9562 variant): `bytes` are the decoded 16
   * bytes. */
  uuidString?: boolean;
  /** A sort key that follows MongoDB's order within one type: [type order, number or string] (id-pattern ranks _ids by
   * it). */
  order: [number, number | string];
}

const enc = new TextEncoder();

function numberBytes(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n);
  return b;
}

/**
 * A UUID written as text: 36 characters, 8-4-4-4-12 hex digits, either case, with a version digit (1-8) and the RFC
 * 9562 variant (8, 9, a or b). Nothing looser (no braces, no bare 32 digits): those are not the form drivers and
 * mongosh print.
 */
const UUID_STRING = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The 16 bytes of a canonical UUID string (callers check UUID_STRING first). */
function uuidStringBytes(v: string): Uint8Array {
  return Uint8Array.from(Buffer.from(v.replace(/-/g, ''), 'hex'));
}

/** Classifies an _id value as the host returned it. */
export function idShape(v: unknown): IdShape {
  if (typeof v === 'string') {
    // A UUID stored as text is judged on the bytes it spells, not on its characters: hex digits carry 4 bits each, so
    // the characters' entropy reads half of the bytes' and a random UUID looked ordered.
    if (v.length === 36 && UUID_STRING.test(v)) {
      const bytes = uuidStringBytes(v);
      return {
        type: 'string',
        size: 5 + 36,
        bytes,
        uuidVersion: (bytes[6] ?? 0) >> 4,
        uuidString: true,
        order: [2, v],
      };
    }
    return { type: 'string', size: 5 + utf8Length(v), bytes: enc.encode(v.slice(0, 16)), order: [2, v] };
  }
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
      return {
        type: 'binary',
        size: 5 + b.length,
        bytes: b,
        order: [5, `${b.length.toString(16).padStart(8, '0')}${hex}`],
      };
    }
    if (t === 'Long') {
      const n = Number((v as { toString(): string }).toString());
      return { type: 'long', size: 8, bytes: numberBytes(n), order: [1, n] };
    }
    if (t === 'Int32' || t === 'Double') {
      const n = Number((v as { value?: unknown }).value);
      return {
        type: t === 'Int32' ? 'int' : 'double',
        size: t === 'Int32' ? 4 : 8,
        bytes: numberBytes(n),
        order: [1, n],
      };
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
