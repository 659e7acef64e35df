import { describe, expect, it } from 'vitest';
import { pickPositions, seedOf } from '../src/collect/sample';
import { prng } from '../src/core/stats';

describe('random-ids picks (the sample without $sample)', () => {
  it('draws k distinct positions in range, ascending; all of them when k >= n', () => {
    const picks = pickPositions(1000, 40, prng(7));
    expect(picks).toHaveLength(40);
    expect(new Set(picks).size).toBe(40);
    expect(picks.every((p) => Number.isInteger(p) && p >= 0 && p < 1000)).toBe(true);
    expect([...picks].sort((a, b) => a - b)).toEqual(picks);
    expect(pickPositions(5, 9, prng(1))).toEqual([0, 1, 2, 3, 4]);
    expect(pickPositions(0, 3, prng(1))).toEqual([]);
  });

  it('is the same for the same seed, and differs for another', () => {
    expect(pickPositions(10_000, 100, prng(42))).toEqual(pickPositions(10_000, 100, prng(42)));
    expect(pickPositions(10_000, 100, prng(42))).not.toEqual(pickPositions(10_000, 100, prng(43)));
    expect(seedOf('app.posts')).toBe(seedOf('app.posts'));
    expect(seedOf('app.posts')).not.toBe(seedOf('app.post'));
  });

  it('picks every position about equally often (not the first ones, as natural order does)', () => {
    // 4,000 draws of 20 of 40: each position is expected 2,000 times (binomial, sd ~32); allow 6 sd.
    const hits = new Array<number>(40).fill(0);
    const rnd = prng(2026);
    for (let i = 0; i < 4000; i++) for (const p of pickPositions(40, 20, rnd)) hits[p] = (hits[p] ?? 0) + 1;
    expect(Math.min(...hits)).toBeGreaterThan(2000 - 6 * 32);
    expect(Math.max(...hits)).toBeLessThan(2000 + 6 * 32);
    // the case: the last 10 of 40 documents are in a sample of 20 nearly always (they never are in natural
    // order)
    let missed = 0;
    for (let i = 0; i < 4000; i++) if (!pickPositions(40, 20, rnd).some((p) => p >= 30)) missed++;
    expect(missed).toBeLessThan(10);
  });
});
