import { sentence } from '../../src/core/rule';
import type { Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import { type ExplainedRun, planOf } from './collect';
import type { ConfirmContext } from '../../src/confirm/context';
import { type Budget, MIN_BLOCKS, ratioOf, type Timed, toMeasurement } from '../../src/confirm/harness';
import { alternate } from '../../src/confirm/trials';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement, RatioClaim, Verdict } from '../../src/core/types';
import { readsFar } from './analyze';
import type { ClusteredTrapOptions } from './options';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;
const DOCS = 20_000;
const BATCH = 1000;
const NAME = 'clustered_trap';

/** The operations a finding names as reading far more than asked, read back from its evidence (documents examined). */
export function flaggedOps(f: Finding, examinedRatio: number): ('find' | 'deleteMany')[] {
  const asked = typeof f.evidence.asked === 'number' ? f.evidence.asked : 2;
  const far = (examined: unknown): boolean => typeof examined === 'number' && examined > examinedRatio * asked;
  const ops: ('find' | 'deleteMany')[] = [];
  if (far(f.evidence.findExamined)) ops.push('find');
  if (far(f.evidence.deleteExamined)) ops.push('deleteMany');
  return ops;
}

interface OpResult {
  op: 'find' | 'deleteMany';
  /** What the scratch explain measured, or why it could not be read. */
  plan: { run: ExplainedRun } | { reason: string };
  scan: boolean;
  ratio: ReturnType<typeof ratioOf>;
  measurements: Measurement[];
  complete: boolean;
  sentences: string[];
}

/**
 * On a scratch clustered collection of filler documents, for each operation the finding names: explain
 * (executionStats) the `$in` of the lowest and highest `_id` (does it read far more than the two documents?) and time
 * it against the workaround the finding proposes — two single-_id finds, or two deleteOne statements in one delete
 * command (the bulkWrite the recommendation shows).
 */
export async function confirmClusteredTrap(ctx: ConfirmContext, f: Finding, o: ClusteredTrapOptions): Promise<Result> {
  const s = ctx.scratch;
  await s.drop(NAME);
  let options: Doc;
  try {
    options = await s.create(NAME, { clusteredIndex: { key: { _id: 1 }, unique: true } });
  } catch (err) {
    await s.drop(NAME);
    return {
      status: 'not-run',
      summary: 'The server refused to create a clustered collection, so nothing was measured.',
      reason: describeServerError(err),
      measurements: [],
    };
  }
  try {
    if (options.clusteredIndex === undefined) {
      return {
        status: 'not-run',
        summary:
          'Not measured: the server accepted clusteredIndex but created a regular collection ' +
          '(listCollections shows no clusteredIndex).',
        reason: 'clustered collections are not supported by this server',
        measurements: [],
      };
    }
    return await measure(ctx, f, o);
  } finally {
    await s.drop(NAME);
  }
}

async function measure(ctx: ConfirmContext, f: Finding, o: ClusteredTrapOptions): Promise<Result> {
  const s = ctx.scratch;
  const ids: unknown[] = [];
  for (let i = 0; i < DOCS; i += BATCH) {
    const docs: Doc[] = [];
    for (let j = 0; j < BATCH; j++) {
      const id = s.bson.objectId();
      ids.push(id);
      docs.push({ _id: id, n: i + j, pad: 'x'.repeat(100) });
    }
    await s.command({ insert: NAME, documents: docs, ordered: false });
    if (ctx.budget.exhausted) break;
  }
  // The lowest and highest _id: ObjectIds made in one process increase, so the first and the last.
  const ia = 0;
  const ib = ids.length - 1;
  const a = ids[ia];
  const b = ids[ib];
  const filter = { _id: { $in: [a, b] } };
  // A finding collected by an older snapshot may name no operation: then check the find, as the rule's first case.
  const flagged = flaggedOps(f, o.examinedRatio);
  const ops = flagged.length ? flagged : (['find'] as const);
  const results: OpResult[] = [];
  for (const [k, op] of ops.entries()) {
    const budget = ctx.budget.slice(1 / (ops.length - k));
    results.push(
      op === 'find'
        ? await compareFind(ctx, budget, filter, a, b, o)
        : await compareDelete(
            ctx,
            budget,
            filter,
            [
              { _id: a, n: ia, pad: 'x'.repeat(100) },
              { _id: b, n: ib, pad: 'x'.repeat(100) },
            ],
            o,
          ),
    );
  }
  const measurements = results.flatMap((r) => r.measurements);
  const claim = trapClaim(o.examinedRatio);
  const first = results[0] as OpResult;
  const complete = results.every((r) => r.complete);
  const verdicts = results.map((r) => opVerdict(r, claim));
  const status: Verdict = !complete
    ? 'inconclusive'
    : verdicts.includes('supported')
      ? 'supported'
      : verdicts.every((v) => v === 'refuted')
        ? 'refuted'
        : 'inconclusive';
  const parts = [say(M, 'measuredSetup', { docs: formatNumber(ids.length) }), ...results.flatMap((r) => r.sentences)];
  const data = { claim: claim.text, margin: noisePercent() };
  if (!complete) parts.push(say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS }));
  else
    parts.push(
      status === 'supported'
        ? say(M, 'supportedTrap', data)
        : status === 'refuted'
          ? say(M, 'refutedTrap', data)
          : say(M, 'inconclusiveTrap', data),
    );
  const shown = results[verdicts.indexOf('supported')] ?? first;
  return { status, claim, summary: parts.join(' '), ratio: shown.ratio, measurements };
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredSetup: 'The scratch clustered collection has {{docs}} documents.',
  measuredPlan:
    'An explain of the lowest and highest _id $in {{op}} read {{examined}} documents to {{result}} ({{stages}}).',
  measuredPlanUnread: 'For the {{op}}, {{reason}}.',
  measuredTime: 'The {{op}} took {{figure}} the time of {{what}} ({{a}} vs {{b}}).',
  supportedTrap:
    'An operation read far more than asked and took longer than its workaround: the claim that {{claim}} holds.',
  refutedTrap: sentence(
    'No operation read far more than asked and was slower for it: the claim that {{claim}} does not hold on ',
    'this server.',
  ),
  inconclusiveTrap: sentence(
    'A plan could not be read or an interval reaches within {{margin}} of 1x, so whether {{claim}} is not ',
    'shown either way.',
  ),
  inconclusiveBudget:
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached.',
} as const;
const M = CONFIRM_MESSAGES;

/** The claim: the $in of two _ids reads far more than asked (a check) and so takes longer than the workaround (above
 * 1). */
export function trapClaim(examinedRatio: number): RatioClaim {
  return ratioClaim(
    'above',
    1,
    `a two-_id $in reads more than ${formatNumber(examinedRatio)} documents per value and takes longer than ` +
      `its workaround`,
  );
}

/** One operation's verdict: the scan check first (a plan that reads few refutes it), then its time against the
 * claim. */
function opVerdict(r: OpResult, claim: RatioClaim): Verdict {
  const time = judge(claim, r.ratio);
  if (!('run' in r.plan)) return time === 'refuted' ? 'refuted' : 'inconclusive';
  return r.scan ? time : 'refuted';
}

function planSentence(plan: OpResult['plan'], op: string): string {
  if (!('run' in plan)) return say(M, 'measuredPlanUnread', { op, reason: plan.reason });
  const r = plan.run;
  const result = op === 'find' ? `return ${formatNumber(r.nReturned)}` : `delete ${formatNumber(r.nWouldDelete ?? 2)}`;
  return say(M, 'measuredPlan', { op, examined: formatNumber(r.docsExamined), result, stages: r.stages.join(' > ') });
}

function ratioText(op: string, r: OpResult['ratio'], a: Measurement, b: Measurement, what: string): string {
  return say(M, 'measuredTime', {
    op,
    figure: figure(r, { size: 1 }),
    what,
    a: formatDuration(a.median),
    b: formatDuration(b.median),
  });
}

async function compareFind(
  ctx: ConfirmContext,
  budget: Budget,
  filter: Doc,
  a: unknown,
  b: unknown,
  o: ClusteredTrapOptions,
): Promise<OpResult> {
  const s = ctx.scratch;
  const plan = planOf(await s.command({ explain: { find: NAME, filter }, verbosity: 'executionStats' }), 'find');
  // timed in alternation, round by round: each round's ratio shares that moment's load
  const [inFind, single] = await alternate(
    budget,
    {
      label: 'find _id $in [lowest, highest]',
      run: async () => void (await s.command({ find: NAME, filter, batchSize: 10, singleBatch: true })),
    },
    {
      label: '2 finds of one _id each',
      run: async () => {
        await s.command({ find: NAME, filter: { _id: a }, batchSize: 1, singleBatch: true });
        await s.command({ find: NAME, filter: { _id: b }, batchSize: 1, singleBatch: true });
      },
    },
  );
  return opResult('find', plan, inFind, single, '$in find time / two single-_id finds', 'two single-_id finds', o);
}

/** The plan and the timed pair of one operation, as the summary reads them. */
function opResult(
  op: OpResult['op'],
  plan: OpResult['plan'],
  multi: Timed,
  singles: Timed,
  ratioLabel: string,
  singlesText: string,
  o: ClusteredTrapOptions,
): OpResult {
  const measurements = [toMeasurement(multi), toMeasurement(singles)];
  const ratio = ratioOf(ratioLabel, multi, singles);
  return {
    op,
    plan,
    scan: 'run' in plan && readsFar(plan.run, 2, o.examinedRatio),
    ratio,
    measurements,
    complete: multi.complete && singles.complete,
    sentences: [
      planSentence(plan, op),
      ratioText(op, ratio, measurements[0] as Measurement, measurements[1] as Measurement, singlesText),
    ],
  };
}

async function compareDelete(
  ctx: ConfirmContext,
  budget: Budget,
  filter: Doc,
  docs: Doc[],
  o: ClusteredTrapOptions,
): Promise<OpResult> {
  const s = ctx.scratch;
  const plan = planOf(
    await s.command({ explain: { delete: NAME, deletes: [{ q: filter, limit: 0 }] }, verbosity: 'executionStats' }),
    'delete',
  );
  // Each run deletes the same two documents: they are put back, untimed, before it.
  const putBack = async (): Promise<void> => {
    await s.command({ delete: NAME, deletes: docs.map((d) => ({ q: { _id: d._id }, limit: 1 })) });
    await s.command({ insert: NAME, documents: docs, ordered: false });
  };
  const expectTwo = (r: Doc, what: string): void => {
    if (Number(r.n) !== 2) throw new Error(`${what} deleted ${String(r.n)} of the 2 documents`);
  };
  const [many, ones] = await alternate(
    budget,
    {
      label: 'deleteMany _id $in [lowest, highest]',
      reset: putBack,
      run: async () => expectTwo(await s.command({ delete: NAME, deletes: [{ q: filter, limit: 0 }] }), 'deleteMany'),
    },
    {
      label: '2 deleteOne of one _id each, one command',
      reset: putBack,
      run: async () =>
        expectTwo(
          await s.command({ delete: NAME, deletes: docs.map((d) => ({ q: { _id: d._id }, limit: 1 })) }),
          'two deleteOne',
        ),
    },
  );
  return opResult(
    'deleteMany',
    plan,
    many,
    ones,
    '$in deleteMany time / two deleteOne',
    'two deleteOne statements in one command',
    o,
  );
}
