/** The mixed-types experiment's pure parts: each value's type family and its form in the other type. */
import { Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { collectionOf, sampleOf } from '../../test/support/fixtures';
import { asFamily, familyOf, whyNoQuery } from './confirm';

const oid = (hex: string): ObjectId => new ObjectId(hex);

describe('mixed-types confirmation (pure)', () => {
  it('tells the families apart as the driver hands values over', () => {
    expect(
      [
        ' 12',
        7,
        7n,
        new Int32(1),
        new Double(1.5),
        Long.fromNumber(3),
        Decimal128.fromString('1.1'),
        new ObjectId(),
        null,
        true,
        new Date(0),
      ].map(familyOf),
    ).toEqual(['string', 'number', 'number', 'number', 'number', 'number', 'number', 'objectId', null, null, null]);
  });

  it('writes a value as the other type would hold it, or null when it does not convert', () => {
    const hex = '65f0c0ffee0000000000beef';
    expect(String(asFamily(hex, 'objectId', oid))).toBe(hex);
    expect(asFamily('not-an-id', 'objectId', oid)).toBeNull();
    expect(asFamily(' 12.5 ', 'number', oid)).toBe(12.5);
    expect(asFamily('n/a', 'number', oid)).toBeNull();
    expect(asFamily(new ObjectId(hex), 'string', oid)).toBe(hex);
    expect(asFamily(new Int32(42), 'string', oid)).toBe('42');
    expect(asFamily(5, 'number', oid)).toBe(5);
    expect(asFamily(true, 'string', oid)).toBeNull();
  });

  it('names a key holding a dot or starting with `$` with $getField from 5.0; before, says why it cannot', () => {
    const fields = { a: { present: 10, types: { array: 10 } }, 'a.b': { present: 10, types: { int: 10 } } };
    const c = collectionOf('orders', { sample: sampleOf([], { size: 10, fields }) });
    expect(whyNoQuery([5, 0, 0], c, '"a.b"')).toBeNull();
    expect(whyNoQuery([7, 0, 12], c, 'x.$in')).toBeNull();
    const older = /only `\$getField` \(MongoDB 5\.0\) can name, and this server is older/;
    expect(whyNoQuery([4, 4, 18], c, '"a.b"')).toMatch(older);
    expect(whyNoQuery([4, 4, 18], c, 'price')).toBeNull();
    expect(whyNoQuery([8, 0, 0], c, 'a.b')).toMatch(/sits in an array/);
  });
});
