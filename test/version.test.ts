import { describe, expect, it } from 'vitest';
import { versionAtLeast } from '../src/lib/version';

describe('versionAtLeast: buildInfo versionArray against major.minor', () => {
  it('compares major first, then minor; patch and later parts do not count', () => {
    expect(versionAtLeast([6, 0, 5, 0], 5, 3)).toBe(true);
    expect(versionAtLeast([5, 3, 0, 0], 5, 3)).toBe(true);
    expect(versionAtLeast([5, 2, 99, 0], 5, 3)).toBe(false);
    expect(versionAtLeast([4, 4, 0, 0], 4, 4)).toBe(true);
    expect(versionAtLeast([4, 10, 0, 0], 5)).toBe(false);
    expect(versionAtLeast([8, 1, 0, 0], 8, 1)).toBe(true);
    expect(versionAtLeast([8, 0, 4, 0], 8, 1)).toBe(false);
  });
  it('reads a missing part as 0', () => {
    expect(versionAtLeast([], 0, 0)).toBe(true);
    expect(versionAtLeast([7], 7, 0)).toBe(true);
    expect(versionAtLeast([7], 7, 1)).toBe(false);
  });
});
