import { dataOf } from '../../src/core/collector';
import { formatKey } from '../../src/lib/index-keys';
import { codeSpan } from '../../src/lib/shell';
import { defineRule, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, DatabaseSnapshot, Recommendation } from '../../src/core/types';
import type { Advice, Candidate } from '../../src/workload/candidates';
import { type HideServer, withRedundantPrefixes } from '../../src/lib/hide-drop';
import type { IndexShape } from '../../src/lib/index-keys';
import {
  gapWords,
  type Judgement,
  judgeShape,
  redundantPrefixesOf,
  type UnboundedRegexes,
} from '../../src/workload/judge';
import {
  callsText,
  createIndexCommand,
  databaseAdvice,
  distinctEvidence,
  impactOf,
  namesMapKey,
  wastedPerCall,
} from './analyze';
import { queryWorkload, type ShapeData } from '../../src/collect/workload';
import { fieldSelectivity } from './selectivity';
import { type QueryIndexesOptions, queryIndexesOptionsSchema } from './options';
import { CONFIRM_MESSAGES, provesIndex, confirmQueryIndex } from './confirm';
import { shapeTables } from './table';

export { queryIndexesOptionsSchema, type QueryIndexesOptions } from './options';

const WOULD = ' The index {{key}} would serve it.';
const NO_BOUND = ': no index bounds it ({{calls}}, {{time}}), so none is proposed.';

const messages = {
  unindexed: sentence(
    'No index serves {{shape}}: {{calls}} ({{time}}) read {{examined}} documents to return {{returned}}.',
    WOULD,
  ),
  unindexedScan: sentence(
    'No index serves {{shape}}: each of its {{calls}} ({{time}}) scans the collection ({{documents}} documents); ',
    'the source gives no examined counts.',
    WOULD,
  ),
  partlyIndexed: sentence(
    'Index `{{index}}` serves {{shape}} only in part ({{gaps}}): {{calls}} ({{time}}) read {{examined}} documents ',
    'to return {{returned}}.',
    WOULD,
  ),
  partlyIndexedScan: sentence(
    'Index `{{index}}` serves {{shape}} only in part ({{gaps}}): each of its {{calls}} ({{time}}) reads up to the ',
    'whole collection ({{documents}} documents); the source gives no examined counts.',
    WOULD,
  ),
  inMemorySort: sentence('No index gives the sort of {{shape}} ({{calls}}, {{time}}): it is sorted in memory.', WOULD),
  wrongOrder: sentence(
    'Index `{{index}}` {{indexKey}} holds the fields of {{shape}} in an order that cannot serve it ({{gaps}}; ',
    '{{calls}}, {{time}}).',
    WOULD,
  ),
  lookupUnindexed: sentence(
    'A $lookup matches {{shape}} with no index on the foreign field: {{calls}} ({{time}}), each input document ',
    'scanning the collection.',
    WOULD,
  ),
  regexCaseInsensitive: sentence('{{shape}} matches `{{paths}}` with a case-insensitive regex', NO_BOUND),
  regexUnanchored: sentence('{{shape}} matches `{{paths}}` with an unanchored regex', NO_BOUND),
  onView: sentence(
    '{{shape}} runs on a view of `{{source}}` ({{calls}}, {{time}}): MongoDB supports no index operations on a ',
    "view, so none is proposed for it. The server runs the view's pipeline on `{{source}}`, then the query: ",
    "its indexes are `{{source}}`'s.",
  ),
} as const;

type QueryReport = Report<typeof messages>;

const ESR = 'https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/';
const REGEX = 'https://www.mongodb.com/docs/manual/reference/operator/query/regex/#index-use';
/** "you cannot create, drop or re-build indexes on the view directly nor get a list of indexes on the view" */
const VIEWS = 'https://www.mongodb.com/docs/manual/core/views/#index-use-and-sort-operations';

const PROOF =
  'Judged from the key patterns (equality fields first, the most selective on the sample leading, then the sort, ' +
  'then the ranges). Each index costs every insert and every update of its fields: only the proof on a scratch ' +
  'copy (the confirmation, with the real calls replayed) shows that it pays.';

type Server = HideServer;

function recommendationOf(c: Candidate, redundant: readonly IndexShape[], server: Server): Recommendation {
  if (namesMapKey(c))
    return {
      action: 'Store the map as an array of {k, v} and index those (the attribute pattern)',
      reason: "A map's keys are data: no index can be built per key; one index on the {k, v} array serves them all.",
    };
  const create = { action: `create the index ${formatKey(c.key)}`, reason: PROOF, commands: [createIndexCommand(c)] };
  // Half the advice otherwise: the shorter index it makes a redundant prefix keeps costing every write.
  return withRedundantPrefixes(create, redundant, { db: c.db, coll: c.coll, server });
}

const REGEX_REMEDY: Record<'caseInsensitive' | 'unanchored', Recommendation> = {
  caseInsensitive: {
    action: 'query so that an index can bound the match',
    reason:
      'For a case-insensitive equality, an index with a collation of strength 1 or 2 and the same collation on ' +
      'the query; for a prefix, an anchored case-sensitive regex (^…) on a lower-cased copy of the field; for ' +
      'words or substrings, a text index ($text) or Atlas Search.',
  },
  unanchored: {
    action: 'query so that an index can bound the match',
    reason:
      'For a prefix, anchor the pattern (^…, case-sensitive): an index bounds it; for words or substrings, a ' +
      'text index ($text) or Atlas Search.',
  },
};

interface Judged {
  server: Server;
  c: CollectionSnapshot;
  s: ShapeData;
  advice: Advice;
  options: QueryIndexesOptions;
  report: QueryReport;
}

function base(j: Judged, extra: Record<string, number | string | null> = {}) {
  const { s, c } = j;
  return {
    target: { db: c.db, collection: c.name, path: `shape ${s.id}` },
    // Listed highest impact first among the database's findings of one severity.
    rank: impactOf(s),
    evidence: {
      shapeId: s.id,
      calls: s.calls,
      totalMillis: s.totalMillis,
      p95Millis: s.p95Millis,
      docsExamined: s.docsExamined,
      nreturned: s.nreturned,
      impact: Math.round(impactOf(s)),
      ...extra,
    },
  };
}

function regexFindings(j: Judged, r: UnboundedRegexes): void {
  const words = { shape: j.s.printed, ...callsText(j.s) };
  const at = { ...base(j), severity: 'info' as const };
  if (r.caseInsensitive.length) {
    const data = { ...words, paths: r.caseInsensitive.join(', ') };
    j.report({ ...at, messageId: 'regexCaseInsensitive', data, recommendation: REGEX_REMEDY.caseInsensitive });
  }
  if (r.unanchored.length) {
    const data = { ...words, paths: r.unanchored.join(', ') };
    j.report({ ...at, messageId: 'regexUnanchored', data, recommendation: REGEX_REMEDY.unanchored });
  }
}

/** The one index finding of a shape not served fully: the most specific that applies, if any. */
function indexFinding(j: Judged, judged: Judgement): void {
  const { s, c } = j;
  const candidate = judged.candidate;
  if (!candidate) return;
  const v = judged.verdict;
  const level = v.kind === 'scan' || v.kind === 'regex' ? 'none' : 'partial';
  const partial = v.kind === 'sort' || v.kind === 'partial' ? { index: v.index, gaps: gapWords(v.gaps) } : null;
  const sorts = v.kind === 'sort';
  const unbounded = v.kind === 'partial' && v.unbounded;
  const redundant = redundantPrefixesOf(candidate, c.indexes);
  const recommendation = recommendationOf(candidate, redundant, j.server);
  const words = { shape: s.printed, ...callsText(s), key: formatKey(candidate.key) };
  const proposed = {
    proposed: candidate.name,
    proposedKey: JSON.stringify(candidate.key),
    ...(redundant.length ? { redundantPrefixes: redundant.map((ix) => ix.name).join(', ') } : {}),
  };
  const distinct = distinctEvidence(candidate, dataOf(fieldSelectivity, c));
  const at = { ...base(j, { ...proposed, ...distinct }), recommendation };
  if (s.shape.command === 'lookup' && level === 'none') {
    return j.report({ ...at, messageId: 'lookupUnindexed', data: words });
  }
  const wasted = wastedPerCall(s);
  // Atlas Performance Advisor's line (wastedDocsPerCall): where the source counts the documents examined and
  // returned, a shape that reads no more than that for nothing per call gets no index for its reads. An in-memory
  // sort is another cost (every match sorted, up to the 100 MB sort limit): it is still reported below.
  if (wasted !== null && wasted <= j.options.wastedDocsPerCall && !sorts) return;
  const wrong = v.kind === 'partial' ? v.wrongOrder : null;
  if (wrong) {
    const ix = c.indexes.find((i) => i.name === wrong.index);
    const data = { ...words, index: wrong.index, indexKey: ix ? formatKey(ix.key) : '', gaps: gapWords(wrong.gaps) };
    return j.report({ ...at, messageId: 'wrongOrder', data });
  }
  const read = { examined: s.docsExamined ?? 0, returned: s.nreturned ?? 0 };
  if (wasted !== null && wasted > j.options.wastedDocsPerCall) {
    if (level === 'none') return j.report({ ...at, messageId: 'unindexed', data: { ...words, ...read } });
    if (partial) return j.report({ ...at, messageId: 'partlyIndexed', data: { ...words, ...read, ...partial } });
  }
  const documents = c.stats?.count ?? null;
  const large = documents === null || documents > j.options.wastedDocsPerCall;
  const count = { documents: documents === null ? 'an unknown number of' : documents };
  if (wasted === null && large && level === 'none') {
    return j.report({ ...at, messageId: 'unindexedScan', data: { ...words, ...count } });
  }
  // Without counts: an index whose leading fields the query does not fix is read whole.
  if (wasted === null && large && partial && unbounded) {
    return j.report({ ...at, messageId: 'partlyIndexedScan', data: { ...words, ...count, ...partial } });
  }
  if (sorts || (level === 'none' && s.shape.sort.length > 0)) {
    return j.report({ ...at, messageId: 'inMemorySort', data: words });
  }
}

/**
 * A view has no indexes of its own (SecantusDB accepts createIndex on one; MongoDB refuses it): no index advice,
 * and the finding points at the source collection whose indexes serve the view's pipeline and the query after it.
 */
function viewFinding(j: Judged): void {
  const { s, c } = j;
  const source = c.viewOn ?? 'its source collection';
  const recommendation: Recommendation = {
    action: `look for the index on ${c.viewOn ? codeSpan(c.viewOn) : "the view's source collection"}`,
    reason:
      "The view's pipeline runs first on its source collection: an index there serves the query only where the " +
      "pipeline's leading $match (or $sort) and the query's filter reach the source's fields unchanged. Run the " +
      'query on the source collection to find and prove that index.',
  };
  j.report({
    ...base(j, c.viewOn ? { viewOn: c.viewOn } : {}),
    severity: 'info',
    messageId: 'onView',
    data: { shape: s.printed, ...callsText(s), source },
    recommendation,
  });
}

/** The shape as the one judge sees it (src/workload/judge.ts): one index finding, and the regexes. */
function judge(j: Judged): void {
  if (j.c.type === 'view') return viewFinding(j);
  const judged = judgeShape(j.s.shape, j.c.indexes, j.advice);
  const kind = judged.verdict.kind;
  if (kind === 'served' || kind === 'not-judged') return;
  indexFinding(j, judged);
  regexFindings(j, judged.regex);
}

function checkDatabase(server: Server, db: DatabaseSnapshot, options: QueryIndexesOptions, report: QueryReport): void {
  const data = dataOf(queryWorkload, db);
  if (!data) return;
  const colls = new Map(db.collections.map((c) => [c.name, c]));
  // a view's shapes get no candidate: it has no index of its own (viewFinding)
  const shapes = data.collections.filter((wc) => colls.get(wc.name)?.type !== 'view').flatMap((wc) => wc.shapes);
  const advice = databaseAdvice(db, shapes, options.maxPerCollection);
  const judged = data.collections.flatMap((wc) => {
    const c = colls.get(wc.name);
    return c ? wc.shapes.map((s) => ({ server, c, s, advice, options, report })) : [];
  });
  // Highest impact first: documents read for nothing, else calls × time.
  judged.sort((a, b) => impactOf(b.s) - impactOf(a.s));
  for (const j of judged) judge(j);
}

export default defineRule({
  id: 'query-indexes',
  needs: [queryWorkload, fieldSelectivity],
  scope: 'snapshot',
  meta: {
    description: 'Indexes for the queries actually run (profiler, slow-query log or queries file): ESR candidates',
    docsUrl: ESR,
    docsUrls: { regexCaseInsensitive: REGEX, regexUnanchored: REGEX, onView: VIEWS },
    severity: 'warn',
    messages,
    options: queryIndexesOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report }) {
    for (const db of snapshot.databases) checkDatabase(snapshot.server, db, options, report);
  },
  confirm: {
    describe:
      "the proposed index on a scratch copy with the collection's indexes rebuilt: real calls of the shape " +
      'explained and timed without and with it, unhinted (src/confirm/index-proof.ts)',
    messages: CONFIRM_MESSAGES,
    appliesTo: provesIndex,
    copyDocs: (options) => options.proofDocs,
    run: confirmQueryIndex,
  },
  tables: shapeTables,
});
