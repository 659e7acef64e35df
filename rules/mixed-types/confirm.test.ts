/** The mixed-types experiment's pure parts: each value's type family and its form in the other type. */
import { Decimal128, Double, Int32, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { asFamily, familyOf } from './confirm';

const oid = (hex: string): ObjectId => new ObjectId(hex);

describe('mixed-types confirmation (pure)', () => {
  it('tells the families apart as the driver hands values over', () => {
    expect([' 12', 7, 7n, new Int32(1), new Double(1.5), Long.fromNumber(3), Decimal128.fromString('1.1'), new ObjectId(), null, true, new Date(0)].map(familyOf)).toEqual([
      'string',
      'number',
      'number',
      'number',
      'number',
      'number',
      'number',
      'objectId',
      null,
      null,
      null,
    ]);
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
});
