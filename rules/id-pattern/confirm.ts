import { codeSpan } from '../../src/lib/shell';
import { sentence } from '../../src/core/rule';
import { randomBytes } from 'node:crypto';
import type { BsonKit, Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import { Profiler } from '../../src/collect/profile';
import type { ConfirmContext } from '../../src/confirm/context';
import {
  DEFAULT_TRIALS,
  decisionEdges,
  MIN_BLOCKS,
  NOISE_MARGIN,
  ratioOf,
  toMeasurement,
} from '../../src/confirm/harness';
import { alternate, roundsOf } from '../../src/confirm/trials';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import type { Scratch } from '../../src/confirm/scratch';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { CollectionSnapshot, Confirmation, Finding, Measurement, RatioClaim, Verdict } from '../../src/core/types';
import type { IdPatternOptions } from './options';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;
/** Most documents per timed insert. */
const BATCH = 500;
/** Timed runs per collection (warm-up included): every one inserts a batch, and the documents stay. */
const RUNS = roundsOf({ ...DEFAULT_TRIALS, maxTrials: DEFAULT_TRIALS.trials });
const CLUSTERED = 'id_clustered';
/**
 * A range scan must be at least 10% faster clustered (or slower) for a verdict: with no real difference an interval
 * that only has to leave out 1 does so up to 5% of the time, and the demo's three such findings then flip between runs.
 */
const REGULAR = 'id_regular';

/** UUID v7: 48-bit millisecond time, version 7, random rest; `seq` keeps ids made in one millisecond ordered. */
export function uuid7Hex(ms: number, seq: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | ((seq >> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  return b.toString('hex');
}

export function uuid4Hex(): string {
  const b = randomBytes(16);
  b[6] = 0x40 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  return b.toString('hex');
}

/** _ids made like the collection's: same type, same order (monotonic or random), same size for strings. */
function idGenerator(bson: BsonKit, evidence: Finding['evidence']): { make: () => unknown; describe: string } {
  const label = String(evidence.idType);
  const random = evidence.order === 'random';
  let n = 0;
  let ms = Date.now();
  if (label === 'ObjectId') return { make: () => bson.objectId(), describe: 'new ObjectIds (monotonic)' };
  if (evidence.uuidAsString === true) {
    const text = (hex: string): string =>
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    return random
      ? { make: () => text(uuid4Hex()), describe: 'random UUID v4 strings' }
      : {
          make: () => {
            const seq = n++ % 4096;
            if (seq === 4095) ms++;
            return text(uuid7Hex(ms, seq));
          },
          describe: 'UUID v7 strings (time-ordered)',
        };
  }
  if (label.startsWith('UUID v7') || (label.startsWith('UUID') && !random)) {
    return {
      make: () => {
        const seq = n++ % 4096;
        if (seq === 4095) ms++;
        return bson.uuid(uuid7Hex(ms, seq));
      },
      describe: 'UUID v7 (time-ordered)',
    };
  }
  if (label.startsWith('UUID')) return { make: () => bson.uuid(uuid4Hex()), describe: 'random UUID v4' };
  if (label === 'string') {
    const len = Math.max(1, Number(evidence.idBytes) - 5);
    return random
      ? { make: () => randomBytes(len).toString('hex').slice(0, len), describe: `random ${len}-character strings` }
      : { make: () => String(n++).padStart(len, '0'), describe: `increasing ${len}-character strings` };
  }
  if (label.includes('integer')) {
    return random
      ? { make: () => Math.floor(Math.random() * 2 ** 31), describe: 'random integers' }
      : { make: () => n++, describe: 'increasing integers' };
  }
  return { make: () => bson.objectId(), describe: 'new ObjectIds (the _id type could not be reproduced)' };
}

function strip(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

export interface InsertBatch {
  /** Positions of the copied documents that make one batch, in order (a document may come back to fill it). */
  picks: number[];
  /** Their BSON bytes. */
  bytes: number;
  /** Copied documents over the batch limit, left out (when every one is, the batch is the smallest alone). */
  tooLarge: number;
}

/**
 * One timed insert's documents: the copied documents in order, repeated if needed, up to `maxDocs` and `maxBytes`.
 * Every run inserts a batch and keeps it, so the bytes written per collection are about RUNS × maxBytes.
 */
export function planInsertBatch(sizes: readonly number[], maxDocs: number, maxBytes: number): InsertBatch {
  const tooLarge = sizes.filter((b) => b > maxBytes).length;
  const fits = sizes.map((_, i) => i).filter((i) => (sizes[i] as number) <= maxBytes);
  if (fits.length === 0) {
    if (sizes.length === 0) return { picks: [], bytes: 0, tooLarge };
    const smallest = sizes.reduce((m, b, i) => (b < (sizes[m] as number) ? i : m), 0);
    return { picks: [smallest], bytes: sizes[smallest] as number, tooLarge };
  }
  const picks: number[] = [];
  let bytes = 0;
  for (let added = true; added && picks.length < maxDocs; ) {
    added = false;
    for (const i of fits) {
      if (picks.length >= maxDocs) break;
      const b = sizes[i] as number;
      if (bytes + b > maxBytes) continue;
      picks.push(i);
      bytes += b;
      added = true;
    }
  }
  return { picks, bytes, tooLarge };
}

type IndexSizes = { sizes: Record<string, number> } | { error: string };

/** storageStats.indexSizes of the named indexes, or why they could not be read. */
async function indexSizes(s: Scratch, coll: string, names: readonly string[]): Promise<IndexSizes> {
  try {
    const rows = await s.cursor(
      { aggregate: coll, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {}, maxTimeMS: 10_000 },
      { maxTimeMS: 10_000 },
    );
    const sizes = (rows[0]?.storageStats as Doc | undefined)?.indexSizes as Doc | undefined;
    if (!sizes) return { error: '$collStats returned no storageStats.indexSizes' };
    const missing = names.filter((n) => sizes[n] === undefined);
    if (missing.length) return { error: `$collStats listed no size for ${missing.map((n) => codeSpan(n)).join(', ')}` };
    return { sizes: Object.fromEntries(names.map((n) => [n, Number(sizes[n])])) };
  } catch (err) {
    return { error: `$collStats failed: ${describeServerError(err)}` };
  }
}

interface SizeComparison {
  /** Sentence for the summary (empty when there is nothing to say). */
  text: string;
  measurements: Measurement[];
  /** Summed secondary index bytes, only when the server measured them after a flush and the copies hold as many
   * documents. */
  compared: { clustered: number; regular: number } | null;
}

/**
 * Secondary index sizes of the two copies, after fsync (WiredTiger reports a file's size as of its last checkpoint).
 * A size the server did not measure is never shown: 0 bytes for an index over thousands of entries is not a size.
 */
async function compareIndexSizes(
  s: Scratch,
  names: readonly string[],
  docs: { clustered: number; regular: number },
): Promise<SizeComparison> {
  const none: SizeComparison = { text: '', measurements: [], compared: null };
  if (names.length === 0)
    return { ...none, text: ' The collection has no secondary index, so there are no index sizes to compare.' };
  let flushNote = '';
  try {
    await s.fsync();
  } catch (err) {
    flushNote =
      ` fsync was refused (${describeServerError(err)}), so the sizes may predate WiredTiger's next ` +
      `checkpoint and are not used in the verdict.`;
  }
  const c = await indexSizes(s, CLUSTERED, names);
  const r = await indexSizes(s, REGULAR, names);
  const list = names.map((n) => codeSpan(n)).join(', ');
  if ('error' in c || 'error' in r) {
    const why = 'error' in c ? `clustered copy: ${c.error}` : '';
    const why2 = 'error' in r ? `regular copy: ${r.error}` : '';
    return { ...none, text: ` Secondary index sizes could not be read (${[why, why2].filter(Boolean).join('; ')}).` };
  }
  const zero = names.flatMap((n) => [
    ...(c.sizes[n] === 0 ? [`${n} (clustered)`] : []),
    ...(r.sizes[n] === 0 ? [`${n} (regular)`] : []),
  ]);
  const counts = `${formatNumber(docs.clustered)} and ${formatNumber(docs.regular)} documents`;
  if (zero.length) {
    const all = zero.length === names.length * 2;
    return {
      ...none,
      text:
        ` Secondary index sizes could not be read: $collStats reported 0 bytes ` +
        `for ${all ? `every secondary index (${list}) of both copies` : zero.join(', ')}, which ` +
        `hold ${docs.clustered === docs.regular ? `${formatNumber(docs.regular)} documents each` : counts}: ` +
        `this server did not measure the index storage, so no size is shown.`,
    };
  }
  const secC = names.reduce((t, n) => t + (c.sizes[n] as number), 0);
  const secR = names.reduce((t, n) => t + (r.sizes[n] as number), 0);
  const measurements: Measurement[] = [
    { label: 'secondary index bytes, clustered', unit: 'bytes', median: secC, low: secC, high: secC, trials: 1 },
    { label: 'secondary index bytes, regular', unit: 'bytes', median: secR, low: secR, high: secR, trials: 1 },
  ];
  const same = docs.clustered === docs.regular;
  const comparison = same
    ? ` (${secC >= secR ? '+' : ''}${Math.round((secC / secR - 1) * 100)}%)`
    : `, not compared: the copies hold ${counts} (the time budget ran out)`;
  const text =
    ` Secondary indexes (${list}): ${formatBytes(secC)} clustered vs ${formatBytes(secR)} regular${comparison}.` +
    flushNote;
  return { text, measurements, compared: same && !flushNote ? { clustered: secC, regular: secR } : null };
}

/** The findings that advise against clustering (a random or a large _id): supported when clustered inserts are slower
 * or the indexes grow. */
const ADVISE_AGAINST: readonly string[] = ['adviseAgainstClustered', 'adviseAgainstClusteredLarge'];
/** The findings the experiment tests: the advice against clustering, and the advice for it (supported by a faster _id
 * range scan). */
export const CONFIRMABLE: readonly string[] = ['recommendClustered', 'recommendClusteredNoGrowth', ...ADVISE_AGAINST];

export async function confirmIdPattern(ctx: ConfirmContext, f: Finding, o: IdPatternOptions): Promise<Result> {
  if (!CONFIRMABLE.includes(f.messageId)) {
    return {
      status: 'not-run',
      summary: 'Nothing to measure: this finding makes no clustered-vs-regular claim.',
      measurements: [],
    };
  }
  const s = ctx.scratch;
  await s.drop(CLUSTERED);
  await s.drop(REGULAR);
  let clusteredOptions: Doc;
  try {
    clusteredOptions = await s.create(CLUSTERED, { clusteredIndex: { key: { _id: 1 }, unique: true } });
  } catch (err) {
    await s.drop(CLUSTERED);
    return {
      status: 'not-run',
      summary: 'The server refused to create a clustered collection, so nothing was measured.',
      reason: describeServerError(err),
      measurements: [],
    };
  }
  try {
    if (clusteredOptions.clusteredIndex === undefined) {
      return {
        status: 'not-run',
        summary:
          'The server accepted clusteredIndex but ignored it (listCollections shows no clusteredIndex on ' +
          'the scratch collection), so nothing was measured.',
        reason: 'clustered collections are not supported by this server',
        measurements: [],
      };
    }
    return await measure(ctx, f, o.scanMargin);
  } finally {
    // Also after an error: what the copies hold must not crowd out the experiments that follow.
    await s.drop(CLUSTERED);
    await s.drop(REGULAR);
  }
}

/** The documents one insert batch holds: copies of the source's (within the copy limit), or filler without any. */
async function batchOf(ctx: ConfirmContext, f: Finding, snap: CollectionSnapshot | undefined) {
  const { db, collection } = f.target;
  // Copy no more than a batch needs: at most BATCH documents and, by the sampled sizes, about maxBytes.
  const sampled = snap?.sample.docs ?? [];
  const sampleAvg = sampled.length ? sampled.reduce((t, d) => t + d.bytes, 0) / sampled.length : 0;
  const limit = sampleAvg > 0 ? Math.max(1, Math.min(BATCH, Math.floor(ctx.settings.maxBytes / sampleAvg))) : BATCH;
  const copied = collection ? await ctx.sourceDocs(db, collection, { limit }) : [];
  const profiler = new Profiler(null);
  const sizes = copied.map((d) => profiler.profile(d).bytes);
  const bodies = copied.map(strip);
  // Both copies get every batch: the bytes written stay within the copy limit (maxBytes) in all.
  const capBytes = Math.max(1, Math.floor(ctx.settings.maxBytes / (2 * RUNS)));
  const plan =
    bodies.length > 0
      ? planInsertBatch(sizes, BATCH, capBytes)
      : { picks: Array.from({ length: BATCH }, (_, i) => i), bytes: BATCH * 20, tooLarge: 0 };
  const bodiesOfBatch = bodies.length > 0 ? plan.picks.map((i) => bodies[i] as Doc) : plan.picks.map((i) => ({ v: i }));
  const what =
    copied.length > 0
      ? `batches of ${formatNumber(bodiesOfBatch.length)} documents (${formatBytes(plan.bytes)}) drawn in ` +
        `turn from the ${formatNumber(copied.length)} copied ` +
        `from ${collection ?? ''}${batchNote(plan, copied.length, capBytes)}`
      : `batches of ${formatNumber(bodiesOfBatch.length)} filler documents`;
  return { bodies: bodiesOfBatch, what };
}

/** Inserts timed in alternation: every batch made up front, each copy's `_id`s from the same stretch. */
async function timeInserts(ctx: ConfirmContext, gen: ReturnType<typeof idGenerator>, bodies: readonly Doc[]) {
  const s = ctx.scratch;
  // Every run's _ids made up front and interleaved (one for the clustered copy, then one for the regular one), so both
  // copies hold _ids from the same stretch: an _id range then covers the same share of each.
  const runs: { clustered: Doc[]; regular: Doc[] }[] = [];
  for (let k = 0; k < RUNS; k++) {
    const clustered: Doc[] = [];
    const regular: Doc[] = [];
    for (const b of bodies) {
      clustered.push({ _id: gen.make(), ...b });
      regular.push({ _id: gen.make(), ...b });
    }
    runs.push({ clustered, regular });
  }
  const inserted = { clustered: 0, regular: 0 };
  const insertInto =
    (which: 'clustered' | 'regular') =>
    async (trial: number): Promise<void> => {
      const docs = runs[trial]?.[which] ?? [];
      const n = await s.insertMany(which === 'clustered' ? CLUSTERED : REGULAR, docs);
      inserted[which] += n;
      if (n !== docs.length) throw new Error(`the ${which} copy took ${n} of ${docs.length} documents`);
    };
  // Timed in alternation, round by round (each round's ratio shares that moment's load); RUNS batches were made up
  // front, so no extra rounds (maxTrials = trials).
  const next = { clustered: 0, regular: 0 };
  const [clustered, regular] = await alternate(
    ctx.budget.slice(0.6),
    { label: `insert ${bodies.length} docs, clustered`, run: () => insertInto('clustered')(next.clustered++) },
    { label: `insert ${bodies.length} docs, regular`, run: () => insertInto('regular')(next.regular++) },
    { ...DEFAULT_TRIALS, maxTrials: DEFAULT_TRIALS.trials },
  );
  return { clustered, regular, inserted };
}

/** An `_id` range scan over about a tenth of what was inserted, timed in alternation on both copies. */
async function timeRangeScans(ctx: ConfirmContext, scanMargin: number) {
  const s = ctx.scratch;
  const ids = (await s.command({
    find: REGULAR,
    filter: {},
    projection: { _id: 1 },
    sort: { _id: 1 },
    limit: 100000,
    batchSize: 100000,
  })) as { cursor?: { firstBatch?: Doc[] } };
  const sorted = ids.cursor?.firstBatch ?? [];
  const lo = sorted[Math.floor(sorted.length * 0.45)]?._id;
  const hi = sorted[Math.floor(sorted.length * 0.55)]?._id;
  const returned = { id_clustered: 0, id_regular: 0 };
  const scan = (coll: typeof CLUSTERED | typeof REGULAR) => async (): Promise<void> => {
    const r = (await s.command({
      find: coll,
      filter: { _id: { $gte: lo, $lte: hi } },
      batchSize: 100000,
      singleBatch: true,
    })) as { cursor?: { firstBatch?: Doc[] } };
    returned[coll] = r.cursor?.firstBatch?.length ?? 0;
  };
  // More rounds while the interval holds 1 or either edge of the margin (below): the verdict is undecided there.
  const [clustered, regular] = await alternate(
    ctx.budget.slice(1),
    { label: '_id range scan, clustered', run: scan(CLUSTERED) },
    { label: '_id range scan, regular', run: scan(REGULAR) },
    { ...DEFAULT_TRIALS, thresholds: decisionEdges(scanClaim(), scanMargin) },
  );
  return { clustered, regular, range: { clustered: returned.id_clustered, regular: returned.id_regular } };
}

async function measure(ctx: ConfirmContext, f: Finding, scanMargin: number): Promise<Result> {
  const s = ctx.scratch;
  const { db, collection } = f.target;
  await s.create(REGULAR);
  const snap = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((c) => c.name === collection);
  const batch = await batchOf(ctx, f, snap);
  const secondary = (snap?.indexes ?? [])
    .filter((i) => i.name !== '_id_' && !i.unique && !Object.values(i.key).some((v) => typeof v === 'string'))
    .map((i) => ({ key: i.key, name: i.name }));
  for (const c of [CLUSTERED, REGULAR]) if (secondary.length) await s.command({ createIndexes: c, indexes: secondary });

  const gen = idGenerator(s.bson, f.evidence);
  const ins = await timeInserts(ctx, gen, batch.bodies);
  const scans = await timeRangeScans(ctx, scanMargin);
  const sizes = await compareIndexSizes(
    s,
    secondary.map((i) => i.name),
    ins.inserted,
  );

  const measurements: Measurement[] = [
    toMeasurement(ins.clustered),
    toMeasurement(ins.regular),
    toMeasurement(scans.clustered),
    toMeasurement(scans.regular),
    ...sizes.measurements,
  ];
  const complete = ins.clustered.complete && ins.regular.complete && scans.clustered.complete && scans.regular.complete;
  const insertRatio = ratioOf('insert time, clustered / regular', ins.clustered, ins.regular);
  const scanRatio = ratioOf('_id range scan time, clustered / regular', scans.clustered, scans.regular);
  const { range } = scans;
  const scanned =
    range.clustered === range.regular
      ? `${formatNumber(range.regular)} documents each`
      : `${formatNumber(range.clustered)} documents clustered, ${formatNumber(range.regular)} regular`;
  const words = {
    ids: gen.describe,
    what: batch.what,
    scanned,
    c: formatDuration(toMeasurement(ins.clustered).median),
    r: formatDuration(toMeasurement(ins.regular).median),
  };
  return verdictOf(f, scanMargin, { insertRatio, scanRatio, complete, measurements, sizes, range }, words);
}

interface Measured {
  insertRatio: ReturnType<typeof ratioOf>;
  scanRatio: ReturnType<typeof ratioOf>;
  complete: boolean;
  measurements: Measurement[];
  sizes: SizeComparison;
  range: { clustered: number; regular: number };
}

/** The verdict from the numbers (the claim the finding makes), and the sentences it picks. */
function verdictOf(
  f: Finding,
  scanMargin: number,
  m: Measured,
  words: { ids: string; what: string; scanned: string; c: string; r: string },
): Result {
  const { insertRatio, scanRatio, complete, measurements, sizes: sizes2, range } = m;
  const against = ADVISE_AGAINST.includes(f.messageId);
  const claim = against ? againstClaim() : scanClaim();
  // The scan is judged with scanMargin as its noise margin; the inserts with the harness's.
  const margin = against ? NOISE_MARGIN : scanMargin;
  const body =
    say(M, 'measuredRuns', {
      ...words,
      insert: figure(insertRatio, against ? claim : undefined),
      scan: figure(scanRatio, against ? undefined : claim, scanMargin),
    }) + sizes2.text;
  const out = (
    status: Verdict,
    id: Exclude<keyof typeof M, 'measuredRuns' | 'inconclusiveBudget'>,
    ratio: typeof insertRatio,
  ): Result => ({
    status,
    claim,
    summary: `${body} ${say(M, id, { claim: claim.text, margin: noisePercent(margin) })}`,
    ratio,
    measurements,
  });
  if (!complete)
    return {
      status: 'inconclusive',
      claim,
      summary: `${body} ${say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS })}`,
      ratio: insertRatio,
      measurements,
    };
  if (against) {
    const v = judge(claim, insertRatio);
    const bigger = sizes2.compared !== null && sizes2.compared.clustered > sizes2.compared.regular * 1.05;
    if (v === 'supported') return out('supported', 'supportedAgainstInserts', insertRatio);
    if (bigger) return out('supported', 'supportedAgainstIndexes', insertRatio);
    return v === 'refuted'
      ? out('refuted', 'refutedAgainst', insertRatio)
      : out('inconclusive', 'inconclusiveAgainst', insertRatio);
  }
  // Ranges that return different counts time different work: not a comparison of the two layouts.
  if (
    range.clustered === 0 ||
    Math.abs(range.clustered - range.regular) > 0.2 * Math.max(range.clustered, range.regular)
  ) {
    return out('inconclusive', 'inconclusiveRangeMismatch', scanRatio);
  }
  const v = judge(claim, scanRatio, scanMargin);
  return out(v, v === 'supported' ? 'supportedScan' : v === 'refuted' ? 'refutedScan' : 'inconclusiveScan', scanRatio);
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredRuns: sentence(
    'With {{ids}} and {{what}}: inserts took {{insert}} as long clustered as regular (median {{c}} vs {{r}} ',
    'per batch); an _id range scan ({{scanned}}) took {{scan}} as long clustered as regular.',
  ),
  supportedAgainstInserts: 'The insert interval lies above 1x: the claim that {{claim}} holds.',
  supportedAgainstIndexes: 'The secondary indexes are more than 5% larger clustered: the claim that {{claim}} holds.',
  refutedAgainst:
    'The insert interval lies below 1x and the secondary indexes did not grow: the claim that {{claim}} does not hold.',
  inconclusiveAgainst: sentence(
    'The insert interval reaches within {{margin}} of 1x and the index sizes show no growth that was ',
    'measured, so whether {{claim}} is not shown either way.',
  ),
  supportedScan:
    'The scan interval lies below 1x, clear of the {{margin}} margin (scanMargin): the claim that {{claim}} holds.',
  refutedScan: sentence(
    'The scan interval lies above 1x, clear of the {{margin}} margin (scanMargin): the claim that {{claim}} ',
    'does not hold.',
  ),
  inconclusiveScan:
    'The scan interval reaches within {{margin}} of 1x (scanMargin), so whether {{claim}} is not shown either way.',
  inconclusiveRangeMismatch: sentence(
    'The range returned different numbers of documents from the two copies, so the scan times are not ',
    'comparable and whether {{claim}} is not shown.',
  ),
  inconclusiveBudget:
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached.',
} as const;
const M = CONFIRM_MESSAGES;

/** The advice against clustering: clustered costs more (inserts take longer: clustered / regular above 1; or bigger
 * indexes). */
export function againstClaim(): RatioClaim {
  return ratioClaim(
    'above',
    1,
    'clustering this collection costs more: inserts take longer, or the secondary indexes grow by more than 5%',
  );
}

/**
 * The advice for clustering: an _id range scan is faster clustered (clustered / regular below 1). It is judged with
 * `scanMargin` as the noise margin: supported below 1 / scanMargin, refuted above scanMargin.
 */
export function scanClaim(): RatioClaim {
  return ratioClaim('below', 1, 'an _id range scan is faster clustered');
}

/** What the batch left out, in words ('' when nothing). */
function batchNote(plan: InsertBatch, copied: number, capBytes: number): string {
  if (plan.tooLarge === 0) return '';
  if (plan.tooLarge === copied)
    return ` (every one is over the ${formatBytes(capBytes)} batch limit, so each batch is the smallest alone)`;
  return ` (${formatNumber(plan.tooLarge)} over the ${formatBytes(capBytes)} batch limit left out)`;
}
