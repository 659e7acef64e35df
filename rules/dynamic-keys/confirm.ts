import { codeSpan } from '../../src/lib/shell';
import { sentence } from '../../src/core/rule';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/confirm/context';
import { DEFAULT_TRIALS, MIN_BLOCKS, ratioOf, toMeasurement } from '../../src/confirm/harness';
import { alternate, withoutId } from '../../src/confirm/trials';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, RatioClaim, Verdict } from '../../src/core/types';
import { isPlainObject, pathSegments, valueAt } from '../../src/lib/doc-path';
import { planFacts } from '../../src/lib/explain';
import { attributeIndexKey, namedByDots, rewritableInPlace, valuesAreDocuments } from './analyze';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const notRun = (summary: string, reason: string): Result => ({ status: 'not-run', summary, reason, measurements: [] });

/** Keys queried per timed pass: drawn from the copies, spread over the key list. Never reported. */
export const PROBE_KEYS = 20;
/** A key a dotted path can name: no dot, no leading `$`, not empty. */
const NAMEABLE = /^[^.$][^.]*$/;

/** The scratch index of the attribute pattern. */
const INDEX = 'attributes_k_v';

/** What ran for one query: the plan and its execution, never the rejected plans. */
const ranOf = (explain: Doc | null): ReturnType<typeof planFacts> =>
  planFacts([explain?.queryPlanner, explain?.executionStats]);

const planStages = (explain: Doc | null): string[] => [...new Set(ranOf(explain).stages)];

/** true: the plan names the index; false: a MongoDB plan without it; null: no plan MongoDB's way (FerretDB's SQL
 * plan). */
export function planUses(explain: Doc | null, index: string): boolean | null {
  const { stages, indexes } = ranOf(explain);
  if (indexes.includes(index)) return true;
  return stages.length > 0 ? false : null;
}

/** A copy of the document with the map at the path stored as the attribute pattern: `[{k, v}, …]`. */
export function asAttributes(doc: Doc, segments: readonly string[]): Doc {
  const [head, ...rest] = segments;
  if (head === undefined) return doc;
  const v = doc[head];
  if (!isPlainObject(v)) return doc;
  const next = rest.length ? asAttributes(v, rest) : Object.entries(v).map(([k, x]) => ({ k, v: x }));
  return { ...doc, [head]: next };
}

/**
 * Keys spread over the copies' distinct keys (sorted, then every n-th), so common and rare keys are both asked for;
 * only keys a dotted path can name.
 */
export function probeKeys(docs: readonly Doc[], segments: readonly string[], n = PROBE_KEYS): string[] {
  const keys = new Set<string>();
  for (const d of docs) {
    const m = valueAt(d, segments);
    if (isPlainObject(m)) for (const k of Object.keys(m)) if (NAMEABLE.test(k)) keys.add(k);
  }
  const sorted = [...keys].sort();
  if (sorted.length <= n) return sorted;
  const step = sorted.length / n;
  return Array.from({ length: n }, (_, i) => sorted[Math.floor(i * step)] as string);
}

/**
 * The claim: a query for one key of the map has no index to use (short of one per key), where the attribute pattern
 * serves every key with one index. The same copies in two scratch collections, the map as it is and as `[{k, v}]`
 * with the index on `{path.k: 1, path.v: 1}` (`{path.k: 1}` when the values are documents); the same keys asked of
 * each (one find per key, timed in alternation), after checking both answer with the same documents per key. The
 * keys are the user's data: they are used on scratch only and never appear in the summary.
 */
const MAP = 'keys_as_fields';
const PAIRS = 'keys_as_pairs';

/** Whether the values under the finding's map are documents: the pattern's index is then on k alone. */
function valuesDocumentsAt(ctx: ConfirmContext, f: Finding): boolean {
  const { db, collection, path } = f.target;
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  const m = c?.sample.dynamicKeys.find((k) => k.path === path);
  return m !== undefined && valuesAreDocuments(m);
}

/** Why no experiment can stand for this finding; null when one can. */
function whyNotRun(ctx: ConfirmContext, f: Finding): Result | null {
  const { db, collection, path } = f.target;
  if (!collection || !path) {
    return notRun(
      'No experiment for documents that are maps themselves',
      'moving every top-level key into one array changes the whole document, not one field a copy could stand in for',
    );
  }
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  if (!namedByDots(path)) {
    const why = 'its name holds a dot or starts with `$`, which no index can name: the pattern has no index there';
    return notRun('No experiment for this map', why);
  }
  if (!c || !rewritableInPlace(c, path)) {
    return notRun(
      'No experiment for this map',
      'it sits in an array or under another map, so a query on one of its keys is not a plain dotted path',
    );
  }
  return null;
}

/** The two finds of one key: on the map's field, and on the `{k, v}` array's index. */
function findsOf(path: string) {
  return {
    asField: (k: string): Doc => ({
      find: MAP,
      filter: { [`${path}.${k}`]: { $exists: true } },
      projection: { _id: 1 },
      batchSize: 100_000,
      singleBatch: true,
    }),
    asPair: (k: string): Doc => ({
      find: PAIRS,
      filter: { [`${path}.k`]: k },
      projection: { _id: 1 },
      batchSize: 100_000,
      singleBatch: true,
    }),
  };
}

type Finds = ReturnType<typeof findsOf>;

/** The copies stored both ways: the map as it is, and as an indexed array of `{k, v}`. */
async function storeBothShapes(
  s: ConfirmContext['scratch'],
  path: string,
  copies: readonly Doc[],
  segments: readonly string[],
  documents: boolean,
): Promise<void> {
  await s.drop(MAP);
  await s.drop(PAIRS);
  // Batched by each document's own size (an average of 0, or a few large documents, sent one command over 16 MiB).
  await s.insertMany(MAP, [...copies]);
  await s.insertMany(
    PAIRS,
    copies.map((d) => asAttributes(d, segments)),
  );
  await s.command({ createIndexes: PAIRS, indexes: [{ key: attributeIndexKey(path, documents), name: INDEX }] });
}

async function dropBoth(s: ConfirmContext['scratch']): Promise<void> {
  await s.drop(MAP);
  await s.drop(PAIRS);
}

/** Both shapes must answer alike before their times mean anything: the documents found, or why they differ. */
async function sameAnswers(s: ConfirmContext['scratch'], keys: readonly string[], q: Finds): Promise<number | Result> {
  const count = async (cmd: Doc): Promise<number> =>
    (((await s.command(cmd)).cursor as Doc | undefined)?.firstBatch as unknown[] | undefined)?.length ?? 0;
  let matches = 0;
  for (const k of keys) {
    const [a, b] = [await count(q.asField(k)), await count(q.asPair(k))];
    if (a !== b) {
      return {
        status: 'inconclusive',
        summary:
          `Not measured: for one of the keys asked, the map found ${formatNumber(a)} documents and the ` +
          `attribute pattern ${formatNumber(b)}, so the two shapes did not answer alike.`,
        measurements: [],
      };
    }
    matches += a;
  }
  return matches;
}

/**
 * What each plan read for one key (explain executionStats), and whether the indexed query used the index at all: a
 * server that scans anyway would make the times a comparison of two scans, not a test of the claim.
 */
async function explainBoth(s: ConfirmContext['scratch'], path: string, key: string, q: Finds) {
  const explain = async (cmd: Doc): Promise<Doc | null> =>
    await s.command({ explain: { find: cmd.find, filter: cmd.filter }, verbosity: 'executionStats' }).catch(() => null);
  const [onMap, onPairs] = [await explain(q.asField(key)), await explain(q.asPair(key))];
  const used = planUses(onPairs, INDEX);
  const examined = (e: Doc | null): number | null => {
    const n = (e?.executionStats as Doc | undefined)?.totalDocsExamined;
    return typeof n === 'number' ? n : null;
  };
  if (used === true) return { scanned: examined(onMap), fetched: examined(onPairs) };
  const why =
    used === false
      ? `the server's plan for the query on ${codeSpan(`${path}.k`)} does not use the {k, v} index ` +
        `(${planStages(onPairs).join(' > ') || 'no stage named'})`
      : "the server's explain does not say which index the query used";
  return notRun(
    'The copies were stored both ways on scratch, but no times were taken: they would compare two scans, ' +
      'not the two shapes',
    why,
  );
}

export async function confirmDynamicKeys(ctx: ConfirmContext, f: Finding): Promise<Result> {
  const unfit = whyNotRun(ctx, f);
  if (unfit) return unfit;
  const { db } = f.target;
  const collection = f.target.collection ?? '';
  const path = f.target.path ?? '';
  const segments = pathSegments(path);
  const copies = (await ctx.sourceDocs(db, collection))
    .map(withoutId)
    .filter((d) => isPlainObject(valueAt(d, segments)));
  const keys = probeKeys(copies, segments);
  if (keys.length < 2) {
    return {
      status: 'inconclusive',
      summary:
        `Not measured: the ${formatNumber(copies.length)} copied documents ` +
        `hold ${keys.length === 0 ? 'no key' : 'one key'} at ${codeSpan(path)} that a dotted path can name.`,
      measurements: [],
    };
  }
  const s = ctx.scratch;
  const q = findsOf(path);
  const documents = valuesDocumentsAt(ctx, f);
  await storeBothShapes(s, path, copies, segments, documents);
  // The plan first (one explain per shape): where the pattern's index goes unused nothing is timed, so the answers
  // need not be compared. Compared first, a server without a usable plan (FerretDB) ran a find per probed key on each
  // shape for nothing: 40 reads of the whole copy, most of a minute on a collection of large documents.
  const examined = await explainBoth(s, path, keys[0] as string, q);
  if ('status' in examined) {
    await dropBoth(s);
    return examined;
  }
  const matches = await sameAnswers(s, keys, q);
  if (typeof matches !== 'number') {
    await dropBoth(s);
    return matches;
  }
  const [fields, pairs] = await alternate(
    ctx.budget,
    {
      label: `find by one key, ${formatNumber(keys.length)} keys, map as fields`,
      run: async () => {
        for (const k of keys) await s.command(q.asField(k));
      },
    },
    {
      label: `find by one key, ${formatNumber(keys.length)} keys, {k, v} array with index`,
      run: async () => {
        for (const k of keys) await s.command(q.asPair(k));
      },
    },
    DEFAULT_TRIALS,
  );
  await dropBoth(s);
  const facts = { copied: copies.length, collection, path, documents, keys: keys.length, matches, ...examined };
  return verdictOf(fields, pairs, facts);
}

/** The verdict and its summary: what was stored, what the finds took, what each plan examined. */
function verdictOf(
  fields: Parameters<typeof ratioOf>[1],
  pairs: Parameters<typeof ratioOf>[2],
  x: {
    copied: number;
    collection: string;
    path: string;
    documents: boolean;
    keys: number;
    matches: number;
    scanned: number | null;
    fetched: number | null;
  },
): Result {
  const measurements = [toMeasurement(fields), toMeasurement(pairs)];
  const ratio = ratioOf('find by key, map / attribute pattern', fields, pairs);
  const claim = mapClaim();
  const complete = fields.complete && pairs.complete;
  const status: Verdict = complete ? judge(claim, ratio) : 'inconclusive';
  const parts = [
    say(M, x.documents ? 'measuredStoredDocuments' : 'measuredStored', {
      copied: formatNumber(x.copied),
      collection: x.collection,
      path: x.path,
    }),
    say(M, 'measuredFinds', {
      keys: formatNumber(x.keys),
      matches: formatNumber(x.matches),
      map: formatDuration(measurements[0]?.median ?? 0),
      pairs: formatDuration(measurements[1]?.median ?? 0),
      figure: figure(ratio, claim),
      rounds: formatNumber(fields.samples.length),
    }),
  ];
  if (x.scanned !== null && x.fetched !== null)
    parts.push(say(M, 'measuredExamined', { scanned: formatNumber(x.scanned), fetched: formatNumber(x.fetched) }));
  const data = { claim: claim.text, margin: noisePercent() };
  if (!complete) parts.push(say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS }));
  else
    parts.push(
      status === 'supported'
        ? say(M, 'supportedMap', data)
        : status === 'refuted'
          ? say(M, 'refutedMap', data)
          : say(M, 'inconclusiveMap', data),
    );
  return { status, claim, summary: parts.join(' '), ratio, measurements };
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredStored: sentence(
    '{{copied}} documents copied from {{collection}}, stored twice on scratch: `{{path}}` as it is, and as ',
    'an array of {k, v} with one index on k and v.',
  ),
  measuredStoredDocuments: sentence(
    '{{copied}} documents copied from {{collection}}, stored twice on scratch: `{{path}}` as it is, and as ',
    'an array of {k, v} with one index on k (its values are documents).',
  ),
  measuredFinds: sentence(
    'Finding the documents holding each of {{keys}} keys drawn from the copies ({{matches}} matches, the ',
    'same in both) took {{map}} against {{pairs}}: {{figure}}, {{rounds}} rounds timed in alternation.',
  ),
  measuredExamined: sentence(
    "For one key the map's query examined {{scanned}} documents and the indexed one {{fetched}}. The map's ",
    'query reads every document, the indexed one only the matches.',
  ),
  supportedMap: 'The interval lies above 1x: the claim that {{claim}} holds.',
  refutedMap: 'The interval lies below 1x: the map was faster, against the claim that {{claim}}.',
  inconclusiveMap: 'The interval reaches within {{margin}} of 1x, so whether {{claim}} is not shown either way.',
  inconclusiveBudget:
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached.',
} as const;
const M = CONFIRM_MESSAGES;

/** The claim, a direction and a size: finding by one key takes longer in the map than in the indexed {k, v} array. */
export function mapClaim(): RatioClaim {
  return ratioClaim(
    'above',
    1,
    'finding documents by one key takes longer in the map than in the indexed {k, v} array',
  );
}
