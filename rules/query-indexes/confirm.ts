import { dataOf } from '../../src/core/collector';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/core/rule';
import { sentence } from '../../src/core/rule';
import type { Confirmation, Finding } from '../../src/core/types';
import { formatNumber } from '../../src/core/format';
import { checkClaim, say } from '../../src/confirm/verdict';
import { fmtRatio } from '../../src/confirm/trials';
import { percent, proveIndex, type CopyBound, type IndexProof } from '../../src/confirm/index-proof';
import { formatKey } from '../../src/lib/index-keys';
import { commandsOf, queryWorkload } from '../../src/collect/workload';
import type { QueryIndexesOptions } from './options';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const COPIED = sentence(
  "On {{copied}} copied documents ({{copyWhy}}) with the collection's indexes rebuilt, {{calls}} real calls ",
  'replayed ',
);

export const CONFIRM_MESSAGES = {
  supported: sentence(
    COPIED,
    'unhinted: {{key}} cut the keys and documents examined from {{before}} to {{after}} per call, the planner chose ',
    'it in {{picked}} of them, the results were the same both ways, and the calls took {{time}} the time ',
    'they took without it.',
  ),
  refuted: sentence(COPIED, 'unhinted: {{key}} did not earn its place: {{why}}.'),
  inconclusive: sentence(COPIED, 'unhinted: {{key}} examined {{before}} to {{after}} per call, but {{why}}.'),
  notRun: 'Not proven on a copy: {{why}}.',
  notRunNoCommands: sentence(
    'Not proven on a copy: the real calls of this shape are kept in memory only while the run that read them lasts ',
    '(never in a snapshot file): run check against the server with the workload (the profiler, --log or --queries).',
  ),
  notRunLookup: sentence(
    'Not proven on a copy: a $lookup runs on another collection, and the proof replays only the queries sent to ',
    'this one (copying both sides is not built yet); an index on the foreign field turns each scan of it into a ',
    'seek, so judge it by the calls and the collection size above.',
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
  return (replays ?? []).reduce((n, r) => n + r.keysExamined + r.docsExamined, 0);
}

/** Why the copy holds as many documents as it does (`planProofCopy`): a noun phrase for `{{copyWhy}}`. */
export const COPY_WHY: Record<CopyBound, string> = {
  collection: 'the whole collection',
  proofDocs: "the proof's size, proofDocs",
  maxDocs: "the run's --confirm-docs",
  maxBytes: "as many as the run's byte limit holds",
  defaultLimit: "the run's default limit",
  unsized: "the run's default limit, the documents' size being unknown",
};

/** Proves the proposed index on a scratch copy (src/confirm/index-proof.ts) and says what it showed. */
export async function confirmQueryIndex(
  ctx: ConfirmContext,
  f: Finding,
  options: QueryIndexesOptions,
): Promise<Result> {
  if (f.messageId === 'lookupUnindexed')
    return { status: 'not-run', summary: say(CONFIRM_MESSAGES, 'notRunLookup'), measurements: [] };
  const instances = instancesOf(ctx, f);
  if (!instances.length)
    return { status: 'not-run', summary: say(CONFIRM_MESSAGES, 'notRunNoCommands'), measurements: [] };
  const key = JSON.parse(String(f.evidence.proposedKey)) as Record<string, 1 | -1>;
  const coll = ctx.snapshot.databases
    .find((d) => d.name === f.target.db)
    ?.collections.find((c) => c.name === f.target.collection);
  const proof = await proveIndex(ctx, {
    ns: `${f.target.db}.${f.target.collection ?? ''}`,
    existingIndexes: (coll?.indexes ?? []).map((i) => ({ key: i.key, name: i.name })),
    candidate: { key, name: String(f.evidence.proposed) },
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

function resultOf(p: IndexProof, key: string, calls: number, share: number): Result {
  const claim = checkClaim(
    `${key} cuts the keys and documents examined to ${percent(share)} or less without slowing the query`,
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
  };
  const ratio = p.time ? { ratio: { ...p.time, label: 'time with the index / without' } } : {};
  const insert = p.writeCost?.insert ? `inserts ${fmtRatio(p.writeCost.insert)} with it` : undefined;
  const brief = [`examined ${figures.before} → ${figures.after} per call`, insert].filter(Boolean).join('; ');
  const base = { claim, measurements: [], brief, ...ratio };
  if (p.status === 'supported') {
    const time = p.time ? fmtRatio(p.time) : 'untimed';
    const picked = formatNumber(p.pickedCandidate ?? 0);
    return { ...base, status: 'supported', summary: say(CONFIRM_MESSAGES, 'supported', { ...figures, picked, time }) };
  }
  const why = p.reason ?? 'no reason was given';
  if (p.status === 'refuted')
    return { ...base, status: 'refuted', summary: say(CONFIRM_MESSAGES, 'refuted', { ...figures, why }) };
  return { ...base, status: 'inconclusive', summary: say(CONFIRM_MESSAGES, 'inconclusive', { ...figures, why }) };
}
