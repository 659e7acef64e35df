/**
 * Shape ids are looked up by a key of the shape's body (src/workload/shape.ts `bodyKey`, issue 27's throughput), not
 * recomputed per command: every id must still be `shapeHash(canonical(body))`, and two bodies that differ in any one
 * part (each run here right after the other, so a shared key would hand the second the first's id) get their own.
 */
import { describe, expect, it } from 'vitest';
import { canonical, type QueryShape, shapeHash, shapesOf } from '../../src/workload/shape';

const idOf = (s: QueryShape): string => {
  const { id: _id, ...body } = s;
  return shapeHash(canonical(body));
};

/** Pairs of commands whose shapes differ in one part each. */
const PAIRS: [Record<string, unknown>, Record<string, unknown>][] = [
  [
    { find: 'a', filter: { x: 1 } },
    { find: 'b', filter: { x: 1 } },
  ],
  [
    { find: 'a', filter: { x: 1 } },
    { count: 'a', query: { x: 1 } },
  ],
  [
    { find: 'a', filter: { x: 1 } },
    { find: 'a', filter: { x: 1 }, limit: 1 },
  ],
  [
    { find: 'a', filter: { x: 1 } },
    { find: 'a', filter: { x: 'one' } },
  ],
  [
    { find: 'a', filter: { x: 1 } },
    { find: 'a', filter: { x: { $gt: 1 } } },
  ],
  [
    { find: 'a', filter: { x: { $in: [1, 2] } } },
    { find: 'a', filter: { x: { $in: Array.from({ length: 40 }, (_, i) => i) } } },
  ],
  [
    { find: 'a', filter: { x: /^ab/ } },
    { find: 'a', filter: { x: /^ab/i } },
  ],
  [
    { find: 'a', filter: { x: /^ab/ } },
    { find: 'a', filter: { x: /ab/ } },
  ],
  [
    { find: 'a', filter: { x: { $elemMatch: { y: 1 } } } },
    { find: 'a', filter: { 'x.y': 1 } },
  ],
  [
    { find: 'a', filter: { x: 1 }, sort: { y: 1 } },
    { find: 'a', filter: { x: 1 }, sort: { y: -1 } },
  ],
  [
    { find: 'a', filter: { x: 1 } },
    { find: 'a', filter: { x: 1 }, collation: { locale: 'fr', strength: 2 } },
  ],
  [
    { find: 'a', filter: { x: 1 }, collation: { locale: 'fr' } },
    { find: 'a', filter: { x: 1 }, collation: { locale: 'de' } },
  ],
  [
    { distinct: 'a', key: 'k', query: {} },
    { distinct: 'a', key: 'j', query: {} },
  ],
  [
    { find: 'a', filter: { $or: [{ x: 1 }, { y: 1 }] } },
    { find: 'a', filter: { $or: [{ x: 1 }, { z: 1 }] } },
  ],
  [
    { find: 'a', filter: { $where: 'f' } },
    { find: 'a', filter: { $expr: { $eq: ['$x', 1] } } },
  ],
  [
    { find: 'a', filter: { 'x"y': 1 } },
    { find: 'a', filter: { 'x\\"y': 1 } },
  ],
  [
    { find: 'a', filter: { x: 1, y: 1 } },
    { find: 'a', filter: { xy: 1 } },
  ],
  [
    {
      aggregate: 'a',
      pipeline: [{ $match: { x: 1 } }, { $lookup: { from: 'b', localField: 'x', foreignField: 'y', as: 'z' } }],
    },
    {
      aggregate: 'a',
      pipeline: [{ $match: { x: 1 } }, { $lookup: { from: 'b', localField: 'x', foreignField: 'w', as: 'z' } }],
    },
  ],
];

describe('shape ids looked up by their body', () => {
  it('are the hash of the canonical body, and differ wherever the bodies do', () => {
    for (const [a, b] of PAIRS) {
      for (let round = 0; round < 2; round++) {
        const sa = shapesOf(a, 'db');
        const sb = shapesOf(b, 'db');
        for (const s of [...sa, ...sb]) expect(s.id, JSON.stringify(s)).toBe(idOf(s));
        expect(
          sa.map((s) => s.id),
          JSON.stringify([a, b]),
        ).not.toEqual(sb.map((s) => s.id));
      }
    }
  });

  it('one id for the same body whatever the order of keys or values in the command', () => {
    const one = shapesOf({ find: 'a', filter: { x: { $gte: 1, $lt: 5 }, y: 'v' } }, 'db');
    const two = shapesOf({ find: 'a', filter: { y: 'w', x: { $lt: 9, $gte: 2 } } }, 'db');
    expect(one[0]?.id).toBe(two[0]?.id);
    expect(one[0]?.id).toBe(one[0] && idOf(one[0]));
  });
});
