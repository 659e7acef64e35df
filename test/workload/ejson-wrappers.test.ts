/**
 * The $oid and $date wrappers are made without bson's stringify and re-parse (src/workload/ejson.ts, issue 27's
 * throughput): each form must come out exactly as bson's EJSON makes it, and what the fast path does not take (other
 * forms, bad hex, extra keys) still goes through bson, errors included.
 */
import { EJSON } from 'bson';
import { describe, expect, it } from 'vitest';
import { reviveExtendedJson } from '../../src/workload/ejson';

const theirs = (v: unknown): unknown => EJSON.parse(JSON.stringify({ v }), { relaxed: true }) as unknown;
const ours = (v: unknown): unknown => reviveExtendedJson(JSON.parse(JSON.stringify({ v })) as unknown);

describe('the $oid and $date wrappers', () => {
  it('come out as bson makes them, in every form', () => {
    for (const v of [
      { $oid: '64b7f0c2a1b2c3d4e5f60718' },
      { $oid: '64B7F0C2A1B2C3D4E5F60718' },
      { $date: '2025-01-01T00:00:00Z' },
      { $date: '2025-01-01T00:00:00.123+02:00' },
      { $date: 'not a date' },
      { $date: 1735689600000 },
      { $date: { $numberLong: '1735689600000' } },
      [{ $date: '2024-02-29T12:00:00Z' }, { $oid: '000000000000000000000000' }],
    ]) {
      const got = ours(v) as { v: unknown };
      const want = theirs(v) as { v: unknown };
      expect(got.v, JSON.stringify(v)).toEqual(want.v);
      expect(Object.prototype.toString.call(got.v)).toBe(Object.prototype.toString.call(want.v));
    }
  });

  it('leaves to bson what is not the plain form: bad hex fails as it does there', () => {
    expect(() => ours({ $oid: 'xyz' })).toThrow();
    expect(() => theirs({ $oid: 'xyz' })).toThrow();
    const extra = { $date: '2025-01-01T00:00:00Z', other: 1 };
    expect(ours(extra)).toEqual(theirs(extra));
  });
});
