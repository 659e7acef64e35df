import type { Doc } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { ratioOf, timeTrials, toMeasurement, verdict } from '../../src/confirm/harness';
import { planStages } from '../../src/collect/clustered-explain';
import { formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding } from '../../src/core/types';
import type { ClusteredTrapOptions } from './index';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;
const DOCS = 20_000;
const BATCH = 1000;

/**
 * On a scratch clustered collection of filler documents: explain a two-_id $in (does this server plan a
 * scan?) and time it against two single-_id finds, the workaround the finding proposes.
 */
export async function confirmClusteredTrap(ctx: ConfirmContext, _f: Finding, o: ClusteredTrapOptions): Promise<Result> {
  const s = ctx.scratch;
  const name = 'clustered_trap';
  await s.drop(name);
  const options = await s.create(name, { clusteredIndex: { key: { _id: 1 }, unique: true } });
  if (options.clusteredIndex === undefined) {
    await s.drop(name);
    return { status: 'not-run', summary: 'Not measured: the server accepted clusteredIndex but created a regular collection (listCollections shows no clusteredIndex).', reason: 'clustered collections are not supported by this server', measurements: [] };
  }
  const ids: unknown[] = [];
  for (let i = 0; i < DOCS; i += BATCH) {
    const docs: Doc[] = [];
    for (let j = 0; j < BATCH; j++) {
      const id = s.adapter.bson.objectId();
      ids.push(id);
      docs.push({ _id: id, n: i + j, pad: 'x'.repeat(100) });
    }
    await s.command({ insert: name, documents: docs, ordered: false });
    if (ctx.budget.exhausted) break;
  }
  const a = ids[Math.floor(ids.length * 0.25)];
  const b = ids[Math.floor(ids.length * 0.75)];
  const plan = planStages(await s.command({ explain: { find: name, filter: { _id: { $in: [a, b] } } }, verbosity: 'queryPlanner' }));
  const scan = plan !== null && plan.some((st) => o.scanStages.includes(st));
  const inFind = await timeTrials('find _id $in [2 values]', ctx.budget.slice(0.5), async () => {
    await s.command({ find: name, filter: { _id: { $in: [a, b] } }, batchSize: 10, singleBatch: true });
  });
  const single = await timeTrials('2 finds of one _id each', ctx.budget, async () => {
    await s.command({ find: name, filter: { _id: a }, batchSize: 1, singleBatch: true });
    await s.command({ find: name, filter: { _id: b }, batchSize: 1, singleBatch: true });
  });
  await s.drop(name);
  const measurements = [toMeasurement(inFind), toMeasurement(single)];
  const ratio = ratioOf('$in time / two single-_id finds', inFind, single);
  const planText = plan ? plan.join(' > ') : 'unreadable';
  const summary = `On a scratch clustered collection of ${formatNumber(ids.length)} documents this server plans the two-_id $in as ${planText}; it took ${ratio.median.toFixed(2)}x the time of two single-_id finds (95% CI ${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}; ${formatDuration(measurements[0]?.median ?? 0)} vs ${formatDuration(measurements[1]?.median ?? 0)}).`;
  if (!inFind.complete || !single.complete) return { status: 'inconclusive', summary: `${summary} The time budget ran out before five trials of each.`, ratio, measurements };
  const v = verdict(ratio, 1);
  const status: Confirmation['status'] = scan && v === 'above' ? 'supported' : !scan && v !== 'above' ? 'refuted' : 'inconclusive';
  return { status, summary, ratio, measurements };
}
