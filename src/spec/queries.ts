/**
 * `lint --queries <file>`: each query shape of a queries file against the indexes that would serve it, declared in a
 * spec, recorded in a snapshot, or planned by a live server (the front door explains and hands the plans' stages in).
 * Offline, which index serves a shape is read from the key patterns (src/workload/serve.ts: equality prefix, sort
 * direction, ranges last); a shape no index serves gets the ESR index that would (src/workload/candidates.ts).
 *
 * USER DATA: the queries file holds the application's values. Nothing here prints one: findings name the namespace,
 * the printed shape (`formatShape`: types, never values), the shape id and where the query is written.
 */
import * as path from 'node:path';
import { type AdvisorConfig } from '../core/config';
import { fillTemplate } from '../core/format';
import { QUERY_RULES } from '../core/query-rules';
import type { Finding, Note, Recommendation, Snapshot } from '../core/types';
import { formatKey, type IndexShape } from '../lib/index-keys';
import { type HideServer, withRedundantPrefixes } from '../lib/hide-drop';
import { shellCall } from '../lib/shell';
import type { Locate, SourceLocation } from '../report/catalog';
import { adviseIndexes, type Advice, type Candidate } from '../workload/candidates';
import {
  gapWords,
  type Judgement,
  judgeShape,
  redundantPrefixesOf,
  type UnboundedRegexes,
  type WinningPlan,
} from '../workload/judge';
import type { CommandDocument, WorkloadRecord } from '../workload/record';
import { formatShape, type QueryShape, shapesOf } from '../workload/shape';
import { dbOf, type Spec } from './format';
import { toFinding } from './index';
import { shapeOf } from './static';

/** One distinct query shape of the file: its first entry (where it is written) and how many entries share it. */
export interface QueryEntry {
  shape: QueryShape;
  /** USER DATA: the command (one statement of an update or delete) that gave the shape, for explain only. */
  command: CommandDocument;
  record: WorkloadRecord;
  entries: number;
}

/** Where the indexes a shape is judged against come from (it names them in the messages). */
export type IndexSource = 'declared' | 'snapshot' | 'live';

export type { WinningPlan };

export interface QueriesLintInput {
  /** The queries file as given on the command line. */
  file: string;
  entries: readonly QueryEntry[];
  indexesOf: (db: string, coll: string) => readonly IndexShape[];
  source: IndexSource;
  /** Online: each shape's winning plan by shape id; a shape without is judged offline. */
  plans?: ReadonlyMap<string, WinningPlan>;
  /** Distinct values of a field on the collection's sample (a snapshot's): equality fields ordered as the rule does. */
  selectivity?: (field: string, db: string, coll: string) => number | undefined;
  /** The server the indexes are on (a snapshot's, read live or from a file): whether it can hide an index. */
  server?: HideServer;
  /** The query-indexes rule's maxPerCollection, when the run resolved it. */
  maxPerCollection?: number;
  config: AdvisorConfig;
  /** The source collection when `db.coll` is a view (undefined for a collection): a view gets no index advice. */
  viewOn?: (db: string, coll: string) => string | undefined;
}

export interface QueriesLint {
  findings: Finding[];
  notes: Note[];
  locate: Locate;
}

const isDoc = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An update or a delete as one command per statement (explain takes one); any other command as it is. */
function statementsOf(command: CommandDocument): CommandDocument[] {
  for (const field of ['updates', 'deletes']) {
    const list = command[field];
    if (Array.isArray(list) && list.length > 1) return list.map((s: unknown) => ({ ...command, [field]: [s] }));
  }
  return [command];
}

/** The distinct shapes of the file's records, in the order they are first written. */
export function queryEntries(records: readonly WorkloadRecord[]): QueryEntry[] {
  const byId = new Map<string, QueryEntry>();
  for (const record of records) {
    for (const command of statementsOf(record.command)) {
      for (const shape of shapesOf(command, record.ns.db)) {
        const had = byId.get(shape.id);
        if (had) had.entries++;
        else byId.set(shape.id, { shape, command, record, entries: 1 });
      }
    }
  }
  return [...byId.values()];
}

const DRIVER_FIELDS = new Set([
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'writeConcern',
  'readConcern',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
]);

/** The find that selects a write's documents: the same query for the planner, and a read. */
function selectingFind(coll: string, filter: unknown, from: Record<string, unknown>, one: boolean): CommandDocument {
  const find: Record<string, unknown> = { find: coll, filter: isDoc(filter) ? filter : {} };
  for (const k of ['sort', 'collation', 'hint']) if (from[k] !== undefined) find[k] = from[k];
  return one ? { ...find, limit: 1 } : find;
}

/**
 * The command to explain for an entry (at queryPlanner: nothing executes), or null when its shape is not the
 * command's own (a `$lookup`'s foreign collection). Writes (update, delete, findAndModify) are explained as the find
 * that selects their documents: the planner plans their query alike, the read-only gate explains reads at any
 * verbosity, and SecantusDB plans an explained update without its query (a COLLSCAN whatever the indexes).
 */
export function explainCommandOf(e: QueryEntry): CommandDocument | null {
  if (e.shape.command === 'lookup') return null;
  const inner: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e.command)) if (!k.startsWith('$') && !DRIVER_FIELDS.has(k)) inner[k] = v;
  const coll = e.record.ns.coll;
  let cmd: CommandDocument = inner;
  if (e.record.op === 'findAndModify') cmd = selectingFind(coll, inner.query, inner, true);
  else if (e.record.op === 'update' || e.record.op === 'delete') {
    const list = inner[e.record.op === 'update' ? 'updates' : 'deletes'];
    const stmt = Array.isArray(list) && isDoc(list[0]) ? list[0] : {};
    const one = e.record.op === 'update' ? stmt.multi !== true : stmt.limit === 1;
    cmd = selectingFind(coll, stmt.q, stmt, one);
  } else if (e.record.op === 'aggregate' && !isDoc(inner.cursor)) cmd = { ...inner, cursor: {} };
  return { explain: cmd, verbosity: 'queryPlanner' };
}

/** What a finding was judged from (its `{{basis}}`): the indexes offline, the server's plan online. */
const BASIS: Record<IndexSource | 'plan', string> = {
  declared: 'the indexes the spec declares',
  snapshot: 'the indexes the snapshot records',
  live: 'the live indexes',
  plan: "the server's winning plan",
};

function createIndexCommand(c: Candidate): string {
  return c.collation
    ? shellCall(c.db, c.coll, 'createIndex', c.key, { collation: c.collation })
    : shellCall(c.db, c.coll, 'createIndex', c.key);
}

function esrRecommendation(
  c: Candidate | undefined,
  source: IndexSource,
  indexes: readonly IndexShape[],
  hideServer: HideServer | undefined,
): Recommendation | undefined {
  if (!c) return undefined;
  const where = source === 'declared' ? 'Declare it in the spec' : 'Create it';
  const create = {
    action: `${where}: the index ${formatKey(c.key)} on ${c.db}.${c.coll}`,
    reason:
      'Equality fields first, then the sort, then the ranges (ESR): one index bounds the filter and gives the sort. ' +
      'Time it on a copy before production: every index costs each insert and each update of its fields.',
    commands: [createIndexCommand(c)],
  };
  // The index it makes a redundant prefix is half the advice: said in the same finding, with the rule's builder.
  const server = source === 'declared' ? undefined : hideServer;
  return withRedundantPrefixes(create, redundantPrefixesOf(c, indexes), { db: c.db, coll: c.coll, server });
}

const REGEX_REMEDY: Record<'caseInsensitive' | 'unanchored', Recommendation> = {
  caseInsensitive: {
    action: 'Query so that an index can bound the match',
    reason:
      'For a case-insensitive equality, an index with a collation of strength 1 or 2, and the same collation on the ' +
      'query; for a prefix, an anchored case-sensitive regex (^…) on a lower-cased copy of the field; for words or ' +
      'substrings, a text index ($text) or Atlas Search.',
  },
  unanchored: {
    action: 'Query so that an index can bound the match',
    reason:
      'For a prefix, anchor the pattern (^…, case-sensitive): an index bounds it; for words or substrings, a text ' +
      'index ($text) or Atlas Search.',
  },
};

interface Context {
  input: QueriesLintInput;
  advice: Advice;
  name: string;
  out: Finding[];
}

type QueryRuleId = (typeof QUERY_RULES)[number]['id'];

function report(
  ctx: Context,
  e: QueryEntry,
  check: { ruleId: QueryRuleId; messageId: string; data?: Record<string, string> },
  recommendation?: Recommendation,
): void {
  const meta = QUERY_RULES.find((r) => r.id === check.ruleId);
  const template = (meta?.messages as Record<string, string> | undefined)?.[check.messageId] ?? '';
  const at = e.record.at;
  const where = at ? `${at.file}:${at.line}` : `${ctx.name}:${e.record.entryLine ?? 1}`;
  const data = { shape: formatShape(e.shape), where, ...check.data };
  const finding = toFinding(
    {
      ruleId: check.ruleId,
      messageId: check.messageId,
      target: { db: e.shape.db, collection: e.shape.coll, path: `shape ${e.shape.id}` },
      message: fillTemplate(template, data),
      evidence: { shapeId: e.shape.id, entries: e.entries, ...(at ? {} : { line: e.record.entryLine ?? 1 }) },
      ...(recommendation ? { recommendation } : {}),
    },
    ctx.input.config,
  );
  if (finding) ctx.out.push(finding);
}

function regexFindings(ctx: Context, e: QueryEntry, r: UnboundedRegexes): void {
  for (const kind of ['caseInsensitive', 'unanchored'] as const) {
    if (r[kind].length === 0) continue;
    const data = { path: r[kind].join(', ') };
    report(ctx, e, { ruleId: 'query-unbounded-regex', messageId: kind, data }, REGEX_REMEDY[kind]);
  }
}

/** Where an index exists that the plan passed over: why the planner may, and how to see it. */
const PLANNER: Recommendation = {
  action: 'Find out why the planner passes over the index that serves the query',
  reason:
    "The planner's trial can tie on a small or skewed collection and keep another plan; explain the query with " +
    "verbosity 'allPlansExecution' on production data to see the candidates, and clear the plan cache after a new " +
    'index. A hint forces the index, at the price of the planner never choosing better.',
};

/** The findings on one shape from its judgement: one for the index, and the regexes (alone when only they bound it). */
function shapeFindings(ctx: Context, e: QueryEntry, j: Judgement, indexes: readonly IndexShape[]): void {
  const { source } = ctx.input;
  const basis = j.basis === 'plan' ? BASIS.plan : BASIS[source];
  const rec = esrRecommendation(j.candidate, source, indexes, ctx.input.server) ?? (j.plan ? PLANNER : undefined);
  const v = j.verdict;
  if (j.plan?.did === 'scan') {
    const data = { index: j.plan.couldServe, basis };
    report(ctx, e, { ruleId: 'query-collection-scan', messageId: 'scanPlanned', data }, rec);
  } else if (j.plan?.did === 'sort') {
    const data = { index: j.plan.chose.join(', '), could: j.plan.couldServe, basis };
    report(ctx, e, { ruleId: 'query-in-memory-sort', messageId: 'sortPlanned', data }, rec);
  } else if (v.kind === 'scan') {
    report(ctx, e, { ruleId: 'query-collection-scan', messageId: 'scan', data: { basis } }, rec);
  } else if (v.kind === 'sort') {
    report(ctx, e, { ruleId: 'query-in-memory-sort', messageId: 'sort', data: { index: v.index, basis } }, rec);
  } else if (v.kind === 'partial') {
    const gaps = gapWords(v.wrongOrder?.gaps ?? v.gaps);
    const index = v.wrongOrder?.index ?? v.index;
    if (gaps) report(ctx, e, { ruleId: 'query-partial-index', messageId: 'partial', data: { index, gaps } }, rec);
  }
  regexFindings(ctx, e, j.regex);
}

function displayName(file: string): string {
  const rel = path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/');
  return rel.startsWith('..') ? path.resolve(file) : rel;
}

function locator(entries: readonly QueryEntry[], uri: string): Locate {
  const key = (db: string, coll: string | undefined, p: string | undefined): string =>
    `${db}\0${coll ?? ''}\0${p ?? ''}`;
  const where = new Map<string, SourceLocation>();
  for (const e of entries) {
    const at = e.record.at;
    const loc = at ? { uri: at.file, line: at.line } : { uri, line: e.record.entryLine ?? 1 };
    where.set(key(e.shape.db, e.shape.coll, `shape ${e.shape.id}`), loc);
  }
  return (f) =>
    f.ruleId.startsWith('query-') ? (where.get(key(f.target.db, f.target.collection, f.target.path)) ?? null) : null;
}

/** Checks every shape of a queries file; online when `plans` holds the server's winning plans. */
export function lintQueries(input: QueriesLintInput): QueriesLint {
  const name = displayName(input.file);
  const onView = (e: QueryEntry): string | undefined => input.viewOn?.(e.shape.db, e.shape.coll);
  const shapes = input.entries.filter((e) => onView(e) === undefined).map((e) => e.shape);
  // The same advice as the query-indexes rule: equality fields most selective first where the sample counted them,
  // shapes weighted by their entries, the same cap per collection.
  const advice = adviseIndexes(shapes, input.indexesOf, {
    weight: (id) => input.entries.find((e) => e.shape.id === id)?.entries ?? 1,
    ...(input.selectivity ? { selectivity: input.selectivity } : {}),
    ...(input.maxPerCollection ? { maxPerCollection: input.maxPerCollection } : {}),
  });
  const ctx: Context = { input, advice, name, out: [] };
  const notes: Note[] = [];
  const views = new Set<string>();
  for (const e of input.entries) {
    const source = onView(e);
    if (source !== undefined) {
      views.add(JSON.stringify([e.shape.db, e.shape.coll, source]));
      continue;
    }
    const indexes = input.indexesOf(e.shape.db, e.shape.coll);
    const j = judgeShape(e.shape, indexes, advice, input.plans?.get(e.shape.id));
    if (j.verdict.kind !== 'not-judged') shapeFindings(ctx, e, j, indexes);
  }
  for (const v of [...views].sort()) {
    const [db = '', collection = '', source = ''] = JSON.parse(v) as string[];
    notes.push({
      level: 'info',
      target: { db, collection },
      message:
        `Queries of ${name} on this view were not judged: MongoDB supports no index operations on a view ` +
        `(https://www.mongodb.com/docs/manual/core/views/#index-use-and-sort-operations), so no index is ` +
        `proposed for it; the view's pipeline runs on ${JSON.stringify(source)}, whose indexes serve them.`,
    });
  }
  const textOrGeo = advice.skipped.filter((s) => s.reason === 'text-or-geo').length;
  if (textOrGeo) {
    notes.push({
      level: 'info',
      message:
        `${textOrGeo} query shape${textOrGeo === 1 ? '' : 's'} of ${name} use $text, a geo operator or a search ` +
        `stage, which another kind of index answers: not judged.`,
    });
  }
  return { findings: ctx.out, notes, locate: locator(input.entries, name) };
}

/** The `_id` index every collection has, declared or not. */
const ID_INDEX: IndexShape = { name: '_id_', key: { _id: 1 }, unique: true };

export interface IndexesOf {
  indexesOf: (db: string, coll: string) => readonly IndexShape[];
  /** A view's source collection (a snapshot knows its views; a spec declares none). */
  viewOn?: (db: string, coll: string) => string | undefined;
  /** Collections the queries name that the spec or snapshot does not hold: judged with only the `_id` index. */
  unknown: (entries: readonly QueryEntry[]) => Note[];
}

function indexSource(known: Map<string, readonly IndexShape[]>, what: string): IndexesOf {
  const key = (db: string, coll: string): string => `${db}\0${coll}`;
  return {
    indexesOf: (db, coll) => known.get(key(db, coll)) ?? [ID_INDEX],
    unknown: (entries) => {
      const missing = new Set<string>();
      for (const e of entries)
        if (!known.has(key(e.shape.db, e.shape.coll))) missing.add(`${e.shape.db}.${e.shape.coll}`);
      return [...missing].sort().map((ns) => {
        const [db = '', ...rest] = ns.split('.');
        return {
          level: 'info' as const,
          target: { db, collection: rest.join('.') },
          message: `The queries name a collection ${what} does not hold: it was judged with only its _id index.`,
        };
      });
    },
  };
}

/** The indexes a spec declares, with the `_id` index every collection has. */
export function declaredIndexes(spec: Spec): IndexesOf {
  const known = new Map<string, readonly IndexShape[]>();
  for (const c of spec.collections)
    known.set(`${dbOf(c, spec)}\0${c.name}`, [ID_INDEX, ...(c.indexes ?? []).map(shapeOf)]);
  return indexSource(known, 'the spec');
}

/** The indexes of a snapshot (from a file, or read live). */
export function snapshotIndexes(snapshot: Snapshot): IndexesOf {
  const known = new Map<string, readonly IndexShape[]>();
  const views = new Map<string, string>();
  for (const d of snapshot.databases)
    for (const c of d.collections) {
      known.set(`${d.name}\0${c.name}`, c.indexes);
      if (c.type === 'view') views.set(`${d.name}\0${c.name}`, c.viewOn ?? 'its source collection');
    }
  return { ...indexSource(known, 'the snapshot'), viewOn: (db, coll) => views.get(`${db}\0${coll}`) };
}
