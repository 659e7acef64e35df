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
  return pearson(ranks(values), values.map((_, i) => i));
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

/** A small deterministic PRNG (mulberry32) so bootstrap intervals are reproducible. */
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

/**
 * Bootstrap 95% interval of median(a) / median(b): resample both with replacement.
 * Returns the point estimate from the original data and the 2.5th/97.5th percentiles.
 */
export function bootstrapRatio(a: readonly number[], b: readonly number[], iterations = 2000, seed = 42): { median: number; low: number; high: number } {
  const point = median(a) / median(b);
  const rnd = prng(seed);
  const out = new Float64Array(iterations);
  const ra = new Array<number>(a.length);
  const rb = new Array<number>(b.length);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[Math.floor(rnd() * a.length)] as number;
    for (let i = 0; i < b.length; i++) rb[i] = b[Math.floor(rnd() * b.length)] as number;
    out[it] = median(ra) / median(rb);
  }
  out.sort();
  return { median: point, low: percentileSorted(out, 2.5), high: percentileSorted(out, 97.5) };
}

export function bootstrapMedian(a: readonly number[], iterations = 2000, seed = 7): { median: number; low: number; high: number } {
  const rnd = prng(seed);
  const out = new Float64Array(iterations);
  const ra = new Array<number>(a.length);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < a.length; i++) ra[i] = a[Math.floor(rnd() * a.length)] as number;
    out[it] = median(ra);
  }
  out.sort();
  return { median: median(a), low: percentileSorted(out, 2.5), high: percentileSorted(out, 97.5) };
}
