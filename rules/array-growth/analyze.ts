import type { ArrayProfile, CollectionSnapshot } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { percentile } from '../../src/core/stats';
import type { ArrayGrowthOptions } from './index';

const DAY_MS = 86_400_000;

/** Everything measured about one array path across the sample. */
export interface ArrayPathStats {
  path: string;
  docsWithPath: number;
  lengths: { p50: number; p95: number; max: number };
  /** Mean BSON bytes of one element. */
  elementBytes: number;
  /** The array's share of its document's size, median over documents holding it (0..1). */
  share: number;
  kinds: number;
  nested: boolean;
  arrayOfArrays: boolean;
  /** Median and highest items per document per day, over documents old enough to tell. */
  growth: { medianPerDay: number; maxPerDay: number; docs: number } | null;
  /** Fewest days until a sampled document passes the warning size and 16 MiB at its own growth rate. */
  daysToWarnBytes: number | null;
  daysToMaxBytes: number | null;
  /** Length the fastest-growing document reaches in a year at its rate. */
  projectedLengthInYear: number | null;
  largestDocBytes: number;
  /** Sampled documents at or past warnLength, and past errorLength. */
  docsAtWarn: number;
  docsPastError: number;
}

export function arrayPathStats(c: CollectionSnapshot, o: ArrayGrowthOptions, now: number): ArrayPathStats[] {
  const byPath = new Map<string, { a: ArrayProfile; docBytes: number; createdAt: number | null }[]>();
  for (const d of c.sample.docs) {
    for (const a of d.arrays) {
      let list = byPath.get(a.path);
      if (!list) byPath.set(a.path, (list = []));
      list.push({ a, docBytes: d.bytes, createdAt: d.createdAt });
    }
  }
  const out: ArrayPathStats[] = [];
  for (const [path, list] of byPath) {
    const lengths = list.map((x) => x.a.maxLength);
    const totalLen = list.reduce((s, x) => s + x.a.totalLength, 0);
    const elemBytes = list.reduce((s, x) => s + x.a.elementBytes, 0);
    const shares = list.map((x) => (x.docBytes > 0 ? x.a.bytes / x.docBytes : 0));
    let kinds = 0;
    for (const x of list) kinds |= x.a.kinds;
    const rates: number[] = [];
    let daysToWarn: number | null = null;
    let daysToMax: number | null = null;
    let projected: number | null = null;
    for (const x of list) {
      if (x.createdAt === null) continue;
      const ageDays = (now - x.createdAt) / DAY_MS;
      if (ageDays < o.minAgeDays) continue;
      const perDay = x.a.totalLength / ageDays;
      rates.push(perDay);
      const bytesPerDay = x.a.bytes / ageDays;
      if (bytesPerDay <= 0) continue;
      const toWarn = Math.max(0, (o.warnDocBytes - x.docBytes) / bytesPerDay);
      const toMax = Math.max(0, (o.maxDocBytes - x.docBytes) / bytesPerDay);
      daysToWarn = daysToWarn === null ? toWarn : Math.min(daysToWarn, toWarn);
      daysToMax = daysToMax === null ? toMax : Math.min(daysToMax, toMax);
      const inYear = x.a.maxLength + (x.a.maxLength / ageDays) * 365;
      projected = projected === null ? inYear : Math.max(projected, inYear);
    }
    out.push({
      path,
      docsWithPath: list.length,
      lengths: { p50: percentile(lengths, 50), p95: percentile(lengths, 95), max: Math.max(...lengths) },
      elementBytes: totalLen > 0 ? elemBytes / totalLen : 0,
      share: percentile(shares, 50),
      kinds,
      nested: path.includes('.'),
      arrayOfArrays: (kinds & ELEMENT_KIND.array) !== 0,
      growth: rates.length ? { medianPerDay: percentile(rates, 50), maxPerDay: Math.max(...rates), docs: rates.length } : null,
      daysToWarnBytes: daysToWarn,
      daysToMaxBytes: daysToMax,
      projectedLengthInYear: projected === null ? null : Math.round(projected),
      largestDocBytes: Math.max(...list.map((x) => x.docBytes)),
      docsAtWarn: lengths.filter((n) => n >= o.warnLength).length,
      docsPastError: lengths.filter((n) => n > o.errorLength).length,
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
