import { commandCursor } from '../../src/adapters/cursor';
import { type Doc, describeServerError } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { type Timed, ratioOf, toMeasurement } from '../../src/confirm/harness';
import { formatNumber } from '../../src/core/format';
import type { Confirmation, Finding } from '../../src/core/types';
import { alternate, fmtRatio, withoutId } from '../index-usage/trials';
import { type ValidatorOptions, plainSchema, proposeSchema } from './propose';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const PLAIN = 'validator_without';
const CHECKED = 'validator_with';
const INSERT_BATCH = 500;
const UPDATE_BATCH = 200;
export const MEASURED_FINDINGS = new Set(['missing', 'levelOff', 'violationsStrict', 'violations', 'readyForError', 'violationsUnknown']);

const notRun = (summary: string, reason?: string): Result => ({ status: 'not-run', summary, measurements: [], ...(reason ? { reason } : {}) });

type Ratio = ReturnType<typeof ratioOf>;

/** How a with/without ratio reads: "within noise" whenever the interval includes 1. */
export function describeCost(r: Ratio, noiseRatio: number): { text: string; verdict: 'negligible' | 'costly' | 'unclear' } {
  const pct = (x: number): string => `${Math.round((x - 1) * 100)}%`;
  if (r.low <= 1 && r.high >= 1) return { text: 'within noise', verdict: 'negligible' };
  if (r.high < 1) return { text: 'no slower with it', verdict: 'negligible' };
  if (r.high <= noiseRatio) return { text: `at most ${pct(r.high)} slower`, verdict: 'negligible' };
  if (r.low > noiseRatio) return { text: `${pct(r.median)} slower`, verdict: 'costly' };
  return { text: `${pct(r.median)} slower, possibly within noise`, verdict: 'unclear' };
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

async function insertAll(ctx: ConfirmContext, coll: string, docs: readonly Doc[]): Promise<number> {
  let n = 0;
  for (let i = 0; i < docs.length; i += 1000) {
    const r = await ctx.scratch.command({ insert: coll, documents: docs.slice(i, i + 1000), ordered: false });
    n += Number(r.n ?? 0);
  }
  return n;
}

async function ids(ctx: ConfirmContext, coll: string, limit: number): Promise<unknown[]> {
  const rows = await commandCursor(ctx.scratch.adapter, ctx.scratch.db, { find: coll, filter: {}, projection: { _id: 1 }, limit, batchSize: limit }, { limit, maxTimeMS: 10_000 });
  return rows.map((r) => r._id);
}

/**
 * Insert and update time on two scratch collections, one with the validator (strict, error) and one without,
 * timed in alternation. The server must prove it kept the validator (listCollections read-back): FerretDB
 * accepts none and would otherwise measure nothing.
 */
export async function confirmValidator(ctx: ConfirmContext, f: Finding, o: ValidatorOptions): Promise<Result> {
  if (!MEASURED_FINDINGS.has(f.messageId)) return notRun('Nothing to measure: this line reports what the in-process check could not do.');
  const target = await validatorToMeasure(ctx, f, o);
  if (typeof target === 'string') return notRun('Nothing was measured.', target);
  const { db, collection } = f.target;
  const docs = (await ctx.sourceDocs(db, collection ?? '')).map(withoutId);
  if (docs.length === 0) return notRun('Nothing was measured: the collection returned no documents to copy.');
  const s = ctx.scratch;
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
  if (kept.validator === undefined) {
    await s.drop(PLAIN);
    await s.drop(CHECKED);
    return notRun(
      'The server accepted the validator but did not keep it (listCollections shows none on the scratch collection), so nothing was measured.',
      ctx.snapshot.server.flavor === 'ferretdb' ? 'FerretDB silently lacks validators' : 'this server does not store validators',
    );
  }
  // Only documents the validator accepts can be inserted into both: find them with the validator as a filter.
  await insertAll(ctx, PLAIN, docs);
  const passing = (await commandCursor(s.adapter, s.db, { find: PLAIN, filter: target.validator, limit: docs.length, batchSize: docs.length }, { limit: docs.length, maxTimeMS: 30_000 })).map(withoutId);
  await s.drop(PLAIN);
  await s.create(PLAIN);
  if (passing.length === 0) {
    await s.drop(PLAIN);
    await s.drop(CHECKED);
    return notRun(`None of the ${formatNumber(docs.length)} copied documents passes ${target.what}, so every insert would be rejected and nothing comparable could be timed.`);
  }
  const batch = passing.slice(0, INSERT_BATCH);
  const insert = (coll: string) => async (): Promise<void> => {
    const n = await insertAll(ctx, coll, batch);
    if (n !== batch.length) throw new Error(`the server accepted ${n} of ${batch.length} documents that pass the validator`);
  };
  const [insWith, insWithout] = await alternate(
    ctx.budget.slice(0.5),
    { label: `insert ${formatNumber(batch.length)} docs, with the validator`, run: insert(CHECKED) },
    { label: `insert ${formatNumber(batch.length)} docs, without`, run: insert(PLAIN) },
  );

  const n = Math.min(UPDATE_BATCH, passing.length);
  const idsWith = await ids(ctx, CHECKED, n);
  const idsWithout = await ids(ctx, PLAIN, n);
  const rounds = new Map<string, number>();
  const update = (coll: string, targets: unknown[]) => async (): Promise<void> => {
    const t = (rounds.get(coll) ?? 0) + 1;
    rounds.set(coll, t);
    // replace each document by another document that passes: a real change the validator must check
    const updates = targets.map((id, i) => ({ q: { _id: id }, u: passing[(i + t) % passing.length] as Doc }));
    await s.command({ update: coll, updates, ordered: false });
  };
  const [updWith, updWithout] = await alternate(
    ctx.budget.slice(1),
    { label: `replace ${formatNumber(idsWith.length)} docs, with the validator`, run: update(CHECKED, idsWith) },
    { label: `replace ${formatNumber(idsWithout.length)} docs, without`, run: update(PLAIN, idsWithout) },
  );
  await s.drop(PLAIN);
  await s.drop(CHECKED);

  const measurements = [insWith, insWithout, updWith, updWithout].map((t: Timed) => toMeasurement(t));
  const insRatio = ratioOf('insert time, with / without the validator', insWith, insWithout);
  const updRatio = ratioOf('update time, with / without the validator', updWith, updWithout);
  const ins = describeCost(insRatio, o.noiseRatio);
  const upd = describeCost(updRatio, o.noiseRatio);
  const complete = insWith.complete && insWithout.complete && updWith.complete && updWithout.complete;
  const skipped = docs.length - passing.length;
  const summary =
    `With ${target.what} kept by the server (read back from listCollections): inserting ${formatNumber(batch.length)} copied documents took ${fmtRatio(insRatio)} as long as without it, ${ins.text}; ` +
    `replacing ${formatNumber(idsWith.length)} documents took ${fmtRatio(updRatio)}, ${upd.text}.` +
    `${skipped > 0 ? ` ${formatNumber(skipped)} of the ${formatNumber(docs.length)} copied documents fail the validator and were left out.` : ''}` +
    ' The field report (YCSB, 10M documents) also found validator cost within noise.' +
    `${complete ? '' : ' The time budget ran out before five trials of each.'}`;
  const verdicts = [ins.verdict, upd.verdict];
  const status = !complete ? 'inconclusive' : verdicts.includes('costly') ? 'refuted' : verdicts.every((v) => v === 'negligible') ? 'supported' : 'inconclusive';
  return { status, summary, ratio: insRatio, measurements };
}
