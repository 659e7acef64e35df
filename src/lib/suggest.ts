/** "Did you mean …?" for a name a user mistyped: an option key, a rule id. */

/** Lower case without `-`, `_` and spaces, so `sample-size`, `sample_size` and `SampleSize` all read `samplesize`. */
function fold(s: string): string {
  return s.toLowerCase().replace(/[-_\s]/g, '');
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: optimal string alignment
 * distance. */
export function editDistance(a: string, b: string): number {
  const w = b.length + 1;
  const d = new Uint32Array((a.length + 1) * w);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * w] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * w + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate `given` most likely meant, or undefined when none is close: the same name in another case or
 * spelling (`max-time-ms` for `maxTimeMS`), a few typos away (about one edit per three letters), or a candidate
 * that contains it or is contained in it (`budget` for `confirmBudget`).
 */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  const g = fold(given);
  if (!g || g.length > 100) return undefined;
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const c = fold(name);
    let score = editDistance(g, c);
    if (score > Math.max(1, Math.floor(Math.max(g.length, c.length) / 3))) {
      // Not a typo; a part of the name (or the name inside a longer one) still points at it.
      if (Math.min(g.length, c.length) < 4 || !(c.includes(g) || g.includes(c))) continue;
      score = Math.abs(c.length - g.length);
    }
    if (!best || score < best.score) best = { name, score };
  }
  return best?.name;
}

/** ` Did you mean "x"?` (with its leading space), or '' when nothing is close. */
export function didYouMean(given: string, candidates: readonly string[]): string {
  const match = closest(given, candidates);
  return match === undefined ? '' : ` Did you mean "${match}"?`;
}
