import { codeSpan } from '../../src/lib/shell';
import { sentence } from '../../src/core/rule';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/confirm/context';
import { DEFAULT_TRIALS, MIN_BLOCKS, ratioOf, type Timed, toMeasurement } from '../../src/confirm/harness';
import { alternate } from '../../src/confirm/trials';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatDuration, formatNumber } from '../../src/core/format';
import { dataOf } from '../../src/core/collector';
import type { Confirmation, Finding, RatioClaim, Verdict } from '../../src/core/types';
import { type CollectionCountOptions, tenantGroupsOf } from './analyze';
import { type IndexDefinition, inventory } from './collect';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;
/** Collections per trial: enough for the per-collection cost to show, few enough to create in well under a second. */
const MAX_TENANTS = 50;
/**
 * Fewest collections per trial, whatever the group's size: each round's ratio is the sum of this many finds of a few
 * milliseconds, and with the 12 of the demo's group one slow find moved a round's ratio by half (5 demo runs: 4
 * intervals below 1, one from 0.51 to 1.15 after 21 rounds). The cost measured is per collection, so more of them
 * only average it better.
 */
const MIN_TENANTS = 40;
const DOCS_PER_TENANT = 10;

/** Plain ascending/descending keys only: special index types are not needed to time a first access. */
function plainIndexes(defs: readonly IndexDefinition[], prefix: string | null): Doc[] {
  return defs
    .filter(
      (d) => Object.values(d.key).every((v) => v === 1 || v === -1) && d.expireAfterSeconds === undefined && !d.partial,
    )
    .map((d, i) => ({
      key: prefix ? { [prefix]: 1, ...d.key } : d.key,
      name: `ix_${i}`,
      ...(d.unique ? { unique: true } : {}),
    }));
}

function strip(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

/**
 * Each trial makes N fresh tenant collections (untimed), then times the first find on each; the folded side
 * adds N fresh tenants to one collection (untimed) and times the first find for each. Fresh every trial, so
 * every timed access is a first access.
 */
export async function confirmCollectionCount(
  ctx: ConfirmContext,
  f: Finding,
  o: CollectionCountOptions,
): Promise<Result> {
  const found = groupOf(ctx, f);
  if ('skip' in found) return found.skip;
  const { group } = found;
  const field = o.tenantField;
  const n = Math.min(Math.max(group.members, MIN_TENANTS), MAX_TENANTS);
  const example = group.examples[0];
  let docs: Doc[] = [];
  try {
    docs = example ? (await ctx.sourceDocs(group.db, example, { limit: DOCS_PER_TENANT })).map(strip) : [];
  } catch {
    docs = [];
  }
  const real = docs.length > 0;
  if (!real) docs = Array.from({ length: DOCS_PER_TENANT }, (_, i) => ({ n: i, pad: 'x'.repeat(200) }));
  const separateIx = plainIndexes(group.indexes, null);
  const [separate, folded] = await timeFirstAccess(ctx, { n, docs, field, separateIx, indexes: group.indexes });
  const what = real
    ? `${docs.length} documents copied from ${group.db}.${example ?? ''} per tenant`
    : `${docs.length} filler documents per tenant`;
  const indexes = `${separateIx.length} plain secondary index${separateIx.length === 1 ? '' : 'es'}`;
  return verdictOf(separate, folded, field, { what, indexes, n, members: group.members });
}

type TenantGroup = ReturnType<typeof tenantGroupsOf>[number];

/** The finding's tenant group in the snapshot, or the not-run result that says why there is none to copy. */
function groupOf(ctx: ConfirmContext, f: Finding): { group: TenantGroup } | { skip: Result } {
  if (!f.messageId.startsWith('tenantCollections')) {
    return {
      skip: {
        status: 'not-run',
        summary:
          'Nothing to measure: this finding counts tables; the experiment applies to per-tenant collection groups.',
        measurements: [],
      },
    };
  }
  const inv = dataOf(inventory, ctx.snapshot);
  const group = inv
    ? tenantGroupsOf(inv).find(
        (g) => g.db === f.target.db && g.pattern === f.evidence.pattern && g.kind === f.evidence.kind,
      )
    : undefined;
  if (!group)
    return {
      skip: {
        status: 'not-run',
        summary: 'The tenant group is not in the snapshot, so there was nothing to copy.',
        measurements: [],
      },
    };
  if (group.kind === 'timeseries') {
    return {
      skip: {
        status: 'not-run',
        summary:
          'Not measured: the experiment builds regular collections; time-series tenants fold into a metaField instead.',
        reason: 'time-series group',
        measurements: [],
      },
    };
  }
  return { group };
}

/** What the access experiment copies: n tenants of `docs` each, with the group's plain indexes. */
interface Access {
  n: number;
  docs: Doc[];
  field: string;
  separateIx: Doc[];
  indexes: readonly IndexDefinition[];
}

/**
 * The first find on each of n new collections timed against the first find for each of n new tenants in one
 * collection, in alternation; the scratch collections dropped afterwards.
 */
async function timeFirstAccess(
  ctx: ConfirmContext,
  { n, docs, field, separateIx, indexes }: Access,
): Promise<[Timed, Timed]> {
  const s = ctx.scratch;
  const foldedIx = [{ key: { [field]: 1 }, name: 'tenant_1' }, ...plainIndexes(indexes, field)];

  await s.drop('folded');
  await s.create('folded');
  await s.command({ createIndexes: 'folded', indexes: foldedIx });
  const made: string[] = [];
  const budget = ctx.budget;
  const makeSeparate = async (trial: number): Promise<void> => {
    // The last round's collections are timed already: dropped (untimed) so the handle count does not grow with rounds.
    for (const name of made.splice(0)) await s.drop(name);
    for (let j = 0; j < n; j++) {
      const name = `tenant_${trial}_${j}`;
      await s.create(name);
      if (separateIx.length) await s.command({ createIndexes: name, indexes: separateIx });
      await s.insertMany(
        name,
        docs.map((d) => ({ ...d })),
      );
      made.push(name);
    }
  };
  // Timed in alternation, round by round: each round's ratio shares that moment's load. Every round makes n new
  // collections and drops the previous round's, so a second look (up to 3 × trials rounds, the harness's default)
  // costs time, not scratch space: at 7 rounds the min–max interval held 1 in some demo runs and not in others.
  const round = { separate: 0, folded: 0 };
  const [separate, folded] = await alternate(
    budget,
    {
      label: `first find on each of ${n} new collections`,
      reset: () => makeSeparate(round.separate),
      run: async () => {
        const trial = round.separate++;
        for (let j = 0; j < n; j++)
          await s.command({ find: `tenant_${trial}_${j}`, filter: {}, limit: DOCS_PER_TENANT, singleBatch: true });
      },
    },
    {
      label: `first find for each of ${n} new tenants in one collection`,
      reset: async () => {
        const batch: Doc[] = [];
        for (let j = 0; j < n; j++) for (const d of docs) batch.push({ ...d, [field]: `t${round.folded}_${j}` });
        await s.insertMany('folded', batch);
      },
      run: async () => {
        const trial = round.folded++;
        for (let j = 0; j < n; j++)
          await s.command({
            find: 'folded',
            filter: { [field]: `t${trial}_${j}` },
            limit: DOCS_PER_TENANT,
            singleBatch: true,
          });
      },
    },
    DEFAULT_TRIALS,
  );
  for (const name of made) await s.drop(name);
  await s.drop('folded');
  return [separate, folded];
}

/** The verdict from the numbers (the access claim), and the sentences it picks. */
function verdictOf(
  separate: Timed,
  folded: Timed,
  field: string,
  shape: { what: string; indexes: string; n: number; members: number },
): Result {
  const measurements = [toMeasurement(separate), toMeasurement(folded)];
  const ratio = ratioOf(`first access, ${shape.n} collections / one collection with ${field}`, separate, folded);
  const claim = accessClaim(field);
  const complete = separate.complete && folded.complete;
  const status: Verdict = complete ? judge(claim, ratio) : 'inconclusive';
  const times = {
    separate: formatDuration(measurements[0]?.median ?? 0),
    folded: formatDuration(measurements[1]?.median ?? 0),
  };
  const parts = [
    say(M, 'measuredAccess', {
      what: shape.what,
      indexes: shape.indexes,
      n: shape.n,
      ...times,
      figure: figure(ratio, claim),
      rounds: separate.samples.length,
    }),
    say(M, 'measuredWarmHandle', { members: formatNumber(shape.members) }),
  ];
  const data = { claim: claim.text, margin: noisePercent() };
  if (!complete) parts.push(say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS }));
  else
    parts.push(
      status === 'supported'
        ? say(M, 'supportedAccess', data)
        : status === 'refuted'
          ? say(M, 'refutedAccess', data)
          : say(M, 'inconclusiveAccess', data),
    );
  return { status, claim, summary: parts.join(' '), ratio, measurements };
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredAccess: sentence(
    "With {{what}} and the group's {{indexes}}: the first find on each of {{n}} collections just created ",
    'took {{separate}} per pass against {{folded}} for {{n}} new tenants in one collection: {{figure}}, ',
    '{{rounds}} rounds timed in alternation after a warm-up.',
  ),
  measuredWarmHandle: sentence(
    'Creating a collection opens its data handle, so this times the per-collection lookup and cursor on a ',
    'warm handle, not a cold open of a file from disk (a restart, or a handle closed after ~28 h idle), ',
    'which costs more. The group has {{members}} collections; the cost per collection grows with the handle ',
    'count (at 500,000 collections, reads and writes were 10-100x slower than with one shared table for all ',
    'of them), so this understates it.',
  ),
  supportedAccess: 'The interval lies above 1x: the claim that {{claim}} holds on this warm-handle test.',
  refutedAccess: sentence(
    'The interval lies below 1x: on warm handles the one collection was slower, against the claim that ',
    '{{claim}}; cold opens and contention among many handles are not tested here.',
  ),
  inconclusiveAccess: sentence(
    'The interval reaches within {{margin}} of 1x, so whether {{claim}} is not shown either way on this ',
    'warm-handle test.',
  ),
  inconclusiveBudget:
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached.',
} as const;
const M = CONFIRM_MESSAGES;

/** The claim, a direction and a size: a first access costs more over separate collections than in one (ratio above
 * 1). */
export function accessClaim(field: string): RatioClaim {
  return ratioClaim(
    'above',
    1,
    `a first access costs more over separate collections than over one collection with ${codeSpan(field)}`,
  );
}
