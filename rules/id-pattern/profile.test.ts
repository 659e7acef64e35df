import { randomBytes, randomUUID } from 'node:crypto';
import { Binary, ObjectId, UUID } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { idShape } from '../../src/lib/id-shape';
import { resolveOptions } from '../../src/core/options';
import { collectionOf, sampleOf } from '../../test/support/fixtures';
import { idPatternStats } from './analyze';
import { naturalOrderRanks } from './collect';
import { profileIds } from './id-profile';
import { uuid4Hex, uuid7Hex } from './confirm';
import { type IdPatternOptions, idPatternOptionsSchema } from './index';

const options = resolveOptions<IdPatternOptions>('id-pattern', idPatternOptionsSchema);
const canonical = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The rule's verdict on _ids as collect reads them: profiled, then read in `natural` order (a permutation of them). */
function verdict(ids: unknown[], natural: unknown[] = ids) {
  const c = collectionOf('c', { sample: sampleOf([], { size: ids.length, requested: ids.length }) });
  return idPatternStats(c, profileIds(ids), { ranks: naturalOrderRanks(natural), source: 'natural-scan' }, options);
}

function shuffle<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
  return a;
}

describe('id profile: UUIDs written as strings', () => {
  it(
    'recognises canonical UUID strings with a version and the RFC 9562 variant, either case, and nothing ' + 'looser',
    () => {
      const v4 = randomUUID();
      expect(idShape(v4)).toMatchObject({ type: 'string', size: 41, uuidString: true, uuidVersion: 4 });
      expect(Buffer.from(idShape(v4).bytes).toString('hex')).toBe(v4.replace(/-/g, ''));
      expect(idShape(v4.toUpperCase())).toMatchObject({ uuidString: true, uuidVersion: 4 });
      expect(idShape(canonical(uuid7Hex(1_700_000_000_000, 1)))).toMatchObject({ uuidString: true, uuidVersion: 7 });
      for (const loose of [
        v4.replace(/-/g, ''),
        `{${v4}}`,
        '00000000-0000-0000-0000-000000000000',
        `${v4.slice(0, 19)}c${v4.slice(20)}`,
        'not-a-uuid-at-all-but-36-characters!',
        `${v4} `,
      ]) {
        expect(idShape(loose).uuidString, loose).toBeUndefined();
      }
    },
  );

  it('counts them and measures the entropy of the bytes they spell, not of their hex digits', () => {
    const strings = Array.from({ length: 200 }, () => randomUUID());
    const p = profileIds(strings);
    expect(p).toMatchObject({
      types: { string: 200 },
      uuidStrings: 200,
      uuidVersions: { '4': 200 },
      sizeBytes: { p50: 41, max: 41 },
    });
    // hex digits hold 4 bits each: the characters could never show more than 4 bits; 200 random bytes show ~7
    expect(p.leadingByteEntropy[0]).toBeGreaterThan(6.5);
    const binary = profileIds(strings.map((s) => new UUID(s)));
    expect(binary.uuidStrings).toBe(0);
    expect(binary.types).toEqual({ uuid: 200 });
    expect(profileIds(['a', 'b', strings[0]]).uuidStrings).toBe(1);
    // the profile keeps counts and entropies, never a value
    expect(JSON.stringify(p)).not.toMatch(/[0-9a-f]{8}-/);
  });
});

describe('id-pattern verdicts: UUIDs by their version and bytes, never by chance order', () => {
  // The old flake: 20-50 random _ids correlate with insertion order by chance, and the verdict followed ρ. Judged by
  // version and bytes, every run is the same verdict, whatever the order the sample happened to be read in.
  it('random v4 UUIDs, binary or string, are random in every one of 200 samples of 20, in any natural order', () => {
    for (let run = 0; run < 200; run++) {
      const hex = Array.from({ length: 20 }, () => uuid4Hex());
      const binary = hex.map((h) => new UUID(h));
      const strings = hex.map(canonical);
      // the natural order read is the sorted order half the time: the worst case for a correlation
      const natural =
        run % 2 === 0 ? [...binary].sort((a, b) => a.toHexString().localeCompare(b.toHexString())) : shuffle(binary);
      const b = verdict(binary, natural);
      expect(b?.order, `run ${run}`).toBe('random');
      expect(b?.basis).toBe('uuid-version');
      const s = verdict(strings, run % 2 === 0 ? [...strings].sort() : shuffle(strings));
      expect(s?.order, `run ${run}`).toBe('random');
      expect(s).toMatchObject({ uuidAsString: true, uuidVersion: 4, label: 'UUID v4 string' });
    }
  });

  it('v7 UUIDs are time-ordered by their version, even read in a shuffled order', () => {
    const t0 = 1_700_000_000_000;
    const hex = Array.from({ length: 200 }, (_, i) => uuid7Hex(t0 + i * 60_000, 0));
    const v7 = hex.map((h) => new UUID(h));
    expect(verdict(v7, shuffle(v7))).toMatchObject({
      order: 'monotonic',
      basis: 'uuid-version',
      uuidVersion: 7,
      label: 'UUID v7',
    });
    const strings = hex.map(canonical);
    expect(verdict(strings, shuffle(strings))).toMatchObject({
      order: 'monotonic',
      basis: 'uuid-version',
      uuidAsString: true,
    });
  });

  it('a "v4" whose leading bytes are a sequence is not called random: it falls back to the order', () => {
    const seq = Array.from({ length: 200 }, (_, i) => {
      const b = randomBytes(16);
      b.writeUInt32BE(1_000 + i, 0);
      b.writeUInt16BE(0, 4);
      b[6] = 0x40 | ((b[6] as number) & 0x0f);
      b[8] = 0x80 | ((b[8] as number) & 0x3f);
      return new Binary(b, 4);
    });
    expect(verdict(seq)).toMatchObject({ order: 'monotonic', basis: 'natural-order' });
  });

  it('ObjectIds are judged by their order: monotonic when inserted in order', () => {
    const oids = Array.from({ length: 100 }, (_, i) => ObjectId.createFromTime(1_700_000_000 + i));
    expect(verdict(oids)).toMatchObject({ order: 'monotonic', basis: 'natural-order', label: 'ObjectId' });
  });
});
