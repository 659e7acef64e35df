import { EJSON, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { reviveExtendedJson } from '../../src/workload/ejson';

describe('reviveExtendedJson', () => {
  it('turns type wrappers into BSON values as bson does, and leaves operators alone', () => {
    const text = JSON.stringify({
      _id: { $oid: '64b7f0c2a1b2c3d4e5f60718' },
      at: { $gte: { $date: '2025-01-01T00:00:00Z' } },
      n: { $in: [{ $numberLong: '5' }, 2] },
      name: { $regex: '^ab', $options: 'i' },
      re: { $regularExpression: { pattern: '^x', options: '' } },
    });
    const parsed = JSON.parse(text) as unknown;
    const got = reviveExtendedJson(parsed) as Record<string, Record<string, unknown>>;
    expect(got._id).toBeInstanceOf(ObjectId);
    expect(got.at?.$gte).toBeInstanceOf(Date);
    expect(got.n?.$in).toEqual([5, 2]);
    expect(got.name).toEqual({ $regex: '^ab', $options: 'i' });
    const theirs = EJSON.parse(text, { relaxed: true }) as Record<string, unknown>;
    expect(got.re).toEqual(theirs.re);
    expect(got._id).toEqual(theirs._id);
    expect(got).toBe(parsed); // revived in place, not copied
  });
});
