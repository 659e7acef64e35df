import { commandCursor } from '../../src/adapters/cursor';
import { type Doc, describeServerError } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { type Timed, type TrialPlan, ratioOf, toMeasurement } from '../../src/confirm/harness';
import { formatNumber } from '../../src/core/format';
import type { Confirmation, Finding } from '../../src/core/types';
import { alternate, ciLabel, fmtRatio, withoutId } from '../../src/confirm/trials';
import { redactServerText } from '../../src/lib/redact';
import type { ValidatorOptions } from './options';
import { plainSchema, proposeSchema } from './propose';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const PLAIN = 'validator_without';
const CHECKED = 'validator_with';
const INSERT_BATCH = 500;
const UPDATE_BATCH = 200;
const BATCH_BYTES = 8 * 1024 * 1024;
/** Each round times a few milliseconds of writes: more trials than the default (within the budget) narrow the interval. */
const PLAN: TrialPlan = { warmup: 2, trials: 21 };
export const MEASURED_FINDINGS = new Set([
  'missing',
  'missingComplete',
  'missingOrdered',
  'levelOff',
  'levelOffInSample',
  'levelOffUncounted',
  'violationsStrict',
  'violationsStrictInSample',
  'violations',
  'violationsInSample',
  'readyForError',
  'readyForErrorInSample',
  'violationsUnknown',
]);

const notRun = (summary: string, reason?: string): Result => ({ status: 'not-run', summary, measurements: [], ...(reason ? { reason } : {}) });

type Ratio = ReturnType<typeof ratioOf>;

export type CostVerdict = 'negligible' | 'measurable' | 'costly' | 'unclear';

/**
 * How a with/without ratio reads. The words compare it with noiseRatio: "within noise" whenever the interval includes
 * 1 and stays under noiseRatio (a wide interval that includes 1 cannot show the validator costs next to nothing). The
 * verdict compares it with costlyRatio: costly when the whole interval lies at or above it; negligible or measurable
 * when the whole interval lies below it (negligible when also under noiseRatio); unclear when it straddles costlyRatio.
 */
export function describeCost(r: Ratio, noiseRatio: number, costlyRatio = Number.POSITIVE_INFINITY): { text: string; verdict: CostVerdict } {
  const pct = (x: number): string => `${Math.round((x - 1) * 100)}%`;
  const verdict = (negligible: boolean): CostVerdict => (negligible ? 'negligible' : r.low >= costlyRatio ? 'costly' : r.high < costlyRatio ? 'measurable' : 'unclear');
  if (r.low <= 1 && r.high >= 1) {
    // "within noise" as the published YCSB benchmark says it; but an interval reaching past noiseRatio cannot show the cost is small
    if (r.high <= noiseRatio) return { text: 'within noise', verdict: 'negligible' };
    return { text: `within noise, but the interval reaches ${pct(r.high)} slower`, verdict: verdict(false) };
  }
  if (r.high < 1) return { text: 'no slower with it', verdict: 'negligible' };
  if (r.high <= noiseRatio) return { text: `at most ${pct(r.high)} slower`, verdict: 'negligible' };
  if (r.low > noiseRatio) return { text: `${pct(r.median)} slower, more than the ${pct(noiseRatio)} noise allowance`, verdict: verdict(false) };
  // the interval excludes 1 (so not "within noise") but reaches below noiseRatio: slower, maybe negligibly
  return { text: `${pct(r.median)} slower, though possibly by no more than the ${pct(noiseRatio)} noise allowance`, verdict: verdict(false) };
}

/** Findings whose claim is that every existing document passes (a proposal set to error, or a switch to error). */
function claimsEveryDocumentPasses(f: Finding): boolean {
  if (f.messageId === 'readyForError' || f.messageId === 'readyForErrorInSample') return true;
  return (f.messageId === 'missing' || f.messageId === 'missingComplete' || f.messageId === 'missingOrdered') && f.evidence.proposedAction === 'error';
}

/** The validator to measure: the collection's own (read from the source), or the proposal (without enums). */
async function validatorToMeasure(ctx: ConfirmContext, f: Finding, o: ValidatorOptions): Promise<{ validator: Doc; what: string } | string> {
  const { db, collection } = f.target;
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  if (!c || !collection) return 'the collection is not in the snapshot';
  if (c.validator.present) {
    const rows = await commandCursor(ctx.source, db, { listCollections: 1, filter: { name: collection }, cursor: {}, maxTimeMS: 10_000 }, { maxTimeMS: 10_000 });
    const validator = (rows[0]?.options as Doc | undefined)?.validator as Doc | undefined;
    return validator ? { validator, what: 'the collection\'s own validator' } : 'the source collection no longer has a validator';
  }
  const p = proposeSchema(c, { ...o, proposeEnums: false });
  if (!p) return 'no validator could be proposed from the sample';
  return { validator: { $jsonSchema: plainSchema(p.schema) }, what: `the proposed validator${o.proposeEnums ? ' (enums left out)' : ''}` };
}

/** The copies as a driver sends them: each keeps its own `_id` (value and BSON type); one without gets a client-side ObjectId. */
export function withIds(docs: readonly Doc[], objectId: () => unknown): Doc[] {
  return docs.map((d) => (d._id === undefined ? { _id: objectId(), ...d } : d));
}

/** A write error as the server reports it in `writeErrors`. */
interface WriteError {
  code?: number;
  codeName?: string;
  errmsg?: string;
}

const DUPLICATE_KEY = 11000;

function describeWriteError(e: WriteError | undefined): string {
  if (!e) return 'no write error reported';
  const head = e.codeName ?? (e.code === 121 ? 'DocumentValidationFailure' : e.code === DUPLICATE_KEY ? 'DuplicateKey' : 'error');
  // An E11000's text holds the duplicate _id, a code 121's may hold the document's: values, never printed.
  const text = redactServerText((e.errmsg ?? '').split('\n')[0] ?? '');
  return `${head}${e.code !== undefined ? ` (${e.code})` : ''}: ${text}`.slice(0, 240);
}

/** Thrown when the server refuses a write the experiment needs: the timings would not compare like with like. */
class Refused extends Error {
  constructor(readonly what: string, readonly done: number, readonly sent: number, readonly first: WriteError | undefined) {
    super(`${what}: the server wrote ${done} of ${sent} (${describeWriteError(first)})`);
  }
}

interface Written {
  /** Documents written (insert: inserted; update: matched). */
  n: number;
  nModified: number;
  errors: WriteError[];
}

async function write(ctx: ConfirmContext, cmd: Doc): Promise<Written> {
  const r = await ctx.scratch.command(cmd);
  return { n: Number(r.n ?? 0), nModified: Number(r.nModified ?? 0), errors: (r.writeErrors as WriteError[] | undefined) ?? [] };
}

/** Inserts in batches by the documents' own sizes (Scratch.copy); counts what the server wrote. */
async function insertAll(ctx: ConfirmContext, coll: string, docs: readonly Doc[]): Promise<Written> {
  const c = await ctx.scratch.copy(coll, docs);
  return { n: c.inserted, nModified: 0, errors: c.writeErrors };
}

/** Documents per update command: about BATCH_BYTES by the collection's average (or largest sampled) document. */
function perBatchOf(ctx: ConfirmContext, db: string, collection: string): number {
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  const largestSampled = Math.max(0, ...(c?.sample.docs ?? []).map((d) => d.bytes));
  const approx = c?.stats?.avgObjSize || largestSampled || 1024;
  return Math.max(1, Math.min(1000, Math.floor(BATCH_BYTES / approx)));
}

/**
 * Insert and update time on two scratch collections, one with the validator (strict, error) and one without,
 * timed in alternation. The server must prove it kept the validator (listCollections read-back): FerretDB
 * accepts none and would otherwise measure nothing. Copies keep their own `_id`s (a schema may type `_id`: a string
 * `_id` stays a string); each timed insert starts from an emptied collection (untimed), so the same `_id`s can be
 * inserted again without duplicates.
 */
export async function confirmValidator(ctx: ConfirmContext, f: Finding, o: ValidatorOptions): Promise<Result> {
  if (!MEASURED_FINDINGS.has(f.messageId)) return notRun('Nothing to measure: this line reports what the in-process check could not do.');
  const target = await validatorToMeasure(ctx, f, o);
  if (typeof target === 'string') return notRun('Nothing was measured.', target);
  const { db } = f.target;
  const collection = f.target.collection ?? '';
  const s = ctx.scratch;
  const copies = withIds(await ctx.sourceDocs(db, collection), () => s.bson.objectId());
  if (copies.length === 0) return notRun('Nothing was measured: the collection returned no documents to copy.');
  await s.drop(PLAIN);
  await s.drop(CHECKED);
  await s.create(PLAIN);
  let kept: Doc;
  try {
    kept = await s.create(CHECKED, { validator: target.validator, validationLevel: 'strict', validationAction: 'error' });
  } catch (err) {
    await s.drop(PLAIN);
    // FerretDB dumps its internal Go value into the message: keep the sentence, drop the dump
    return notRun('The server refused to create a collection with the validator, so nothing was measured.', describeServerError(err).replace(/ with value &\{.*\}(?= is not implemented)/, ''));
  }
  try {
    if (kept.validator === undefined) {
      return notRun(
        'The server accepted the validator but did not keep it (listCollections shows none on the scratch collection), so nothing was measured.',
        ctx.snapshot.server.flavor === 'ferretdb' ? 'FerretDB silently lacks validators' : 'this server does not store validators',
      );
    }
    return await measure(ctx, f, target, copies, perBatchOf(ctx, db, collection), o);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return {
      status: 'error',
      summary: `The server refused ${formatNumber(err.sent - err.done)} of ${formatNumber(err.sent)} writes while ${err.what}, so the two arms would not time the same work and no timing is reported.`,
      reason: describeWriteError(err.first),
      measurements: [],
    };
  } finally {
    await s.drop(PLAIN);
    await s.drop(CHECKED);
  }
}

async function measure(ctx: ConfirmContext, f: Finding, target: { validator: Doc; what: string }, copies: readonly Doc[], perBatch: number, o: ValidatorOptions): Promise<Result> {
  const s = ctx.scratch;
  // Which copies pass: load them (with their _ids) into the plain collection, then query it with the validator itself.
  const loaded = await insertAll(ctx, PLAIN, copies);
  const duplicates = loaded.errors.filter((e) => e.code === DUPLICATE_KEY).length; // $sample may return a document twice
  const refused = loaded.errors.filter((e) => e.code !== DUPLICATE_KEY);
  if (loaded.n === 0) {
    return notRun(`The server accepted none of the ${formatNumber(copies.length)} copied documents into a scratch collection without a validator, so nothing was measured.`, describeWriteError(refused[0]));
  }
  const passing = await s.cursor({ find: PLAIN, filter: target.validator, limit: loaded.n, batchSize: loaded.n }, { limit: loaded.n, maxTimeMS: 30_000 });
  await s.drop(PLAIN);
  await s.create(PLAIN);
  if (passing.length === 0) {
    if (claimsEveryDocumentPasses(f)) {
      return { status: 'refuted', summary: `None of the ${formatNumber(loaded.n)} copied documents passes ${target.what} (used as a query filter on scratch): set to "error" it would reject them all. Nothing was timed.`, measurements: [] };
    }
    return notRun(`None of the ${formatNumber(loaded.n)} copied documents passes ${target.what} (used as a query filter on scratch), so every insert would be rejected and nothing comparable could be timed.`);
  }

  const batch = passing.slice(0, INSERT_BATCH);
  const empty = (coll: string) => async (): Promise<void> => {
    await write(ctx, { delete: coll, deletes: [{ q: {}, limit: 0 }] });
  };
  const insert = (coll: string, where: string) => async (): Promise<void> => {
    const w = await insertAll(ctx, coll, batch);
    if (w.n !== batch.length) throw new Refused(`inserting copied documents that pass the validator (as a query filter) into the scratch collection ${where}`, w.n, batch.length, w.errors[0]);
  };
  // Every ratio the verdict or its words turn on asks for the second look when the interval still holds it:
  // costlyRatio too, or one loaded stretch of rounds leaves "costs less than 2x" unshown (bench/README.md, 2026-11-25).
  const [insWith, insWithout] = await alternate(
    ctx.budget.slice(0.5),
    { label: `insert ${formatNumber(batch.length)} docs, with the validator`, reset: empty(CHECKED), run: insert(CHECKED, 'with the validator') },
    { label: `insert ${formatNumber(batch.length)} docs, without`, reset: empty(PLAIN), run: insert(PLAIN, 'without it') },
    { ...PLAN, thresholds: [1, o.noiseRatio, o.costlyRatio] },
  );

  // Both collections now hold `batch`. Replace some of them by other passing documents: a real change the validator
  // must check. The replacement has no _id (the target keeps its own); with two or more distinct documents each
  // round changes every target (round t gives target i the contents of document i + t).
  const replacements = passing.map(withoutId);
  const targets = batch.slice(0, UPDATE_BATCH).map((d) => d._id);
  const tally = { sent: 0, unchanged: 0 };
  let updates: [Timed, Timed] | null = null;
  if (replacements.length >= 2) {
    const update = (coll: string, where: string) => {
      let round = 0;
      return async (): Promise<void> => {
        round++;
        const all = targets.map((id, i) => ({ q: { _id: id }, u: replacements[(i + round) % replacements.length] as Doc }));
        for (let i = 0; i < all.length; i += perBatch) {
          const part = all.slice(i, i + perBatch);
          const w = await write(ctx, { update: coll, updates: part, ordered: false });
          if (w.errors.length > 0 || w.n !== part.length) throw new Refused(`replacing copied documents by other passing ones in the scratch collection ${where}`, w.n, part.length, w.errors[0]);
          tally.sent += part.length;
          tally.unchanged += part.length - w.nModified;
        }
      };
    };
    updates = await alternate(
      ctx.budget.slice(1),
      { label: `replace ${formatNumber(targets.length)} docs, with the validator`, run: update(CHECKED, 'with the validator') },
      { label: `replace ${formatNumber(targets.length)} docs, without`, run: update(PLAIN, 'without it') },
      { ...PLAN, thresholds: [1, o.noiseRatio, o.costlyRatio] },
    );
  }

  const timed: Timed[] = [insWith, insWithout, ...(updates ?? [])];
  const measurements = timed.map((t) => toMeasurement(t));
  const insRatio = ratioOf('insert time, with / without the validator', insWith, insWithout);
  const ins = describeCost(insRatio, o.noiseRatio, o.costlyRatio);
  const updRatio = updates ? ratioOf('update time, with / without the validator', updates[0], updates[1]) : null;
  const upd = updRatio ? describeCost(updRatio, o.noiseRatio, o.costlyRatio) : null;
  const complete = timed.every((t) => t.complete);
  const verdicts = [ins.verdict, ...(upd ? [upd.verdict] : [])];
  const failing = loaded.n - passing.length;
  // A proposal set to error (or a switch to error) that some copies fail would reject existing documents.
  const rejects = failing > 0 && claimsEveryDocumentPasses(f);
  const status = rejects || verdicts.includes('costly') ? 'refuted' : !complete ? 'inconclusive' : verdicts.every((v) => v === 'negligible' || v === 'measurable') ? 'supported' : 'inconclusive';
  const costly = `${Math.round((o.costlyRatio - 1) * 100)}%`;

  const parts = [
    `With ${target.what} set to "strict"/"error" on a scratch collection and kept by the server (read back from listCollections): ` +
      `inserting ${formatNumber(batch.length)} copied documents took ${fmtRatio(insRatio)} as long as without it, ${ins.text}` +
      (updRatio && upd ? `; replacing ${formatNumber(targets.length)} of them by other copied documents took ${fmtRatio(updRatio)}, ${upd.text}.` : '.'),
  ];
  if (!updates) parts.push('Updates were not timed: only one copied document passes the validator, so replacing a document by another would change nothing.');
  if (failing > 0) parts.push(`${formatNumber(failing)} of the ${formatNumber(loaded.n)} copied documents fail the validator${rejects ? ': set to "error" it would reject them, so the finding is refuted' : ' and were left out'}.`);
  if (duplicates > 0) parts.push(`$sample returned ${formatNumber(duplicates)} of the documents twice; each was copied once.`);
  if (refused.length > 0) parts.push(`The server refused ${formatNumber(refused.length)} copies even without the validator (${describeWriteError(refused[0])}); they were left out.`);
  if (tally.unchanged > 0) parts.push(`${formatNumber(tally.unchanged)} of the ${formatNumber(tally.sent)} replacements sent left the document as it was (identical fields), so the server had nothing to write or validate for them.`);
  // What the verdict turned on: costlyRatio (the words above compare with noiseRatio).
  if (verdicts.includes('costly')) parts.push(`Writes took at least ${costly} longer with it (costlyRatio ${o.costlyRatio}): weigh that against the documents it keeps out.`);
  else if (!rejects && complete && status === 'supported') parts.push(`Every copy passes and writes took less than ${costly} longer with it (costlyRatio ${o.costlyRatio}).`);
  else if (!rejects && complete) parts.push(`The interval reaches past costlyRatio ${o.costlyRatio}, so whether the cost is large is not shown.`);
  // the published benchmark the claim rests on, named with its figures (README, "Why")
  const ycsb = 'A published YCSB benchmark (10M × 1 KB documents, 100 threads) measured validator cost within noise: 40.2k vs 40.9k ops/s without and with one at 95% reads, 112k vs 120k at 90% inserts';
  const allNegligible = verdicts.every((v) => v === 'negligible');
  parts.push(complete && allNegligible ? `${ycsb}, as here.` : complete && verdicts.some((v) => v === 'measurable' || v === 'costly') && ins.text.includes('more than') ? `${ycsb}; here it cost more.` : `${ycsb}.`);
  if (!complete) parts.push('The time budget ran out before five timed trials of each, so the result is inconclusive.');
  // the collapsed report line: what the verdict turned on first (documents rejected, or the cost), then the cost
  const cost = `inserts ${formatNumber(insRatio.median)}x as long (${ciLabel(insRatio)} ${formatNumber(insRatio.low)}–${formatNumber(insRatio.high)})`;
  const brief = rejects
    ? `${formatNumber(failing)} of ${formatNumber(loaded.n)} copies fail it; ${cost}`
    : `${failing > 0 ? `${formatNumber(passing.length)} of ${formatNumber(loaded.n)} copies pass` : 'every copy passes'}; ${cost}${verdicts.includes('costly') ? `, past costlyRatio ${o.costlyRatio}` : !complete ? ', budget ran out' : status === 'inconclusive' ? `, interval past costlyRatio ${o.costlyRatio}` : ''}`;
  return { status, summary: parts.join(' '), ratio: insRatio, measurements, brief };
}
