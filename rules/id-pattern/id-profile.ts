import type { FromSchema } from '../../src/core/from-schema';
import { idShape } from '../../src/lib/id-shape';
import { entropyBits, mean, percentile } from '../../src/core/stats';
import type { IdType } from '../../src/core/types';

const ID_TYPES = [
  'objectId',
  'uuid',
  'binary',
  'string',
  'int',
  'long',
  'double',
  'decimal',
  'date',
  'object',
  'other',
] as const satisfies readonly IdType[];

/**
 * The `_id` profile of a sample (id-pattern's collector `id-pattern/ids`): shapes and counts, never values. Its JSON
 * Schema, and {@link IdProfile} the type it describes: counts, sizes and entropies only.
 */
export const ID_PROFILE_SCHEMA = {
  type: 'object',
  required: ['types', 'uuidVersions', 'sizeBytes', 'leadingByteEntropy'],
  additionalProperties: false,
  properties: {
    types: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 }, propertyNames: { enum: ID_TYPES } },
    /** For UUIDs, binary or canonical strings alike: count per version (4 random, 7 time-ordered). */
    uuidVersions: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      propertyNames: { pattern: '^[0-9]{1,2}$' },
    },
    /**
     * String _ids in the canonical UUID form (36 characters, 8-4-4-4-12 hex, with a version and the RFC 9562
     * variant); their `leadingByteEntropy` is measured on the 16 bytes they spell.
     */
    uuidStrings: { type: 'integer', minimum: 0 },
    sizeBytes: {
      type: 'object',
      required: ['p50', 'max', 'mean'],
      additionalProperties: false,
      properties: { p50: { type: 'number' }, max: { type: 'number' }, mean: { type: 'number' } },
    },
    /** Shannon entropy in bits of each of the first bytes of the _id's binary form, over the sample. */
    leadingByteEntropy: { type: 'array', maxItems: 16, items: { type: 'number', minimum: 0, maximum: 8 } },
  },
} as const;

export type IdProfile = FromSchema<typeof ID_PROFILE_SCHEMA>;

const LEADING_BYTES = 4;

/**
 * The _id profile of a sample: types, sizes, UUID versions (binary and canonical strings alike), how many strings are
 * UUIDs, and leading-byte entropy (of the decoded bytes, for UUID strings). No values kept.
 */
export function profileIds(sampledIds: readonly unknown[]): IdProfile {
  const types: Partial<Record<IdType, number>> = {};
  const uuidVersions: Record<string, number> = {};
  let uuidStrings = 0;
  const sizes: number[] = [];
  const hist: Map<number, number>[] = Array.from({ length: LEADING_BYTES }, () => new Map<number, number>());
  for (const v of sampledIds) {
    const s = idShape(v);
    types[s.type] = (types[s.type] ?? 0) + 1;
    if (s.uuidVersion !== undefined)
      uuidVersions[String(s.uuidVersion)] = (uuidVersions[String(s.uuidVersion)] ?? 0) + 1;
    if (s.uuidString) uuidStrings++;
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
    uuidStrings,
    sizeBytes: {
      p50: sizes.length ? percentile(sizes, 50) : 0,
      max: sizes.length ? Math.max(...sizes) : 0,
      mean: sizes.length ? mean(sizes) : 0,
    },
    leadingByteEntropy: hist.map((h) => Math.round(entropyBits(h.values()) * 1000) / 1000),
  };
}
