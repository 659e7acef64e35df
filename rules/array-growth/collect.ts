import type { Doc } from '../../src/core/adapter';
import { isDate } from '../../src/lib/bson-types';
import { defineCollector } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';
import { type CollectionSnapshot, DYNAMIC_KEY } from '../../src/core/types';
import { pathSegments } from '../../src/lib/doc-path';

const DAY_MS = 86_400_000;

/** The windows counted, in days before each path's newest element date: the rule's `paceWindowDays` picks one. */
export const PACE_WINDOWS_DAYS = [7, 30, 90, 365] as const;

/**
 * A field holds the elements' dates when it is a date in at least this share of them (the share collect asks of a
 * document's creation-time field, src/collect/index.ts detectTimeField).
 */
export const DATED_SHARE = 0.9;

/** Names that say when an element was added, in order of preference. */
const ADDED_NAMES = [
  'at',
  'createdAt',
  'created_at',
  'created',
  'createdOn',
  'insertedAt',
  'addedAt',
  'postedAt',
  'date',
  'ts',
  'timestamp',
  'time',
];
/** Names that say something else than when the element was added: never a pace. */
const NOT_ADDED =
  /^(updated|modified|edited|changed|due|expires?|expiry|deleted|removed|ends?|until|valid|birth|dob|scheduled|start)/i;

const count = { type: 'integer', minimum: 0 } as const;

/** One document's dated elements at a path: counts and a span, never a date. */
const docPace = {
  type: 'object',
  required: ['doc', 'dated', 'spanDays', 'recent'],
  additionalProperties: false,
  properties: {
    /** Index of the document in `sample.docs` (the documents pulled whole come first, in the order read). */
    doc: count,
    /** Elements of the path carrying a date at the field, in this document. */
    dated: count,
    /**
     * Days from the document's oldest dated element to the path's newest one (0.01 day steps): how long it has been
     * filling.
     */
    spanDays: { type: 'number', minimum: 0 },
    /** Dated elements within each window of PACE_WINDOWS_DAYS before the path's newest element date (same order). */
    recent: { type: 'array', items: count },
  },
} as const;

const pathPace = {
  type: 'object',
  required: ['path', 'field', 'datedShare', 'quietDays', 'docs'],
  additionalProperties: false,
  properties: {
    /** An array path of the profile (`comments`, `comments.replies`, `grid.$[]`, `bySku.<key>.history`). */
    path: { type: 'string', minLength: 1 },
    /**
     * The elements' date field, relative to an element (`at`); `$[]` when the elements are dates themselves. One
     * field name of the census (a schema path, map keys folded).
     */
    field: { type: 'string', minLength: 1, pattern: '^[^.]+$' },
    /** Share of the path's elements (in the documents pulled whole) that carry a date there. */
    datedShare: { type: 'number', minimum: 0, maximum: 1 },
    /** Whole days between the path's newest dated element and the collection time (0: it grew today). */
    quietDays: count,
    /** Documents with at least one dated element at the path. */
    docs: { type: 'array', items: docPace },
  },
} as const;

export const ELEMENT_PACES_SCHEMA = {
  type: 'object',
  required: ['windowsDays', 'paths'],
  additionalProperties: false,
  properties: {
    /** PACE_WINDOWS_DAYS as collected. */
    windowsDays: { type: 'array', items: { type: 'integer', minimum: 1 } },
    paths: { type: 'array', items: pathPace },
  },
} as const;

export type DocPace = FromSchema<typeof docPace>;
export type PathPace = FromSchema<typeof pathPace>;
export type ElementPaces = FromSchema<typeof ELEMENT_PACES_SCHEMA>;

/** A field of the elements is a schema path of the census: `<path>.<field>`, no deeper, no map key (those are
 * folded). */
function dateFieldOf(
  c: Readonly<CollectionSnapshot>,
  path: string,
  elements: number,
): { field: string; share: number } | null {
  if (elements === 0) return null;
  const candidates: { field: string; share: number; rank: number }[] = [];
  const prefix = `${path}.`;
  for (const [p, f] of Object.entries(c.sample.fields)) {
    if (!p.startsWith(prefix)) continue;
    const field = p.slice(prefix.length);
    if (field.includes('.') || field === DYNAMIC_KEY || NOT_ADDED.test(field)) continue;
    const share = (f.types.date ?? 0) / elements;
    if (share < DATED_SHARE) continue;
    const named = ADDED_NAMES.findIndex((n) => n.toLowerCase() === field.toLowerCase());
    candidates.push({ field, share, rank: named === -1 ? ADDED_NAMES.length : named });
  }
  candidates.sort((a, b) => a.rank - b.rank || b.share - a.share || a.field.localeCompare(b.field));
  const best = candidates[0];
  return best ? { field: best.field, share: Math.min(1, best.share) } : null;
}

/**
 * Every array at `segments` below `v` (a census path's keys: `$[]` steps into arrays of arrays, `<key>` into every
 * key).
 */
function arraysAt(v: unknown, segments: readonly string[], out: unknown[][]): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    if (segments.length === 0) {
      out.push(v);
      return;
    }
    const [head, ...rest] = segments;
    // arrays of arrays: `grid.$[]` is each array inside `grid`; objects inside an array share the array's path
    for (const el of v) {
      if (head === '$[]') {
        if (Array.isArray(el)) arraysAt(el, rest, out);
      } else if (el !== null && typeof el === 'object' && !Array.isArray(el)) arraysAt(el, segments, out);
    }
    return;
  }
  if (segments.length === 0) return;
  const [head, ...rest] = segments;
  const o = v as Doc;
  if (head === DYNAMIC_KEY) {
    for (const key of Object.keys(o)) arraysAt(o[key], rest, out);
    return;
  }
  if (head !== undefined && Object.prototype.hasOwnProperty.call(o, head)) arraysAt(o[head], rest, out);
}

function dateOf(el: unknown, field: string): number | null {
  if (el === null || typeof el !== 'object') return null;
  const v = field === '$[]' ? el : (el as Doc)[field];
  if (v === null || typeof v !== 'object' || !isDate(v)) return null;
  const t = v.getTime();
  return Number.isFinite(t) ? t : null;
}

/**
 * The pace of each array path whose elements carry a date, from the documents pulled whole (`docs[i]` is
 * `sample.docs[i]`). The reference is the path's newest element date, never later than `now` (later dates are not
 * counted); for each document, the dated elements in each window before it and the days it has been filling.
 * Keeps counts and day spans only: no date, no value.
 */
export function elementPaces(c: Readonly<CollectionSnapshot>, docs: readonly Doc[], now: number): ElementPaces {
  const paths = new Set<string>();
  const elements = new Map<string, number>();
  // the documents pulled whole come first in sample.docs, in the order read; those measured on the server follow
  const pulled = Math.min(docs.length, c.sample.docs.length);
  for (let i = 0; i < pulled; i++) {
    for (const a of c.sample.docs[i]?.arrays ?? []) {
      paths.add(a.path);
      elements.set(a.path, (elements.get(a.path) ?? 0) + a.totalLength);
    }
  }
  const out: PathPace[] = [];
  for (const path of [...paths].sort()) {
    const chosen = dateFieldOf(c, path, elements.get(path) ?? 0);
    if (!chosen) continue;
    const segments = pathSegments(path);
    const perDoc: { doc: number; dates: number[] }[] = [];
    let newest = -Infinity;
    for (let i = 0; i < pulled; i++) {
      const arrays: unknown[][] = [];
      arraysAt(docs[i], segments, arrays);
      const dates: number[] = [];
      for (const a of arrays) {
        for (const el of a) {
          const t = dateOf(el, chosen.field);
          if (t === null || t > now) continue;
          dates.push(t);
          if (t > newest) newest = t;
        }
      }
      if (dates.length) perDoc.push({ doc: i, dates });
    }
    if (perDoc.length === 0) continue;
    const pace: DocPace[] = perDoc.map(({ doc, dates }) => {
      let oldest = Infinity;
      const recent = PACE_WINDOWS_DAYS.map(() => 0);
      for (const t of dates) {
        if (t < oldest) oldest = t;
        const age = newest - t;
        PACE_WINDOWS_DAYS.forEach((w, k) => {
          if (age <= w * DAY_MS) recent[k] = (recent[k] ?? 0) + 1;
        });
      }
      return { doc, dated: dates.length, spanDays: Math.round(((newest - oldest) / DAY_MS) * 100) / 100, recent };
    });
    out.push({
      path,
      field: chosen.field,
      datedShare: Math.round(chosen.share * 1000) / 1000,
      quietDays: Math.max(0, Math.floor((now - newest) / DAY_MS)),
      docs: pace,
    });
  }
  return { windowsDays: [...PACE_WINDOWS_DAYS], paths: out };
}

/**
 * Elements per day where array elements carry a date: read in process from the sampled documents (no command of its
 * own). Stores counts and day spans per document and path, never a date or any other value.
 */
export const elementPace = defineCollector<ElementPaces, 'collection'>({
  id: 'array-growth/element-pace',
  version: 1,
  scope: 'collection',
  description: 'elements per day of arrays whose elements carry a date, from the sampled documents (no command)',
  schema: ELEMENT_PACES_SCHEMA,
  collect(ctx) {
    return Promise.resolve(ctx.docs.length === 0 ? null : elementPaces(ctx.collection, ctx.docs, Date.now()));
  },
});
