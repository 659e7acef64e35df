/**
 * Byte sizes of values as the driver or mongosh hands them back (BSON type names: src/lib/bson-types.ts). Types are
 * recognised by `_bsontype`, not instanceof, so values from either host's copy of the bson library work.
 */
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export function isPlainNumberInt32(v: number): boolean {
  return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX && !Object.is(v, -0);
}

/** Bytes of a UTF-8 string, counted without allocating (faster than Buffer.byteLength for short strings). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
      i++;
    } else n += 2;
  }
  return n;
}

/** Byte length of a cstring key "0".."n" (digits + NUL). */
export function indexKeyBytes(i: number): number {
  return i < 10 ? 2 : i < 100 ? 3 : i < 1000 ? 4 : i < 10000 ? 5 : i < 100000 ? 6 : String(i).length + 1;
}

export function binaryLength(v: {
  buffer?: { length?: number; byteLength?: number };
  position?: number;
  length?: () => number;
}): number {
  if (typeof v.position === 'number') return v.position;
  if (typeof v.length === 'function') return v.length();
  return v.buffer?.byteLength ?? v.buffer?.length ?? 0;
}

export function binarySubtype(v: unknown): number {
  const s = (v as { sub_type?: unknown; subType?: unknown }).sub_type ?? (v as { subType?: unknown }).subType;
  return typeof s === 'number' ? s : 0;
}

/** The bytes of a Binary as a Uint8Array (without copying where possible). */
export function binaryBytes(v: unknown): Uint8Array {
  const b = (v as { buffer?: unknown }).buffer;
  const len = binaryLength(v as never);
  if (b instanceof Uint8Array) return b.subarray(0, len);
  return new Uint8Array(0);
}

/** The 12 bytes of an ObjectId. */
export function objectIdBytes(v: unknown): Uint8Array {
  const o = v as { id?: unknown; toHexString?: () => string };
  if (o.id instanceof Uint8Array) return o.id;
  if (typeof o.toHexString === 'function') return Uint8Array.from(Buffer.from(o.toHexString(), 'hex'));
  return new Uint8Array(12);
}

/** Seconds since the epoch held in an ObjectId's first 4 bytes. */
export function objectIdSeconds(v: unknown): number {
  const b = objectIdBytes(v);
  return (((b[0] ?? 0) << 24) >>> 0) + ((b[1] ?? 0) << 16) + ((b[2] ?? 0) << 8) + (b[3] ?? 0);
}

export { isDate } from './bson-types';
