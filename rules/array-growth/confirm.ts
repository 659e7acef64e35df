import { codeSpan } from '../../src/lib/shell';
import { sentence } from '../../src/core/rule';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/confirm/context';
import { DEFAULT_TRIALS, MIN_BLOCKS, ratioOf, toMeasurement, type Timed } from '../../src/confirm/harness';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatBytes, formatDuration, formatNumber, formatSignificant } from '../../src/core/format';
import type { Confirmation, Finding, Measurement, RatioClaim } from '../../src/core/types';
import { alternate } from '../../src/confirm/trials';
import { dottedPath } from '../../src/lib/doc-path';
import type { ArrayGrowthOptions } from './options';

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
  const want = [
    1,
    100,
    Number(evidence.lengthP95),
    Number(evidence.projectedLength ?? evidence.lengthMax),
    Number(evidence.lengthMax),
  ];
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
      ? `the pace counted from the dates at ${codeSpan(String(evidence.paceFrom))} ` +
        `over ${formatNumber(Number(evidence.paceWindowDays))} days`
      : `the pace of its length over its document's age, dated by ${codeSpan(String(evidence.paceFrom))}`;
  const cap = lengthCap(elementBytes);
  const capped =
    length > cap
      ? `; measured at ${formatNumber(cap)}, the most elements of ${formatBytes(elementBytes)} a parent holds ` +
        `below ${formatBytes(PARENT_BYTES_CAP)}`
      : '';
  const sum =
    `one document's ${formatNumber(from)} elements now + its ${formatNumber(perDay)} a day ` +
    `× ${formatNumber(days)} days`;
  return `The projected length, ${formatNumber(length)}, is ${sum} (${basis})${capped}.`;
}

function syntheticItem(bytes: number): Doc {
  return { body: 'x'.repeat(Math.max(1, bytes - 20)) };
}

/** One real element of the user's array, or a filler of the observed size when none can be read. */
async function itemTemplate(
  ctx: ConfirmContext,
  f: Finding,
  elementBytes: number,
): Promise<{ item: unknown; real: boolean }> {
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

export async function confirmArrayGrowth(
  ctx: ConfirmContext,
  f: Finding,
  _o: ArrayGrowthOptions,
): Promise<Omit<Confirmation, 'durationMs' | 'where'>> {
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
    const { embedded, referenced } = await timeAtLength(ctx, L, item, budget);
    measurements.push(toMeasurement(embedded), toMeasurement(referenced));
    pairs.push({ length: L, embedded, referenced });
    await s.command({ delete: 'array_growth_embedded', deletes: [{ q: { _id: L }, limit: 1 }] });
    if (ctx.budget.exhausted) break;
  }
  await s.drop('array_growth_embedded');
  await s.drop('array_growth_children');
  return verdictOf(ctx, f, { lengths, pairs, measurements, real, elementBytes });
}

/** A parent of `L` elements: one $push into it timed against one insert into a child collection, in alternation. */
async function timeAtLength(
  ctx: ConfirmContext,
  L: number,
  item: unknown,
  budget: ConfirmContext['budget'],
): Promise<{ embedded: Timed; referenced: Timed }> {
  const s = ctx.scratch;
  ctx.log(`  array-growth: preparing a parent with ${formatNumber(L)} element${L === 1 ? '' : 's'}`);
  await s.command({
    insert: 'array_growth_embedded',
    documents: [{ _id: L, items: new Array<unknown>(L).fill(item) }],
  });
  // One push per trial: at 10,000+ elements a single push can take a second on a slow server, and the budget must
  // reach those lengths.
  const pushes = [{ q: { _id: L }, u: { $push: { items: item } } }];
  const children = (): Doc[] => [{ parentId: L, item }];
  // Timed in alternation, round by round, so the drift of the run falls on both arms (harness.ts: blocks of rounds).
  const [embedded, referenced] = await alternate(
    budget,
    {
      label: `$push into an array of ${formatNumber(L)}`,
      run: async () => {
        const r = await s.command({ update: 'array_growth_embedded', updates: pushes, ordered: true });
        if (Number(r.nModified) !== 1)
          throw new Error(`the server modified ${String(r.nModified)} documents on $push, not 1`);
      },
    },
    {
      label: `insert into a child collection (parent of ${formatNumber(L)})`,
      run: async () => {
        const r = await s.command({ insert: 'array_growth_children', documents: children(), ordered: true });
        if (Number(r.n) !== 1) throw new Error(`the server inserted ${String(r.n)} documents, not 1`);
      },
    },
    DEFAULT_TRIALS,
  );
  return { embedded, referenced };
}

/** What the lengths measured: the timings, and whether the element was a real one or a filler of the same size. */
interface Run {
  lengths: number[];
  pairs: { length: number; embedded: Timed; referenced: Timed }[];
  measurements: Measurement[];
  real: boolean;
  elementBytes: number;
}

/** The slowdown at the largest length fully timed against the claim, and the sentences that say so. */
function verdictOf(
  ctx: ConfirmContext,
  f: Finding,
  { lengths, pairs, measurements, real, elementBytes }: Run,
): Omit<Confirmation, 'durationMs' | 'where'> {
  const complete = pairs.filter((p) => p.embedded.complete && p.referenced.complete && p.embedded.samples.length > 0);
  const largest = complete[complete.length - 1];
  const started = new Set(pairs.filter((p) => p.embedded.samples.length > 0).map((p) => p.length));
  const unfinished = lengths.filter((L) => !complete.some((p) => p.length === L));
  // Lengths timed in part (their rows are in the table, with a range) apart from those the budget never reached.
  const partial = unfinished.filter((L) => started.has(L));
  const skipped = unfinished.filter((L) => !started.has(L));
  const itemNote = real
    ? 'one real element of the array'
    : `a filler element of the observed ${formatBytes(elementBytes)}`;
  const projected = projectionText(f.evidence, elementBytes);
  if (!largest) {
    const summary = [
      say(M, 'inconclusiveBudget', { budget: formatDuration(ctx.settings.budgetMs), blocks: MIN_BLOCKS }),
      ...(projected ? [projected] : []),
    ].join(' ');
    return { status: 'inconclusive', summary, measurements };
  }
  const ratio = ratioOf(
    `$push / referenced insert at ${formatNumber(largest.length)} elements`,
    largest.embedded,
    largest.referenced,
  );
  const claim = pushClaim(largest.length);
  const status = judge(claim, ratio);
  // The benchmark's shape: the slowdown at each length, as one line.
  const series = complete
    .map((p) => `${formatNumber(p.length)} → ${formatSignificant(ratioOf('', p.embedded, p.referenced).median)}x`)
    .join(', ');
  const parts = [
    say(M, 'measuredPush', {
      item: itemNote,
      length: formatNumber(largest.length),
      push: formatDuration(toMeasurement(largest.embedded).median),
      insert: formatDuration(toMeasurement(largest.referenced).median),
      figure: figure(ratio, claim),
    }),
  ];
  if (complete.length > 1) parts.push(say(M, 'measuredSeries', { series }));
  if (partial.length)
    parts.push(say(M, 'measuredPartial', { lengths: partial.map((x) => formatNumber(x)).join(', ') }));
  if (skipped.length)
    parts.push(say(M, 'measuredSkipped', { lengths: skipped.map((x) => formatNumber(x)).join(', ') }));
  const data = { claim: claim.text, margin: noisePercent() };
  parts.push(
    status === 'supported'
      ? say(M, 'supportedPush', data)
      : status === 'refuted'
        ? say(M, 'refutedPush', data)
        : say(M, 'inconclusivePush', data),
  );
  if (projected) parts.push(projected);
  return { status, claim, summary: parts.join(' '), ratio, measurements };
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredPush: sentence(
    'With {{item}}, a $push into an array of {{length}} took {{push}} against {{insert}} for inserting the ',
    'same item into a child collection: {{figure}}.',
  ),
  measuredSeries: 'Slowdown by array length (median): {{series}}.',
  measuredPartial: sentence(
    'Timed in part before the budget ran out, too few blocks for a 95% interval (their ranges are in the ',
    'table): {{lengths}} elements.',
  ),
  measuredSkipped: 'Not measured within the budget: {{lengths}} elements.',
  supportedPush: 'The interval lies above 1x: the claim that {{claim}} holds.',
  refutedPush: 'The interval lies below 1x: the $push was faster, against the claim that {{claim}}.',
  inconclusivePush: 'The interval reaches within {{margin}} of 1x, so whether {{claim}} is not shown either way.',
  inconclusiveBudget: sentence(
    'The time budget ran out before {{blocks}} blocks of each at any length ({{budget}} per finding), so no ',
    '95% interval was reached; raise it with --confirm-budget.',
  ),
} as const;
const M = CONFIRM_MESSAGES;

/** The claim at the largest length measured: a $push costs more than an insert into a child collection (ratio above
 * 1). */
export function pushClaim(length: number): RatioClaim {
  return ratioClaim(
    'above',
    1,
    `a $push into an array of ${formatNumber(length)} costs more than inserting the item into a child collection`,
  );
}
