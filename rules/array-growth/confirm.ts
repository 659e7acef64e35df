import type { Doc } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { ratioOf, timeTrials, toMeasurement, verdict, type Timed } from '../../src/confirm/harness';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement } from '../../src/core/types';
import { ciLabel } from '../../src/confirm/trials';
import { dottedPath } from '../../src/lib/doc-path';
import type { ArrayGrowthOptions } from './index';

/** Stay clear of the 16 MiB limit while preparing parents. */
const PARENT_BYTES_CAP = 15 * 1024 * 1024;

/** The most elements of this size a parent may hold before the test would come near the 16 MiB limit. */
export function lengthCap(elementBytes: number): number {
  return Math.max(1, Math.floor(PARENT_BYTES_CAP / Math.max(1, elementBytes + 8)));
}

/**
 * Lengths to measure, after the benchmark's table (1 to 10,000 comments per post): 1, 100, the observed p95, the
 * longest now and the projected length (the length any document reaches in projectionDays at its own pace: analyze.ts,
 * projectionOf), capped below 16 MiB.
 */
export function lengthsToMeasure(evidence: Finding['evidence'], elementBytes: number): number[] {
  const cap = lengthCap(elementBytes);
  const want = [1, 100, Number(evidence.lengthP95), Number(evidence.projectedLength ?? evidence.lengthMax), Number(evidence.lengthMax)];
  const set = new Set<number>();
  for (const w of want) if (Number.isFinite(w) && w >= 1) set.add(Math.min(Math.round(w), cap));
  return [...set].sort((a, b) => a - b).slice(0, 5);
}

/**
 * How the projected length was derived, as a sentence: "The projected length, 36,500, is one document's 6,500 elements
 * now + its 100 a day × 300 days (the pace counted from the dates at `comments.at` over 30 days)". The document is the
 * one that reaches the most (analyze.ts, projectionOf), not necessarily the longest now: the same length the finding's
 * message states. Empty when there is no projection.
 */
export function projectionText(evidence: Finding['evidence'], elementBytes: number): string {
  const length = evidence.projectedLength;
  if (typeof length !== 'number') return '';
  const from = Number(evidence.projectedFromLength);
  const perDay = Number(evidence.projectedPerDay);
  const days = Number(evidence.projectionDays);
  const basis =
    evidence.paceSource === 'elements'
      ? `the pace counted from the dates at \`${String(evidence.paceFrom)}\` over ${formatNumber(Number(evidence.paceWindowDays))} days`
      : `the pace of its length over its document's age (creation time from \`${String(evidence.paceFrom)}\`)`;
  const cap = lengthCap(elementBytes);
  const capped = length > cap ? `; measured at ${formatNumber(cap)}, the most elements of ${formatBytes(elementBytes)} a parent holds below ${formatBytes(PARENT_BYTES_CAP)}` : '';
  const sum = `one document's ${formatNumber(from)} elements now + its ${formatNumber(perDay)} a day × ${formatNumber(days)} days`;
  return `The projected length, ${formatNumber(length)}, is ${sum} (${basis})${capped}.`;
}

function syntheticItem(bytes: number): Doc {
  return { body: 'x'.repeat(Math.max(1, bytes - 20)) };
}

/** One real element of the user's array, or a filler of the observed size when none can be read. */
async function itemTemplate(ctx: ConfirmContext, f: Finding, elementBytes: number): Promise<{ item: unknown; real: boolean }> {
  const { db, collection, path } = f.target;
  // a top-level array a dotted path names (not `$in`, not `"a.b"`): `path.0` asks for its first element
  const top = path ? dottedPath(path) : null;
  if (collection && top && !top.includes('.')) {
    const docs = await ctx.sourceDocs(db, collection, { limit: 1, filter: { [`${top}.0`]: { $exists: true } } });
    const arr = docs[0]?.[top];
    if (Array.isArray(arr) && arr.length > 0 && arr[0] !== undefined) return { item: arr[0], real: true };
  }
  return { item: syntheticItem(elementBytes), real: false };
}

const fmtRatio = (x: number): string => `${x.toFixed(x >= 10 ? 0 : 1)}x`;

export async function confirmArrayGrowth(ctx: ConfirmContext, f: Finding, _o: ArrayGrowthOptions): Promise<Omit<Confirmation, 'durationMs' | 'where'>> {
  const elementBytes = Math.max(1, Number(f.evidence.elementBytes) || 1024);
  const { item, real } = await itemTemplate(ctx, f, elementBytes);
  const lengths = lengthsToMeasure(f.evidence, elementBytes);
  const s = ctx.scratch;
  await s.drop('array_growth_embedded');
  await s.drop('array_growth_children');
  await s.create('array_growth_embedded');
  await s.create('array_growth_children');
  await s.command({ createIndexes: 'array_growth_children', indexes: [{ key: { parentId: 1 }, name: 'parentId_1' }] });

  const measurements: Measurement[] = [];
  const pairs: { length: number; embedded: Timed; referenced: Timed }[] = [];
  for (let i = 0; i < lengths.length; i++) {
    const L = lengths[i] as number;
    const budget = ctx.budget.slice(1 / (lengths.length - i));
    ctx.log(`  array-growth: preparing a parent with ${formatNumber(L)} elements`);
    await s.command({ insert: 'array_growth_embedded', documents: [{ _id: L, items: new Array<unknown>(L).fill(item) }] });
    // One push per trial: at 10,000+ elements a single push can take a second on a slow server, and the budget must reach those lengths.
    const pushes = [{ q: { _id: L }, u: { $push: { items: item } } }];
    const children = (): Doc[] => [{ parentId: L, item }];
    const embedded = await timeTrials(`$push into an array of ${formatNumber(L)}`, budget.slice(0.75), async () => {
      const r = await s.command({ update: 'array_growth_embedded', updates: pushes, ordered: true });
      if (Number(r.nModified) !== 1) throw new Error(`the server modified ${String(r.nModified)} documents on $push, not 1`);
    });
    const referenced = await timeTrials(`insert into a child collection (parent of ${formatNumber(L)})`, budget, async () => {
      const r = await s.command({ insert: 'array_growth_children', documents: children(), ordered: true });
      if (Number(r.n) !== 1) throw new Error(`the server inserted ${String(r.n)} documents, not 1`);
    });
    measurements.push(toMeasurement(embedded), toMeasurement(referenced));
    pairs.push({ length: L, embedded, referenced });
    await s.command({ delete: 'array_growth_embedded', deletes: [{ q: { _id: L }, limit: 1 }] });
    if (ctx.budget.exhausted) break;
  }
  await s.drop('array_growth_embedded');
  await s.drop('array_growth_children');

  const complete = pairs.filter((p) => p.embedded.complete && p.referenced.complete && p.embedded.samples.length > 0);
  const largest = complete[complete.length - 1];
  const skipped = lengths.filter((L) => !complete.some((p) => p.length === L));
  const itemNote = real ? 'one real element of the array' : `a filler element of the observed ${formatBytes(elementBytes)}`;
  if (!largest) {
    return {
      status: 'inconclusive',
      summary: `The time budget ran out before five trials at any length (${formatDuration(ctx.settings.budgetMs)} per finding); raise it with --confirm-budget. ${projectionText(f.evidence, elementBytes)}`.trim(),
      measurements,
    };
  }
  const ratio = ratioOf(`$push / referenced insert at ${formatNumber(largest.length)} elements`, largest.embedded, largest.referenced);
  // The benchmark's shape: the slowdown at each length, as one line.
  const series = complete.map((p) => `${formatNumber(p.length)} → ${fmtRatio(ratioOf('', p.embedded, p.referenced).median)}`).join(', ');
  const v = verdict(ratio, 1);
  const parts = [
    `With ${itemNote}, a $push into an array of ${formatNumber(largest.length)} took ${formatDuration(toMeasurement(largest.embedded).median)} against ${formatDuration(toMeasurement(largest.referenced).median)} for inserting the same item into a child collection: ${fmtRatio(ratio.median)} (${ciLabel(ratio)} ${fmtRatio(ratio.low)}–${fmtRatio(ratio.high)})`,
    complete.length > 1 ? `. Slowdown by array length: ${series}` : '',
    skipped.length ? `. Not measured within the budget: ${skipped.map((x) => formatNumber(x)).join(', ')} elements` : '',
    '.',
  ];
  const projected = projectionText(f.evidence, elementBytes);
  if (projected) parts.push(` ${projected}`);
  return {
    status: v === 'above' ? 'supported' : v === 'below' ? 'refuted' : 'inconclusive',
    summary: parts.join(''),
    ratio,
    measurements,
  };
}
