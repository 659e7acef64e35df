import { sentence } from '../../src/core/rule';
import { commandCursor } from '../../src/lib/cursor';
import type { Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import type { ConfirmContext } from '../../src/confirm/context';
import {
  decisionEdges,
  MIN_BLOCKS,
  type Timed,
  type TrialPlan,
  ratioOf,
  toMeasurement,
} from '../../src/confirm/harness';
import { formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, RatioClaim, Verdict } from '../../src/core/types';
import { alternate, withoutId } from '../../src/confirm/trials';
import { checkClaim, combine, figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { redactServerText } from '../../src/lib/redact';
import type { ValidatorOptions } from './options';
import { plainSchema, proposeSchema } from './propose';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const PLAIN = 'validator_without';
const CHECKED = 'validator_with';
const INSERT_BATCH = 500;
const UPDATE_BATCH = 200;
const BATCH_BYTES = 8 * 1024 * 1024;
/**
 * Each round times a few milliseconds of writes: more blocks than the default (within the budget) narrow the interval.
 * 11 blocks of 2 rounds (22 rounds, as the 21 before blocks) at the first look, up to 33 (66 rounds) at the second.
 */
const PLAN: TrialPlan = { warmup: 2, trials: 11 };
/** The check a proposal set to "error" (or a switch to it) rests on. */
const PASSES = checkClaim('every copied document passes the validator, so set to "error" it rejects none');
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

const notRun = (summary: string, reason?: string): Result => ({
  status: 'not-run',
  summary,
  measurements: [],
  ...(reason ? { reason } : {}),
});

type Ratio = ReturnType<typeof ratioOf>;

/**
 * The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. Two claims: every copied
 * document passes the validator (a check, for a proposal set to "error" or a switch to it), and the validator adds less
 * than costlyRatio to write time (`costClaim`).
 */
export const CONFIRM_MESSAGES = {
  measuredInserts: sentence(
    'With {{what}} set to "strict"/"error" on a scratch collection and kept by the server (read back from ',
    'listCollections): inserting {{inserted}} copied documents took {{figure}} as long as without it, ',
    '{{words}}.',
  ),
  measuredUpdates: 'Replacing {{replaced}} of them by other copied documents took {{figure}} as long, {{words}}.',
  measuredInsertsUntimed: sentence(
    'With {{what}} set to "strict"/"error" on a scratch collection and kept by the server (read back from ',
    'listCollections): inserting {{inserted}} copied documents was not timed: the budget ran out before one ',
    'block.',
  ),
  measuredUpdatesUntimed:
    'Replacing {{replaced}} of them by other copied documents was not timed: the budget ran out before one block.',
  measuredNoUpdates:
    'Updates were not timed: only one copied document passes the validator, so replacing a document by ' +
    'another would change nothing.',
  measuredLeftOut: '{{failing}} of the {{copied}} copied documents fail the validator and were left out of the timing.',
  measuredDuplicates: '$sample returned {{duplicates}} of the documents twice; each was copied once.',
  measuredRefusedCopies:
    'The server refused {{refused}} copies even without the validator ({{error}}); they were left out.',
  measuredUnchanged: sentence(
    '{{unchanged}} of the {{sent}} replacements sent left the document as it was (identical fields), so the ',
    'server had nothing to write or validate for them.',
  ),
  supportedCost: 'Every interval lies below {{costlyRatio}}x: the claim that it {{claim}} holds here.',
  refutedCost: sentence(
    'An interval lies wholly at or above {{costlyRatio}}x: writes took at least {{costly}} longer with it, ',
    'against the claim that it {{claim}}; weigh that against the documents it keeps out.',
  ),
  inconclusiveCost:
    'An interval reaches within {{margin}} of {{costlyRatio}}x, so whether it {{claim}} is not shown either way.',
  inconclusiveBudget: sentence(
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached ',
    'and the cost is not judged.',
  ),
  refutedRejects: sentence(
    '{{failing}} of the {{copied}} copied documents fail the validator: set to "error" it would reject ',
    'them, so the claim that every document passes does not hold.',
  ),
  refutedRejectsAll: sentence(
    'None of the {{copied}} copied documents passes {{what}} (used as a query filter on scratch): set to ',
    '"error" it would reject them all. Nothing was timed.',
  ),
  notRunNonePass: sentence(
    'None of the {{copied}} copied documents passes {{what}} (used as a query filter on scratch), so every ',
    'insert would be rejected and nothing comparable could be timed.',
  ),
} as const;

/** The cost claim, a direction and a size: writes with the validator take less than costlyRatio × the time without. */
export function costClaim(o: Pick<ValidatorOptions, 'costlyRatio'>): RatioClaim {
  return ratioClaim('below', o.costlyRatio, `adds less than ${Math.round((o.costlyRatio - 1) * 100)}% to write time`);
}

/**
 * How a with/without ratio reads, in words against noiseRatio ("within noise" only when the interval holds 1 and stays
 * under noiseRatio), and its verdict against the cost claim (`costClaim`: below costlyRatio), from `judge` alone.
 */
export function describeCost(
  r: Ratio,
  noiseRatio: number,
  costlyRatio = Number.POSITIVE_INFINITY,
): { text: string; verdict: Verdict } {
  // No percentage of the ratio itself: the words sit beside the printed figure, and a percentage of the unrounded
  // ratio disagreed with it by rounding ("2.4x" beside "133% slower"). The figure says how much; the words say how to
  // read it.
  const allowance = `the ${Math.round((noiseRatio - 1) * 100)}% noise allowance`;
  const verdict = judge({ direction: 'below', size: costlyRatio }, r);
  if (!timedAtAll(r)) return { text: 'not timed', verdict: 'inconclusive' };
  if (r.low <= 1 && r.high >= 1) {
    // "within noise" as the published YCSB benchmark says it; but an interval reaching past noiseRatio cannot show the
    // cost is small
    if (r.high <= noiseRatio) return { text: 'within noise', verdict };
    return { text: `within noise at the median, but the interval reaches past ${allowance}`, verdict };
  }
  if (r.high < 1) return { text: 'no slower with it', verdict };
  if (r.high <= noiseRatio) return { text: `slower, but by no more than ${allowance}`, verdict };
  if (r.low > noiseRatio) return { text: `slower, by more than ${allowance}`, verdict };
  // the interval excludes 1 (so not "within noise") but reaches below noiseRatio: slower, maybe negligibly
  return { text: `slower, though possibly by no more than ${allowance}`, verdict };
}

/** Whether a ratio has a figure at all: none when the budget ran out before one block was timed. */
function timedAtAll(r: Ratio): boolean {
  return Number.isFinite(r.median) && Number.isFinite(r.low) && Number.isFinite(r.high);
}

/** Findings whose claim is that every existing document passes (a proposal set to error, or a switch to error). */
function claimsEveryDocumentPasses(f: Finding): boolean {
  if (f.messageId === 'readyForError' || f.messageId === 'readyForErrorInSample') return true;
  return (
    (f.messageId === 'missing' || f.messageId === 'missingComplete' || f.messageId === 'missingOrdered') &&
    f.evidence.proposedAction === 'error'
  );
}

/** The validator to measure: the collection's own (read from the source), or the proposal (without enums). */
async function validatorToMeasure(
  ctx: ConfirmContext,
  f: Finding,
  o: ValidatorOptions,
): Promise<{ validator: Doc; what: string } | string> {
  const { db, collection } = f.target;
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  if (!c || !collection) return 'the collection is not in the snapshot';
  if (c.validator.present) {
    const rows = await commandCursor(
      ctx.source,
      db,
      { listCollections: 1, filter: { name: collection }, cursor: {}, maxTimeMS: 10_000 },
      { maxTimeMS: 10_000 },
    );
    const validator = (rows[0]?.options as Doc | undefined)?.validator as Doc | undefined;
    return validator
      ? { validator, what: "the collection's own validator" }
      : 'the source collection no longer has a validator';
  }
  const p = proposeSchema(c, { ...o, proposeEnums: false });
  if (!p) return 'no validator could be proposed from the sample';
  return {
    validator: { $jsonSchema: plainSchema(p.schema) },
    what: `the proposed validator${o.proposeEnums ? ' (enums left out)' : ''}`,
  };
}

/** The copies as a driver sends them: each keeps its own `_id` (value and BSON type); one without gets a client-side
 * ObjectId. */
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
  const head =
    e.codeName ?? (e.code === 121 ? 'DocumentValidationFailure' : e.code === DUPLICATE_KEY ? 'DuplicateKey' : 'error');
  // An E11000's text holds the duplicate _id, a code 121's may hold the document's: values, never printed.
  const text = redactServerText((e.errmsg ?? '').split('\n')[0] ?? '');
  return `${head}${e.code !== undefined ? ` (${e.code})` : ''}: ${text}`.slice(0, 240);
}

/** Thrown when the server refuses a write the experiment needs: the timings would not compare like with like. */
class Refused extends Error {
  constructor(
    readonly what: string,
    readonly done: number,
    readonly sent: number,
    readonly first: WriteError | undefined,
  ) {
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
  return {
    n: Number(r.n ?? 0),
    nModified: Number(r.nModified ?? 0),
    errors: (r.writeErrors as WriteError[] | undefined) ?? [],
  };
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
  if (!MEASURED_FINDINGS.has(f.messageId))
    return notRun('Nothing to measure: this line reports what the in-process check could not do.');
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
    kept = await s.create(CHECKED, {
      validator: target.validator,
      validationLevel: 'strict',
      validationAction: 'error',
    });
  } catch (err) {
    await s.drop(PLAIN);
    // FerretDB dumps its internal Go value into the message: keep the sentence, drop the dump
    return notRun(
      'The server refused to create a collection with the validator, so nothing was measured.',
      describeServerError(err).replace(/ with value &\{.*\}(?= is not implemented)/, ''),
    );
  }
  try {
    if (kept.validator === undefined) {
      return notRun(
        'The server accepted the validator but did not keep it (listCollections shows none on the scratch ' +
          'collection), so nothing was measured.',
        ctx.snapshot.server.flavor === 'ferretdb'
          ? 'FerretDB silently lacks validators'
          : 'this server does not store validators',
      );
    }
    return await measure(ctx, f, target, copies, perBatchOf(ctx, db, collection), o);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return {
      status: 'error',
      summary:
        `The server refused ${formatNumber(err.sent - err.done)} of ${formatNumber(err.sent)} writes ` +
        `while ${err.what}, so the two arms would not time the same work and no timing is reported.`,
      reason: describeWriteError(err.first),
      measurements: [],
    };
  } finally {
    await s.drop(PLAIN);
    await s.drop(CHECKED);
  }
}

/** The copies loaded into the plain collection, and which of them pass the validator; a Result when none can. */
interface Passing {
  loaded: number;
  duplicates: number;
  refused: WriteError[];
  passing: Doc[];
}

/**
 * Which copies pass: load them (with their _ids) into the plain collection, then query it with the validator itself.
 * The plain collection is left empty. A Result when nothing was loaded or nothing passes.
 */
async function passingCopies(
  ctx: ConfirmContext,
  f: Finding,
  target: { validator: Doc; what: string },
  copies: readonly Doc[],
): Promise<Passing | Result> {
  const s = ctx.scratch;
  const loaded = await insertAll(ctx, PLAIN, copies);
  const duplicates = loaded.errors.filter((e) => e.code === DUPLICATE_KEY).length; // $sample may return one twice
  const refused = loaded.errors.filter((e) => e.code !== DUPLICATE_KEY);
  if (loaded.n === 0) {
    return notRun(
      `The server accepted none of the ${formatNumber(copies.length)} copied documents into a scratch ` +
        `collection without a validator, so nothing was measured.`,
      describeWriteError(refused[0]),
    );
  }
  const passing = await s.cursor(
    { find: PLAIN, filter: target.validator, limit: loaded.n, batchSize: loaded.n },
    { limit: loaded.n, maxTimeMS: 30_000 },
  );
  await s.drop(PLAIN);
  await s.create(PLAIN);
  if (passing.length === 0) {
    const data = { copied: formatNumber(loaded.n), what: target.what };
    if (claimsEveryDocumentPasses(f))
      return {
        status: 'refuted',
        claim: PASSES,
        summary: say(CONFIRM_MESSAGES, 'refutedRejectsAll', data),
        measurements: [],
      };
    return notRun(say(CONFIRM_MESSAGES, 'notRunNonePass', data));
  }
  return { loaded: loaded.n, duplicates, refused, passing };
}

/** Inserts of `batch` into each collection, emptied before each round, timed in alternation. */
async function timeInserts(ctx: ConfirmContext, batch: readonly Doc[], o: ValidatorOptions): Promise<[Timed, Timed]> {
  const empty = (coll: string) => async (): Promise<void> => {
    await write(ctx, { delete: coll, deletes: [{ q: {}, limit: 0 }] });
  };
  const insert = (coll: string, where: string) => async (): Promise<void> => {
    const w = await insertAll(ctx, coll, batch);
    if (w.n !== batch.length)
      throw new Refused(
        `inserting copied documents that pass the validator (as a query filter) into the scratch collection ${where}`,
        w.n,
        batch.length,
        w.errors[0],
      );
  };
  // Every ratio the verdict or its words turn on asks for the second look when the interval still holds it:
  // costlyRatio and its noise-margin edges too, or one loaded stretch of rounds leaves "costs less than 2x" unshown
  // (bench/README.md, 2026-11-25).
  return alternate(
    ctx.budget.slice(0.5),
    {
      label: `insert ${formatNumber(batch.length)} docs, with the validator`,
      reset: empty(CHECKED),
      run: insert(CHECKED, 'with the validator'),
    },
    {
      label: `insert ${formatNumber(batch.length)} docs, without`,
      reset: empty(PLAIN),
      run: insert(PLAIN, 'without it'),
    },
    { ...PLAN, thresholds: [1, o.noiseRatio, ...decisionEdges(costClaim(o))] },
  );
}

/**
 * Both collections hold `batch`. Replace some of them by other passing documents: a real change the validator must
 * check. The replacement has no _id (the target keeps its own); with two or more distinct documents each round
 * changes every target (round t gives target i the contents of document i + t). No timing with fewer than two.
 */
async function timeReplacements(
  ctx: ConfirmContext,
  passing: readonly Doc[],
  targets: readonly unknown[],
  perBatch: number,
  o: ValidatorOptions,
): Promise<{ updates: [Timed, Timed] | null; tally: { sent: number; unchanged: number } }> {
  const replacements = passing.map(withoutId);
  const tally = { sent: 0, unchanged: 0 };
  if (replacements.length < 2) return { updates: null, tally };
  const update = (coll: string, where: string) => {
    let round = 0;
    return async (): Promise<void> => {
      round++;
      const all = targets.map((id, i) => ({
        q: { _id: id },
        u: replacements[(i + round) % replacements.length] as Doc,
      }));
      for (let i = 0; i < all.length; i += perBatch) {
        const part = all.slice(i, i + perBatch);
        const w = await write(ctx, { update: coll, updates: part, ordered: false });
        if (w.errors.length > 0 || w.n !== part.length)
          throw new Refused(
            `replacing copied documents by other passing ones in the scratch collection ${where}`,
            w.n,
            part.length,
            w.errors[0],
          );
        tally.sent += part.length;
        tally.unchanged += part.length - w.nModified;
      }
    };
  };
  const updates = await alternate(
    ctx.budget.slice(1),
    {
      label: `replace ${formatNumber(targets.length)} docs, with the validator`,
      run: update(CHECKED, 'with the validator'),
    },
    { label: `replace ${formatNumber(targets.length)} docs, without`, run: update(PLAIN, 'without it') },
    { ...PLAN, thresholds: [1, o.noiseRatio, ...decisionEdges(costClaim(o))] },
  );
  return { updates, tally };
}

async function measure(
  ctx: ConfirmContext,
  f: Finding,
  target: { validator: Doc; what: string },
  copies: readonly Doc[],
  perBatch: number,
  o: ValidatorOptions,
): Promise<Result> {
  const found = await passingCopies(ctx, f, target, copies);
  if ('status' in found) return found;
  const { passing } = found;
  const batch = passing.slice(0, INSERT_BATCH);
  const [insWith, insWithout] = await timeInserts(ctx, batch, o);
  const targets = batch.slice(0, UPDATE_BATCH).map((d) => d._id);
  const { updates, tally } = await timeReplacements(ctx, passing, targets, perBatch, o);

  const timed: Timed[] = [insWith, insWithout, ...(updates ?? [])];
  const insRatio = ratioOf('insert time, with / without the validator', insWith, insWithout);
  const updRatio = updates ? ratioOf('update time, with / without the validator', updates[0], updates[1]) : null;
  const counts = {
    copied: found.loaded,
    passing: passing.length,
    duplicates: found.duplicates,
    refused: found.refused,
    unchanged: tally.unchanged,
    sent: tally.sent,
  };
  const shape = { what: target.what, inserted: batch.length, replaced: targets.length };
  return verdictOf(f, o, timed, insRatio, updRatio, counts, shape);
}

export interface Counts {
  copied: number;
  passing: number;
  duplicates: number;
  refused: WriteError[];
  unchanged: number;
  sent: number;
}

/** The verdict from the numbers (the check first, then the cost claim), and the sentences it picks (exported for
 * tests). */
export function verdictOf(
  f: Finding,
  o: ValidatorOptions,
  timed: Timed[],
  insRatio: Ratio,
  updRatio: Ratio | null,
  n: Counts,
  shape: { what: string; inserted: number; replaced: number },
): Result {
  const claim = costClaim(o);
  const ins = describeCost(insRatio, o.noiseRatio, o.costlyRatio);
  const upd = updRatio ? describeCost(updRatio, o.noiseRatio, o.costlyRatio) : null;
  const complete = timed.every((t) => t.complete);
  const failing = n.copied - n.passing;
  // A proposal set to error (or a switch to error) that some copies fail would reject existing documents: the check
  // fails.
  const rejects = failing > 0 && claimsEveryDocumentPasses(f);
  const cost = complete ? combine([ins.verdict, ...(upd ? [upd.verdict] : [])]) : 'inconclusive';
  const status: Verdict = rejects ? 'refuted' : cost;
  const M = CONFIRM_MESSAGES;
  const costly = `${Math.round((o.costlyRatio - 1) * 100)}%`;
  const inserted = { what: shape.what, inserted: formatNumber(shape.inserted) };
  const replaced = { replaced: formatNumber(shape.replaced) };
  const parts = [
    timedAtAll(insRatio)
      ? say(M, 'measuredInserts', { ...inserted, figure: figure(insRatio, claim), words: ins.text })
      : say(M, 'measuredInsertsUntimed', inserted),
  ];
  if (!updRatio || !upd) parts.push(say(M, 'measuredNoUpdates'));
  else if (!timedAtAll(updRatio)) parts.push(say(M, 'measuredUpdatesUntimed', replaced));
  else parts.push(say(M, 'measuredUpdates', { ...replaced, figure: figure(updRatio, claim), words: upd.text }));
  const fails = { failing: formatNumber(failing), copied: formatNumber(n.copied) };
  if (rejects) parts.push(say(M, 'refutedRejects', fails));
  else if (failing > 0) parts.push(say(M, 'measuredLeftOut', fails));
  if (n.duplicates > 0) parts.push(say(M, 'measuredDuplicates', { duplicates: formatNumber(n.duplicates) }));
  if (n.refused.length > 0)
    parts.push(
      say(M, 'measuredRefusedCopies', {
        refused: formatNumber(n.refused.length),
        error: describeWriteError(n.refused[0]),
      }),
    );
  if (n.unchanged > 0)
    parts.push(say(M, 'measuredUnchanged', { unchanged: formatNumber(n.unchanged), sent: formatNumber(n.sent) }));
  const costData = { costlyRatio: o.costlyRatio, costly, claim: claim.text, margin: noisePercent() };
  if (!complete) parts.push(say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS }));
  else if (cost === 'supported') parts.push(say(M, 'supportedCost', costData));
  else if (cost === 'refuted') parts.push(say(M, 'refutedCost', costData));
  else parts.push(say(M, 'inconclusiveCost', costData));
  const copies = rejects
    ? `${formatNumber(failing)} of ${formatNumber(n.copied)} copies fail it`
    : failing > 0
      ? `${formatNumber(n.passing)} of ${formatNumber(n.copied)} copies pass`
      : 'every copy passes';
  // A group line shows the brief: both figures, so the one that decided the cost verdict is always among them.
  const replacedFigure = updRatio ? `; replacements ${figure(updRatio, claim)}` : '';
  const brief = `${copies}; inserts ${figure(insRatio, claim)}${replacedFigure}`;
  // The ratio kept is the one that decided the cost: the replacements' when their verdict is the combined one and the
  // inserts' is not.
  const ratio = updRatio && upd && upd.verdict === cost && ins.verdict !== cost ? updRatio : insRatio;
  return {
    status,
    claim: rejects ? PASSES : claim,
    summary: parts.join(' '),
    ratio,
    measurements: timed.map((t) => toMeasurement(t)),
    brief,
  };
}
