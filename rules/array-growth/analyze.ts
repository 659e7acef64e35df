import type { ArrayProfile, CollectionSnapshot, DocProfile } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { percentile } from '../../src/core/stats';
import type { DocPace, ElementPaces, PathPace } from './collect';
import type { ArrayGrowthOptions } from './options';

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
  /** Sampled documents with a pace (filling for minAgeDays or more), and how many of them from their elements'
   * dates. */
  docs: number;
  docsFromElements: number;
}

/**
 * The length the message states and the confirmation measures: the longest length any document reaches after `days`
 * at its own pace.
 */
export interface Projection {
  length: number;
  /** That document's array length now, and its elements per array per day (its pace over its arrays at the path). */
  fromLength: number;
  perDay: number;
  days: number;
}

/**
 * One size line (the warning size or the limit) against every document read that holds the array: how many are
 * already at or past it, and the earliest day one of the others passes it at its own pace (null: none grows).
 */
export interface Crossing {
  past: number;
  days: number | null;
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
  /** The warning size and the limit, over the sampled documents and the outliers holding the array. */
  warnLine: Crossing;
  maxLine: Crossing;
  /** Days until a document is at or past each line: 0 when one already is, else the earliest crossing. */
  daysToWarnBytes: number | null;
  daysToMaxBytes: number | null;
  /** Documents read that hold the array: the sampled ones and the outliers beyond the sample. */
  docsRead: number;
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
  array: ArrayProfile;
  /** Index in sample.docs; -1 for an outlier. */
  index: number;
  perDay: number | null;
}

function ageRate(holder: Holder, options: ArrayGrowthOptions, now: number): number | null {
  if (holder.doc.createdAt === null) return null;
  const ageDays = (now - holder.doc.createdAt) / DAY_MS;
  return ageDays < options.minAgeDays ? null : holder.array.totalLength / ageDays;
}

/**
 * Each document's pace: from its elements' dates where it has them (filling for minAgeDays or more), else from its
 * age (documents measured on the server and the outliers were not pulled whole, so they only have an age). The path's
 * source is that of the fastest document, the one the "up to" figure is.
 */
function ratesFor(
  list: Holder[],
  pace: PathPace | undefined,
  windows: readonly number[],
  collection: CollectionSnapshot,
  options: ArrayGrowthOptions,
  now: number,
): Pace | null {
  const windowAt = windows.length > 0 ? windowIndex(windows, options.paceWindowDays) : -1;
  const windowDays = windowAt >= 0 ? (windows[windowAt] as number) : null;
  const byDoc = new Map((pace?.docs ?? []).map((docPace) => [docPace.doc, docPace]));
  let fromElements = 0;
  let fastest: { perDay: number; dated: boolean } | null = null;
  const rates: number[] = [];
  for (const holder of list) {
    const docPace = holder.index >= 0 && windowDays !== null ? byDoc.get(holder.index) : undefined;
    const dated = docPace ? elementRate(docPace, windowAt, windowDays as number, options) : null;
    holder.perDay = dated ?? ageRate(holder, options, now);
    if (holder.perDay === null) continue;
    if (!fastest || holder.perDay > fastest.perDay) fastest = { perDay: holder.perDay, dated: dated !== null };
    // medians over the sample only; an outlier's own rate still counts for its time to the limit
    if (holder.index < 0) continue;
    rates.push(holder.perDay);
    if (dated !== null) fromElements++;
  }
  if (!fastest || !rates.length) return null;
  const byElements = fastest.dated && pace !== undefined;
  return {
    source: byElements ? 'elements' : 'age',
    from: byElements ? `${pace.path}.${pace.field}` : (collection.sample.timeSource ?? 'createdAt'),
    windowDays: byElements ? windowDays : null,
    quietDays: byElements ? pace.quietDays : null,
    medianPerDay: percentile(rates, 50),
    p90PerDay: percentile(rates, 90),
    maxPerDay: fastest.perDay,
    docs: rates.length,
    docsFromElements: fromElements,
  };
}

/** Bytes a document adds per day at its pace and its own bytes per element; null without a pace. */
function bytesPerDay(holder: Holder): number | null {
  if (holder.perDay === null || holder.array.totalLength === 0) return null;
  return holder.perDay * (holder.array.bytes / holder.array.totalLength);
}

/**
 * The documents at or past `line` bytes, and the earliest day one of the others passes it at its own pace: the
 * headline is the first document to cross, never a median; a document already past is counted, never forecast.
 */
function crossing(holders: readonly Holder[], line: number): Crossing {
  let past = 0;
  let days: number | null = null;
  for (const holder of holders) {
    if (holder.doc.bytes >= line) {
      past++;
      continue;
    }
    const perDay = bytesPerDay(holder);
    if (perDay === null || perDay <= 0) continue;
    const toLine = (line - holder.doc.bytes) / perDay;
    days = days === null ? toLine : Math.min(days, toLine);
  }
  return { past, days };
}

/**
 * The projected length (the rule's README): the longest length any document holding the array reaches after `days`
 * at its own pace, i.e. its length now + its elements per array per day x days. The documents measured on the server
 * and the outliers count: their length and age are known.
 */
function projectionOf(holders: readonly Holder[], days: number): Projection | null {
  let projection: Projection | null = null;
  for (const holder of holders) {
    if (holder.perDay === null || holder.array.totalLength === 0) continue;
    const perArray = holder.perDay / Math.max(1, holder.array.occurrences);
    const length = Math.round(holder.array.maxLength + perArray * days);
    if (perArray <= 0 || (projection !== null && length <= projection.length)) continue;
    projection = { length, fromLength: holder.array.maxLength, perDay: perArray, days };
  }
  return projection;
}

/** The documents holding each array path: sampled ones by their index in sample.docs, outliers with -1. */
function holdersByPath(docs: readonly DocProfile[], sampled: boolean): Map<string, Holder[]> {
  const byPath = new Map<string, Holder[]>();
  docs.forEach((doc, index) => {
    for (const array of doc.arrays) {
      let list = byPath.get(array.path);
      if (!list) byPath.set(array.path, (list = []));
      list.push({ doc, array, index: sampled ? index : -1, perDay: null });
    }
  });
  return byPath;
}

export function arrayPathStats(
  collection: CollectionSnapshot,
  options: ArrayGrowthOptions,
  now: number,
  paces?: ElementPaces,
  outliers: readonly DocProfile[] = [],
): ArrayPathStats[] {
  const byPath = holdersByPath(collection.sample.docs, true);
  const beyond = holdersByPath(outliers, false);
  const paceOf = new Map((paces?.paths ?? []).map((docPace) => [docPace.path, docPace]));
  const out: ArrayPathStats[] = [];
  for (const [path, list] of byPath) {
    const outliers = beyond.get(path) ?? [];
    const lengths = list.map((held) => held.array.maxLength);
    const sampledMax = Math.max(...lengths);
    const outlierMax = outliers.length ? Math.max(...outliers.map((held) => held.array.maxLength)) : 0;
    const totalLen = list.reduce((sum, held) => sum + held.array.totalLength, 0);
    const elemBytes = list.reduce((sum, held) => sum + held.array.elementBytes, 0);
    // the documents that matter: arrays of infoLength or more, else the longest sampled
    const shareFrom = Math.min(options.infoLength, sampledMax);
    const mattering = list.filter((held) => held.array.maxLength >= shareFrom);
    const shares = mattering.map((held) => (held.doc.bytes > 0 ? held.array.bytes / held.doc.bytes : 0));
    let kinds = 0;
    for (const held of list) kinds |= held.array.kinds;

    const all = [...list, ...outliers];
    const growth = ratesFor(all, paceOf.get(path), paces?.windowsDays ?? [], collection, options, now);
    const warnLine = crossing(all, options.warnDocBytes);
    const maxLine = crossing(all, options.maxDocBytes);
    const projection = projectionOf(all, options.projectionDays);
    // at or past a line counts as reaching it now only where the array grows at all (some document has a pace)
    const reached = (line: Crossing): number | null => (line.past > 0 && projection !== null ? 0 : line.days);
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
      warnLine,
      maxLine,
      daysToWarnBytes: reached(warnLine),
      daysToMaxBytes: reached(maxLine),
      docsRead: all.length,
      projection,
      largestDocBytes: Math.max(...all.map((held) => held.doc.bytes)),
      docsAtWarn: lengths.filter((n) => n >= options.warnLength).length,
      docsPastError: lengths.filter((n) => n > options.errorLength).length,
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
