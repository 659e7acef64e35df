/** Small statistics used by analysis and the trial harness. All inputs are plain number arrays. */

export function sortedCopy(xs: readonly number[]): number[] {
  return Float64Array.from(xs).sort() as unknown as number[];
}

/** Percentile by linear interpolation on a sorted array (p in 0..100). */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = ((n - 1) * p) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export function percentile(xs: readonly number[], p: number): number {
  return percentileSorted(Float64Array.from(xs).sort(), p);
}

export const median = (xs: readonly number[]): number => percentile(xs, 50);

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Average ranks (ties share their mean rank), 0-based. */
export function ranks(xs: readonly number[]): number[] {
  const idx = xs.map((_, i) => i).sort((a, b) => (xs[a] as number) - (xs[b] as number));
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1] as number] === xs[idx[i] as number]) j++;
    const avg = (i + j) / 2;
    for (let k = i; k <= j; k++) r[idx[k] as number] = avg;
    i = j + 1;
  }
  return r;
}

export function pearson(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return NaN;
  const mx = mean(xs.slice(0, n));
  const my = mean(ys.slice(0, n));
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return NaN;
  return sxy / Math.sqrt(sxx * syy);
}

/** Spearman's rank correlation of a sequence against its position (0..n-1). */
export function spearmanWithPosition(values: readonly number[]): number {
  return pearson(
    ranks(values),
    values.map((_, i) => i),
  );
}

/** Shannon entropy in bits of a histogram of counts. */
export function entropyBits(counts: Iterable<number>): number {
  let total = 0;
  const cs: number[] = [];
  for (const c of counts) {
    if (c > 0) {
      cs.push(c);
      total += c;
    }
  }
  let h = 0;
  for (const c of cs) {
    const p = c / total;
    h -= p * Math.log2(p);
  }
  return h;
}

/** A small deterministic PRNG (mulberry32) for reproducible generated data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** P(X <= k) for X ~ Binomial(n, 1/2), exactly (sums of binomial coefficients; n up to a few hundred). */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let term = Math.pow(0.5, n); // C(n, 0) / 2^n
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return Math.min(1, sum);
}

/**
 * The probability that the order statistics x(r) and x(n+1-r) (1-based) of n independent draws fail to bracket the
 * population median, for any continuous distribution: 2·P(Binomial(n, 1/2) <= r-1). The interval's coverage is one
 * minus this. Min–max (r = 1): 2·0.5^n, so 6.25% at n = 5, 3.1% at 6, 1.6% at 7.
 */
export function orderStatMiss(n: number, r: number): number {
  if (n <= 0 || r < 1 || 2 * r > n + 1) return 1;
  return Math.min(1, 2 * binomialHalfCdf(r - 1, n));
}

/** The largest rank r (narrowest interval x(r)..x(n+1-r)) that misses the median with probability at most `maxMiss`; 1
 * (min–max) when none does. */
export function medianRank(n: number, maxMiss: number): number {
  let r = 1;
  while (2 * (r + 1) <= n + 1 && orderStatMiss(n, r + 1) <= maxMiss) r++;
  return r;
}

/** A distribution-free interval for a median, with the coverage it actually has (not a nominal level). */
export interface MedianInterval {
  /** The sample median. */
  median: number;
  low: number;
  high: number;
  /**
   * Probability, for any continuous distribution of independent draws, that low..high holds the population median:
   * the exact binomial coverage of the order statistics used (discrete, so rarely exactly the level asked for).
   */
  coverage: number;
  /** 1-based ranks of low and high in the sorted sample. */
  ranks: [number, number];
  n: number;
}

/**
 * The order-statistic (sign-test) interval for the median of `xs`: x(r)..x(n+1-r) with the narrowest r whose miss
 * probability stays within 1 - `level` (default 95%); when even min–max cannot reach the level (n <= 5) it is min–max
 * and `coverage` says what it reaches (93.75% at n = 5). Distribution-free: it assumes only independent draws from one
 * continuous distribution, unlike a percentile bootstrap, which at 5-7 draws is far narrower than its nominal level.
 */
export function medianInterval(xs: readonly number[], level = 0.95): MedianInterval {
  const sorted = Float64Array.from(xs).sort();
  const n = sorted.length;
  if (n === 0) return { median: NaN, low: NaN, high: NaN, coverage: 0, ranks: [0, 0], n: 0 };
  const r = medianRank(n, 1 - level);
  return {
    median: percentileSorted(sorted, 50),
    low: sorted[r - 1] as number,
    high: sorted[n - r] as number,
    coverage: 1 - orderStatMiss(n, r),
    ranks: [r, n + 1 - r],
    n,
  };
}

/**
 * Ratios a[i] / b[i] of paired runs (the i-th run of each arm, taken together), over the shorter of the two. With arms
 * timed in alternation (src/confirm/trials.ts) each pair shares the machine's load at that moment, so the ratio cancels
 * most of it; with arms timed one after the other the pairs are still independent draws of A/B, only noisier.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((a[i] as number) / (b[i] as number));
  return out;
}

/**
 * The median of the paired ratios a[i]/b[i] with its order-statistic interval: distribution-free, its coverage exact
 * for independent pairs (see medianInterval). An interval that holds 1 cannot say which arm is slower.
 */
export function pairedRatioInterval(a: readonly number[], b: readonly number[], level = 0.95): MedianInterval {
  return medianInterval(pairedRatios(a, b), level);
}

/**
 * A coverage as people read it: "93.8%", "98.4%", "95%". Truncated, never rounded up, so the stated level is never
 * above the real one (0.99996 reads "99.9%", not "100%").
 */
export function formatCoverage(coverage: number): string {
  if (!Number.isFinite(coverage) || coverage <= 0) return '0%';
  const tenths = Math.floor(coverage * 1000 + 1e-9) / 10;
  const t = Math.min(tenths, 99.9);
  return Number.isInteger(t) ? `${t}%` : `${t.toFixed(1)}%`;
}

/**
 * The one level every interval aims at and every label names: "95% interval". An interval whose real coverage is below
 * it (too few blocks timed) is never labelled 95%: it reads as the range of what was timed and decides nothing.
 */
export const CONFIDENCE = 0.95;

/**
 * The noise margin a timed interval must clear before it decides: 1.1, a 10% difference. Reruns of one experiment on an
 * idle machine moved a ratio whose true value is about 1 by up to 10% (bench/README.md, confirm-stability: the
 * index-usage drop ratio's medians 0.97x-1.12x over five runs, id-pattern's scan ratios flipping between verdicts until
 * a 10% difference was asked for); an interval that clears the claim's size by less decides by a hair, and a rerun
 * may say the opposite. `judge` (src/confirm/harness.ts) applies it to every timed interval; rules print it in their
 * inconclusive sentences through `noisePercent()`, so the words and the verdict cannot drift apart.
 */
export const NOISE_MARGIN = 1.1;

/** "95% interval" when the interval reaches CONFIDENCE; else "range timed, too few blocks for a 95% interval:". */
export function intervalLabel(coverage: number | undefined): string {
  if (coverage === undefined) return 'exact';
  return coverage >= CONFIDENCE - 1e-12
    ? `${formatCoverage(CONFIDENCE)} interval`
    : `range timed, too few blocks for a ${formatCoverage(CONFIDENCE)} interval:`;
}
