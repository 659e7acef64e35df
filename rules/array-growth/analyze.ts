import type { ArrayProfile, CollectionSnapshot, DocProfile } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { percentile } from '../../src/core/stats';
import type { DocPace, ElementPaces, PathPace } from './collect';
import type { ArrayGrowthOptions } from './index';

const DAY_MS = 86_400_000;

/**
 * How fast the array grows, per document, and where the fastest document's figure comes from: `elements`, the dates
 * its elements carry (elements dated within the window before the path's newest element date, over the days it has
 * been filling, at most the window); `age`, the array's length over the document's age (its creation time).
 */
export interface Pace {
  source: 'elements' | 'age';
  /** elements: the elements' date path (`comments.at`, `logins.$[]`); age: where creation times came from (`_id`). */
  from: string;
  /** elements: the window counted, in days; null for age. */
  windowDays: number | null;
  /** elements: whole days between the newest dated element and the collection time; null for age. */
  quietDays: number | null;
  medianPerDay: number;
  p90PerDay: number;
  maxPerDay: number;
  /** Sampled documents with a pace (filling for minAgeDays or more), and how many of them from their elements' dates. */
  docs: number;
  docsFromElements: number;
}

/** The length the confirmation measures: the longest length any document reaches after `days` at its own pace. */
export interface Projection {
  length: number;
  /** That document's array length now, and its elements per array per day (its pace over its arrays at the path). */
  fromLength: number;
  perDay: number;
  days: number;
}

/** Everything measured about one array path across the sample (and its longest/largest beyond it). */
export interface ArrayPathStats {
  path: string;
  docsWithPath: number;
  /** p50/p95 over the sample; max over the sample and the outlier pass. */
  lengths: { p50: number; p95: number; max: number };
  /** true when the longest array is one the outlier pass found beyond the sample. */
  maxBeyondSample: boolean;
  /** Mean BSON bytes of one element. */
  elementBytes: number;
  /**
   * The array's share of its document's size (0..1), the median over the documents that matter: those whose array
   * holds `shareFrom` or more elements (infoLength, or the longest length sampled when none reaches it).
   */
  share: number;
  shareDocs: number;
  shareFrom: number;
  kinds: number;
  nested: boolean;
  arrayOfArrays: boolean;
  growth: Pace | null;
  /** Fewest days until a document passes the warning size and the limit at its own pace. */
  daysToWarnBytes: number | null;
  daysToMaxBytes: number | null;
  projection: Projection | null;
  /** BSON bytes of the largest document holding the array (sample and outliers), measured once. */
  largestDocBytes: number;
  /** Sampled documents at or past warnLength, and past errorLength. */
  docsAtWarn: number;
  docsPastError: number;
}

/** The window of the collected ones the option picks: the longest not above it, else the shortest. */
export function windowIndex(windows: readonly number[], wanted: number): number {
  let best = -1;
  windows.forEach((w, i) => {
    if (w <= wanted && (best === -1 || w > (windows[best] as number))) best = i;
  });
  if (best !== -1) return best;
  let shortest = 0;
  windows.forEach((w, i) => {
    if (w < (windows[shortest] as number)) shortest = i;
  });
  return shortest;
}

/** A document's elements per day from its elements' dates; null when it has not been filling for minAgeDays. */
function elementRate(p: DocPace, k: number, windowDays: number, o: ArrayGrowthOptions): number | null {
  const days = Math.min(windowDays, p.spanDays);
  if (days < o.minAgeDays || days <= 0) return null;
  return (p.recent[k] ?? 0) / days;
}

interface Holder {
  doc: DocProfile;
  a: ArrayProfile;
  /** Index in sample.docs; -1 for an outlier. */
  index: number;
  perDay: number | null;
}

function ageRate(h: Holder, o: ArrayGrowthOptions, now: number): number | null {
  if (h.doc.createdAt === null) return null;
  const ageDays = (now - h.doc.createdAt) / DAY_MS;
  return ageDays < o.minAgeDays ? null : h.a.totalLength / ageDays;
}

/**
 * Each document's pace: from its elements' dates where it has them (filling for minAgeDays or more), else from its
 * age (documents measured on the server and the outliers were not pulled whole, so they only have an age). The path's
 * source is that of the fastest document, the one the "up to" figure is.
 */
function ratesFor(list: Holder[], pace: PathPace | undefined, windows: readonly number[], c: CollectionSnapshot, o: ArrayGrowthOptions, now: number): Pace | null {
  const k = windows.length > 0 ? windowIndex(windows, o.paceWindowDays) : -1;
  const windowDays = k >= 0 ? (windows[k] as number) : null;
  const byDoc = new Map((pace?.docs ?? []).map((p) => [p.doc, p]));
  let fromElements = 0;
  let fastest: { perDay: number; dated: boolean } | null = null;
  const rates: number[] = [];
  for (const h of list) {
    const p = h.index >= 0 && windowDays !== null ? byDoc.get(h.index) : undefined;
    const dated = p ? elementRate(p, k, windowDays as number, o) : null;
    h.perDay = dated ?? ageRate(h, o, now);
    if (h.perDay === null) continue;
    if (!fastest || h.perDay > fastest.perDay) fastest = { perDay: h.perDay, dated: dated !== null };
    // medians over the sample only; an outlier's own rate still counts for its time to the limit
    if (h.index < 0) continue;
    rates.push(h.perDay);
    if (dated !== null) fromElements++;
  }
  if (!fastest || !rates.length) return null;
  const byElements = fastest.dated && pace !== undefined;
  return {
    source: byElements ? 'elements' : 'age',
    from: byElements ? `${pace.path}.${pace.field}` : (c.sample.timeSource ?? 'createdAt'),
    windowDays: byElements ? windowDays : null,
    quietDays: byElements ? pace.quietDays : null,
    medianPerDay: percentile(rates, 50),
    p90PerDay: percentile(rates, 90),
    maxPerDay: fastest.perDay,
    docs: rates.length,
    docsFromElements: fromElements,
  };
}

export function arrayPathStats(c: CollectionSnapshot, o: ArrayGrowthOptions, now: number, paces?: ElementPaces): ArrayPathStats[] {
  const byPath = new Map<string, Holder[]>();
  c.sample.docs.forEach((doc, index) => {
    for (const a of doc.arrays) {
      let list = byPath.get(a.path);
      if (!list) byPath.set(a.path, (list = []));
      list.push({ doc, a, index, perDay: null });
    }
  });
  const beyond = new Map<string, Holder[]>();
  for (const doc of c.sample.outliers.docs) {
    for (const a of doc.arrays) {
      let list = beyond.get(a.path);
      if (!list) beyond.set(a.path, (list = []));
      list.push({ doc, a, index: -1, perDay: null });
    }
  }
  const paceOf = new Map((paces?.paths ?? []).map((p) => [p.path, p]));
  const out: ArrayPathStats[] = [];
  for (const [path, list] of byPath) {
    const outliers = beyond.get(path) ?? [];
    const lengths = list.map((x) => x.a.maxLength);
    const sampledMax = Math.max(...lengths);
    const outlierMax = outliers.length ? Math.max(...outliers.map((x) => x.a.maxLength)) : 0;
    const totalLen = list.reduce((s, x) => s + x.a.totalLength, 0);
    const elemBytes = list.reduce((s, x) => s + x.a.elementBytes, 0);
    // the documents that matter: arrays of infoLength or more, else the longest sampled
    const shareFrom = Math.min(o.infoLength, sampledMax);
    const mattering = list.filter((x) => x.a.maxLength >= shareFrom);
    const shares = mattering.map((x) => (x.doc.bytes > 0 ? x.a.bytes / x.doc.bytes : 0));
    let kinds = 0;
    for (const x of list) kinds |= x.a.kinds;

    const all = [...list, ...outliers];
    const growth = ratesFor(all, paceOf.get(path), paces?.windowsDays ?? [], c, o, now);
    let daysToWarn: number | null = null;
    let daysToMax: number | null = null;
    let projection: Projection | null = null;
    for (const x of all) {
      if (x.perDay === null || x.a.totalLength === 0) continue;
      const bytesPerDay = x.perDay * (x.a.bytes / x.a.totalLength);
      const perArray = x.perDay / Math.max(1, x.a.occurrences);
      const projected = Math.round(x.a.maxLength + perArray * o.projectionDays);
      if (perArray > 0 && (projection === null || projected > projection.length)) projection = { length: projected, fromLength: x.a.maxLength, perDay: perArray, days: o.projectionDays };
      if (bytesPerDay <= 0) continue;
      const toWarn = Math.max(0, (o.warnDocBytes - x.doc.bytes) / bytesPerDay);
      const toMax = Math.max(0, (o.maxDocBytes - x.doc.bytes) / bytesPerDay);
      daysToWarn = daysToWarn === null ? toWarn : Math.min(daysToWarn, toWarn);
      daysToMax = daysToMax === null ? toMax : Math.min(daysToMax, toMax);
    }
    out.push({
      path,
      docsWithPath: list.length,
      lengths: { p50: percentile(lengths, 50), p95: percentile(lengths, 95), max: Math.max(sampledMax, outlierMax) },
      maxBeyondSample: outlierMax > sampledMax,
      elementBytes: totalLen > 0 ? elemBytes / totalLen : 0,
      share: shares.length ? percentile(shares, 50) : 0,
      shareDocs: mattering.length,
      shareFrom,
      kinds,
      nested: path.includes('.'),
      arrayOfArrays: (kinds & ELEMENT_KIND.array) !== 0,
      growth,
      daysToWarnBytes: daysToWarn,
      daysToMaxBytes: daysToMax,
      projection,
      largestDocBytes: Math.max(...all.map((x) => x.doc.bytes)),
      docsAtWarn: lengths.filter((n) => n >= o.warnLength).length,
      docsPastError: lengths.filter((n) => n > o.errorLength).length,
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
