import { dataOf } from '../../src/core/collector';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/core/rule';
import { sentence } from '../../src/core/rule';
import type { Confirmation, Finding } from '../../src/core/types';
import { formatBytes, formatNumber } from '../../src/core/format';
import { ratioClaim, say } from '../../src/confirm/verdict';
import { fmtRatio } from '../../src/confirm/trials';
import {
  percent,
  proveIndex,
  type Copy,
  type CopyBound,
  type IndexProof,
  type IndexSpec,
  type JoinCopy,
  joinWork,
  lateSentence,
  work,
} from '../../src/confirm/index-proof';
import { formatKey } from '../../src/lib/index-keys';
import { commandsOf, queryWorkload } from '../../src/collect/workload';
import type { QueryIndexesOptions } from './options';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const COPIED = sentence(
  "On {{copied}} copied documents ({{copyWhy}}) with the collection's indexes rebuilt{{joined}}, {{calls}} real ",
  'calls replayed ',
);

export const CONFIRM_MESSAGES = {
  supported: sentence(
    COPIED,
    'unhinted: {{key}} cut the keys and documents examined from {{before}} to {{after}} per call, the planner chose ',
    'it in {{picked}} of them, the results were the same both ways, and the calls took {{time}} the time ',
    'they took without it. Decided on the examined counts and the time.{{writes}}',
  ),
  supportedByTime: sentence(
    COPIED,
    'unhinted: with {{key}} the calls took {{time}} the time they took without it, the results were the same both ',
    "ways. Decided on the time: the server's explain gives no examined counts for the $lookup stage.{{writes}}",
  ),
  supportedByCounts: sentence(
    COPIED,
    'unhinted: {{key}} cut the keys and documents examined from {{before}} to {{after}} per call, to {{share}} or ',
    'less on every call, the planner chose it on every one, and the results were the same both ways. Decided on the ',
    'examined counts; the time, a second check, {{timeWhy}}.{{writes}}',
  ),
  supportedByJoinQuery: sentence(
    COPIED,
    "unhinted. The server's explain counts nothing of the $lookup stage, so the join's own query (its foreign field ",
    'matched against the {{values}} local values a call brings to it) was explained on both joined copies: {{key}} ',
    'cut it from {{joinBefore}} to {{joinAfter}} keys and documents examined per call{{weighted}}, the planner chose ',
    'it on every call; with what the stages before the join examined ({{own}} per call either way) counted in, ',
    '{{before}} without it and {{after}} with it per call (to {{share}} or less on every call); the pipelines ',
    'returned the same results both ways. Decided on the examined counts (without the index that query reads no more ',
    'than the $lookup does, so the cut in production is at least this); the time, a second check, ',
    '{{timeWhy}}.{{writes}}',
  ),
  refuted: sentence(COPIED, 'unhinted: {{key}} did not earn its place: {{why}}.'),
  inconclusive: sentence(COPIED, 'unhinted: {{key}} examined {{before}} to {{after}} per call, but {{why}}.{{writes}}'),
  notRun: 'Not proven on a copy: {{why}}.',
  notRunNoCommands: sentence(
    'Not proven on a copy: the real calls of this shape are kept in memory only while the run that read them lasts ',
    '(never in a snapshot file): run check against the server with the workload (the profiler, --log or --queries).',
  ),
} as const;

/** Findings that propose an index (the regex findings propose none). */
export function provesIndex(f: Finding): boolean {
  return typeof f.evidence.proposedKey === 'string' && typeof f.evidence.shapeId === 'string';
}

/** The shape's real calls, from the run's own snapshot (never from a file: commands are not serialized). */
function instancesOf(ctx: ConfirmContext, f: Finding): readonly Doc[] {
  const db = ctx.snapshot.databases.find((d) => d.name === f.target.db);
  const data = db ? dataOf(queryWorkload, db) : undefined;
  const coll = data?.collections.find((c) => c.name === f.target.collection);
  const shape = coll?.shapes.find((s) => s.id === f.evidence.shapeId);
  return shape ? commandsOf(shape) : [];
}

const perCall = (total: number, calls: number): string => formatNumber(Math.round(total / Math.max(1, calls)));

function examined(replays: IndexProof['without']): number {
  return (replays ?? []).reduce((n, r) => n + work(r), 0);
}

/** What a joined collection's copy holds, for `{{joined}}` (leading " and"). */
export function joinedPhrase(j: JoinCopy): string {
  const n = formatNumber(j.copied);
  if (j.reached !== undefined)
    return (
      ` and ${n} documents of ${j.from} copied (the ${formatNumber(j.reached)} the replayed calls join to and ` +
      `${formatNumber(Math.max(0, j.copied - j.reached))} others: the join in place)`
    );
  const whole = j.partial ? '' : 'the whole collection: ';
  return ` and ${n} joined documents of ${j.from} copied (${whole}the join in place)`;
}

/** The write cost in a sentence (leading space), or why it was not measured; never a NaN. */
function writesSentence(p: IndexProof): string {
  const w = p.writeCost;
  if (!w) return '';
  const size =
    w.bytes !== null
      ? `about ${formatBytes(w.bytes)} at the collection's size`
      : `size unknown (${w.sizeReason ?? 'not measured'})`;
  const insert = w.insert
    ? `inserts took ${fmtRatio(w.insert)} the time with it`
    : `insert time ${w.insertReason ?? 'not measured'}`;
  return ` Write cost: ${size}; ${insert}.`;
}

/**
 * The write cost in the one line the grouped text report prints per proof (the summary says it in full): the index's
 * size at the collection's size and the insert time with it, each when measured.
 */
function writeBrief(p: IndexProof): string | undefined {
  const w = p.writeCost;
  if (!w) return undefined;
  const parts = [
    w.bytes !== null ? `about ${formatBytes(w.bytes)}` : null,
    w.insert ? `inserts ${fmtRatio(w.insert)} with it` : null,
  ].filter((x): x is string => x !== null);
  return parts.length ? `write cost ${parts.join(', ')}` : undefined;
}

/** Why the copy holds as many documents as it does (`planProofCopy`): a noun phrase for `{{copyWhy}}`. */
export const COPY_WHY: Record<CopyBound, string> = {
  collection: 'the whole collection',
  proofDocs: "the proof's size, proofDocs",
  maxDocs: "the run's --confirm-docs",
  maxBytes: "as many as the run's byte limit holds",
  defaultLimit: "the run's default limit",
  unsized: "the run's default limit, the documents' size being unknown",
  budget: 'as many as the time budget allowed',
};

/** Proves the proposed index on a scratch copy (src/confirm/index-proof.ts) and says what it showed. */
export async function confirmQueryIndex(
  ctx: ConfirmContext,
  f: Finding,
  options: QueryIndexesOptions,
): Promise<Result> {
  const instances = instancesOf(ctx, f);
  if (!instances.length)
    return { status: 'not-run', summary: say(CONFIRM_MESSAGES, 'notRunNoCommands'), measurements: [] };
  const key = JSON.parse(String(f.evidence.proposedKey)) as Record<string, 1 | -1>;
  const db = ctx.snapshot.databases.find((d) => d.name === f.target.db);
  const indexesOf = (name: string): { key: Doc; name: string }[] =>
    (db?.collections.find((c) => c.name === name)?.indexes ?? []).map((i) => ({ key: i.key, name: i.name }));
  // A $lookup's foreign-field index: the calls are the pipelines sent to the local collection, replayed with the
  // joined documents copied, the candidate built on the joined copy.
  const lookup = f.messageId === 'lookupUnindexed';
  const aggregated = instances[0]?.aggregate;
  const local = lookup && typeof aggregated === 'string' ? aggregated : (f.target.collection ?? '');
  const existingIndexes = indexesOf(local);
  const prefix = lookup ? undefined : bestPrefixOf(key, existingIndexes);
  const joinedIndexes = Object.fromEntries((db?.collections ?? []).map((c) => [c.name, indexesOf(c.name)]));
  const proof = await proveIndex(ctx, {
    ns: `${f.target.db}.${local}`,
    existingIndexes,
    candidate: { key, name: String(f.evidence.proposed) },
    ...(prefix ? { prefix } : {}),
    ...(lookup ? { candidateOn: f.target.collection ?? '' } : {}),
    joinedIndexes,
    instances,
    docs: options.proofDocs,
    examinedShare: options.examinedShare,
    insertBatch: options.insertBatch,
    plannerTrialWorks: options.plannerTrialWorks,
    // Declared to the consent line by the rule's `copyDocs`.
    pastMaxDocs: true,
  });
  return resultOf(proof, formatKey(key), instances.length, options.examinedShare);
}

/**
 * The prefix a compound candidate is held against (Dexter's test, lib/dexter/indexer.rb: a multicolumn index must
 * beat the best single-column one by the savings share again): the longest existing index whose fields lead the
 * candidate's, else the candidate's first field alone (the shorter candidate it would replace). None for one field.
 */
export function bestPrefixOf(
  key: Record<string, 1 | -1>,
  existing: readonly { key: Doc; name: string }[],
): IndexSpec | undefined {
  const fields = Object.keys(key);
  if (fields.length < 2) return undefined;
  const leads = existing
    .map((i) => ({ i, f: Object.keys(i.key) }))
    .filter(({ f }) => f.length < fields.length && f.every((x, j) => x === fields[j]))
    .sort((x, y) => y.f.length - x.f.length)[0];
  if (leads) return { key: leads.i.key, name: leads.i.name };
  const first = fields[0] as string;
  return { key: { [first]: key[first] ?? 1 }, name: `${first}_${key[first] ?? 1}` };
}

/** What a proof showed, as the confirmation every format prints (exported for its test). */
export function resultOf(p: IndexProof, key: string, calls: number, share: number): Result {
  const r = proofResult(p, key, calls, share);
  // why the confirmation took longer than its budget, when it did (the test of issue 27 holds every proof to it)
  const late = p.copy?.pastBudget ? pastBudgetSentence(p.copy, p.joins) : p.late ? lateSentence(p.late) : null;
  return late ? { ...r, summary: `${r.summary} ${late}` } : r;
}

/**
 * Said when the copy could not be cut to fit the budget (fewer documents could not decide): why the confirmation took
 * longer than the budget, and how to keep it within.
 */
export function pastBudgetSentence(copy: Copy, joins: readonly JoinCopy[] = []): string {
  const n = formatNumber(copy.copied);
  const joined = joins.reduce((t, j) => t + j.copied, 0);
  const also = joined > 0 ? ` and the ${formatNumber(joined)} joined ones` : '';
  return [
    `Copying these ${n} documents${also} (fewer could not decide: the planner reads a small copy whole, and a join cut`,
    'short returns other results) did not fit the time budget on this server, so this proof ran past its budget',
    'rather than decide nothing; a larger --confirm-budget keeps it within.',
  ].join(' ');
}

function proofResult(p: IndexProof, key: string, calls: number, share: number): Result {
  const claim = ratioClaim(
    'below',
    1,
    `${key} cuts the keys and documents examined to ${percent(share)} or less on the replayed calls without ` +
      'slowing them (time with the index / without)',
  );
  if (p.status === 'not-run') {
    const why = p.reason ?? 'the proof did not run';
    return { status: 'not-run', summary: say(CONFIRM_MESSAGES, 'notRun', { why }), reason: why, measurements: [] };
  }
  const figures = {
    copied: formatNumber(p.copy?.copied ?? 0),
    copyWhy: COPY_WHY[p.copy?.bound ?? 'proofDocs'],
    calls: formatNumber(p.without?.length ?? calls),
    key,
    before: perCall(examined(p.without), p.without?.length ?? 1),
    after: perCall(examined(p.with), p.with?.length ?? 1),
    joined: (p.joins ?? []).map(joinedPhrase).join(''),
  };
  const ratio = p.time ? { ratio: { ...p.time, label: 'time with the index / without' } } : {};
  const writes = writesSentence(p);
  const brief = [`examined ${figures.before} → ${figures.after} per call`, writeBrief(p)].filter(Boolean).join('; ');
  const base = { claim, measurements: [], brief, ...ratio };
  if (p.status === 'supported' && p.basis === 'time') {
    const data = { ...figures, time: p.time ? fmtRatio(p.time) : 'untimed', writes };
    return { ...base, status: 'supported', summary: say(CONFIRM_MESSAGES, 'supportedByTime', data) };
  }
  if (p.status === 'supported' && p.joinBasis === 'query' && p.basis !== 'time') {
    const timeWhy =
      p.basis === 'examined and time' && p.time
        ? `agreed: the calls took ${fmtRatio(p.time)} the time they took without it`
        : p.time
          ? `took ${fmtRatio(p.time)} the time without it, not enough rounds for a 95% interval in the budget`
          : 'was not timed: the budget ended first';
    const joins = (p.without ?? []).map((r) => r.join);
    const joinTotal = (rs: IndexProof['without']): number => (rs ?? []).reduce((t, r) => t + joinWork(r.join), 0);
    const n = p.without?.length ?? 1;
    const weight = Math.max(1, ...(p.with ?? []).map((r) => r.join?.weight ?? 1));
    const weighted =
      weight > 1
        ? ` (with it counted ${formatNumber(weight)} times over, as many as the local documents sharing one value, ` +
          'since the stage seeks once per local document)'
        : '';
    const data = {
      ...figures,
      values: perCall(
        joins.reduce((t, j) => t + (j?.values ?? 0), 0),
        n,
      ),
      joinBefore: perCall(joinTotal(p.without), n),
      joinAfter: perCall(joinTotal(p.with), n),
      weighted,
      own: perCall(examined(p.without) - joinTotal(p.without), n),
      share: percent(share),
      timeWhy,
      writes,
    };
    return { ...base, status: 'supported', summary: say(CONFIRM_MESSAGES, 'supportedByJoinQuery', data) };
  }
  if (p.status === 'supported' && p.basis === 'examined') {
    const timeWhy = p.time
      ? `took ${fmtRatio(p.time)} the time without it, not enough rounds for a 95% interval in the budget`
      : 'was not timed: the budget ended first';
    const data = { ...figures, share: percent(share), timeWhy, writes };
    return { ...base, status: 'supported', summary: say(CONFIRM_MESSAGES, 'supportedByCounts', data) };
  }
  if (p.status === 'supported') {
    const time = p.time ? fmtRatio(p.time) : 'untimed';
    const picked = formatNumber(p.pickedCandidate ?? 0);
    const data = { ...figures, picked, time, writes };
    return { ...base, status: 'supported', summary: say(CONFIRM_MESSAGES, 'supported', data) };
  }
  const why = p.reason ?? 'no reason was given';
  if (p.status === 'refuted')
    return { ...base, status: 'refuted', summary: say(CONFIRM_MESSAGES, 'refuted', { ...figures, why }) };
  const data = { ...figures, why, writes };
  return { ...base, status: 'inconclusive', summary: say(CONFIRM_MESSAGES, 'inconclusive', data) };
}
