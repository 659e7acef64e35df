import { PROOF_DOCS } from '../../src/confirm/index-proof';
import { dataOf } from '../../src/core/collector';
import { formatBytes, formatNumber } from '../../src/core/format';
import { COLLSTATS_ZERO_SIZES, gapOf, NO_INDEXSTATS, noWiredTiger } from '../../src/core/gaps';
import { defineRule, type NoteFn, type Report, sentence } from '../../src/core/rule';
import type {
  CollectionSnapshot,
  DatabaseSnapshot,
  Finding,
  Recommendation,
  Snapshot,
  Target,
} from '../../src/core/types';
import { ROUTER_HAS_NO_STORAGE, type ServerStatusData, isRouter, serverStatus } from '../../src/collect/server-status';
import { queryWorkload, type ShapeData, type WorkloadData } from '../../src/collect/workload';
import {
  type Coverage,
  type IndexUsage,
  claimOf,
  coverage,
  formatKey,
  indexBytes,
  indexUsage,
  keptReason,
  prefixPairs,
  sourceText,
  workloadShapes,
  workloadVerdict,
} from './analyze';
import { isIdIndex } from '../../src/lib/index-keys';
import { canUseIndex } from '../../src/workload/judge';
import { codeSpan, shellCall } from '../../src/lib/shell';
import { type IndexUsageData, accessesOf, indexUsageCollector } from './collect';
import { CONFIRM_MESSAGES, confirmIndexUsage } from './confirm';
import { hideFirst, hideThenDrop, hideThenDropAction } from '../../src/lib/hide-drop';
import { type IndexUsageOptions, indexUsageOptionsSchema } from './options';

export { indexUsageOptionsSchema, type IndexUsageOptions } from './options';

/*
 * Messages. Each template holds its words; findings give values only (names, keys, counts, sizes, durations). Whose
 * counters an unused index was judged on (a standalone, every member, some, the connected one only, the shard
 * primaries) and whether it recorded no use at all or at most `unusedMaxOps` are variants, not clauses spliced in.
 */
const NO_USE = 'Index `{{index}}` {{key}} recorded no use in the last {{days}}';
const FEW_USES = sentence(
  'Index `{{index}}` {{key}} recorded no more use than unusedMaxOps allows ({{ops}}, at most {{maxOps}}) in ',
  'the last {{days}}',
);
const TAKES = '; it takes space (index size: {{size}}) and a write on every insert.';
const OVER_MEMBERS = ', summed over {{read}} of {{members}} members';
const OVER_ONLY = ', summed over the only member listed ({{host}})';
const ON_CONNECTED = ', read on the connected member only';
const OVER_SHARDS = ', summed over the shard primaries mongos reached ({{primaries}})';
const NOT_READ = ' Not read: {{notRead}}; an index used only there would look unused here.';
const CONNECTED_ONLY = ' The other members were not read ({{why}}); an index used only there would look unused here.';
const SHARD_SECONDARIES =
  ' Shard secondaries are not read through mongos; an index used only by secondary reads would look unused here.';
const BY_WORKLOAD_TAIL = sentence(
  ' ({{calls}} from {{source}}, which holds every operation); it takes space (index size: {{size}}) and a write on ',
  'every insert.',
);
const CACHE_TAIL = 'past {{limit}}, documents compete with indexes for the cache and reads start going to disk.';

const messages = {
  unused: `${NO_USE}${TAKES}`,
  unusedOnMembers: `${NO_USE}${OVER_MEMBERS}${TAKES}`,
  unusedOnOnlyMember: `${NO_USE}${OVER_ONLY}${TAKES}`,
  unusedMembersNotRead: `${NO_USE}${OVER_MEMBERS}${TAKES}${NOT_READ}`,
  unusedConnectedOnly: `${NO_USE}${ON_CONNECTED}${TAKES}${CONNECTED_ONLY}`,
  unusedSharded: `${NO_USE}${OVER_SHARDS}${TAKES}${SHARD_SECONDARIES}`,
  rarelyUsed: `${FEW_USES}${TAKES}`,
  rarelyUsedOnMembers: `${FEW_USES}${OVER_MEMBERS}${TAKES}`,
  rarelyUsedOnOnlyMember: `${FEW_USES}${OVER_ONLY}${TAKES}`,
  rarelyUsedMembersNotRead: `${FEW_USES}${OVER_MEMBERS}${TAKES}${NOT_READ}`,
  rarelyUsedConnectedOnly: `${FEW_USES}${ON_CONNECTED}${TAKES}${CONNECTED_ONLY}`,
  rarelyUsedSharded: `${FEW_USES}${OVER_SHARDS}${TAKES}${SHARD_SECONDARIES}`,
  unusedByWorkload: sentence(
    'Index `{{index}}` {{key}} can serve none of the {{shapes}} query shapes the workload ran on this collection',
    BY_WORKLOAD_TAIL,
  ),
  unusedByWorkloadOne: sentence(
    'Index `{{index}}` {{key}} cannot serve the one query shape the workload ran on this collection',
    BY_WORKLOAD_TAIL,
  ),
  kept: 'No recorded use, but not called unused: {{list}}.',
  keptByWorkload: 'No query shape of the workload can use these, but they are not called unused: {{list}}.',
  tooRecent: sentence(
    'Too early to call {{list}} unused: no use recorded, but the counters on {{host}} started {{age}} ago, ',
    'within the {{warmup}}-day warm-up ($indexStats restarts with the server and when an index is built).',
  ),
  tooRecentUnnamed: sentence(
    'Too early to call {{list}} unused: no use recorded, but the youngest counters started {{age}} ago, ',
    'within the {{warmup}}-day warm-up ($indexStats restarts with the server and when an index is built).',
  ),
  redundant: sentence(
    'Index `{{index}}` {{key}} is a prefix of `{{longer}}` {{longerKey}} with the same options: queries on ',
    '{{fields}} can use `{{longer}}`. Dropping it saves {{size}} and one index write per insert.',
  ),
  redundantUnsized: sentence(
    'Index `{{index}}` {{key}} is a prefix of `{{longer}}` {{longerKey}} with the same options: queries on ',
    '{{fields}} can use `{{longer}}`. Dropping it saves its space and one index write per insert.',
  ),
  notRedundant: 'Index `{{index}}` {{key}} is a prefix of `{{longer}}` {{longerKey}} but not redundant: {{why}}.',
  // the same key twice: "duplicates", not "is a prefix of"
  duplicate: sentence(
    'Index `{{index}}` {{key}} duplicates `{{longer}}` {{longerKey}} with the same options: queries on ',
    '{{fields}} can use `{{longer}}`. Dropping it saves {{size}} and one index write per insert.',
  ),
  duplicateUnsized: sentence(
    'Index `{{index}}` {{key}} duplicates `{{longer}}` {{longerKey}} with the same options: queries on ',
    '{{fields}} can use `{{longer}}`. Dropping it saves its space and one index write per insert.',
  ),
  notRedundantSameKey:
    'Index `{{index}}` {{key}} has the key of `{{longer}}` {{longerKey}} but is not redundant: {{why}}.',
  tooMany: sentence(
    '{{count}} indexes on this collection, more than {{limit}} (the {{source}} line): every insert writes ',
    'an entry in each, and each is its own WiredTiger table (a file and a data handle).',
  ),
  indexesVsCache: sentence(
    `Indexes of the collections checked in this database take {{size}}, {{share}} of the WiredTiger cache `,
    `({{cache}}); ${CACHE_TAIL}`,
  ),
  indexesVsCacheAtLeast: sentence(
    `Indexes of the collections checked in this database take at least {{size}}, at least {{share}} of the `,
    `WiredTiger cache ({{cache}}), with the index sizes of {{unsized}} of them unknown; ${CACHE_TAIL}`,
  ),
  indexesVsCacheDatabases: sentence(
    `Indexes of the collections checked in {{databases}} databases take {{size}} together, {{share}} of the `,
    `WiredTiger cache ({{cache}}) they share, the most in \`{{largest}}\` ({{largestSize}}); ${CACHE_TAIL}`,
  ),
  indexesVsCacheDatabasesAtLeast: sentence(
    `Indexes of the collections checked in {{databases}} databases take at least {{size}} together, at least `,
    `{{share}} of the WiredTiger cache ({{cache}}) they share, the most in \`{{largest}}\` ({{largestSize}}), `,
    `with the index sizes of {{unsized}} of them unknown; ${CACHE_TAIL}`,
  ),
} as const;

type IndexUsageReport = Report<typeof messages>;

const UNNECESSARY_INDEXES =
  'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unnecessary-indexes/';
const COMPOUND_PREFIXES = 'https://www.mongodb.com/docs/manual/core/indexes/index-types/index-compound/';
const INDEXES_IN_RAM = 'https://www.mongodb.com/docs/manual/tutorial/ensure-indexes-fit-ram/';

const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;
/** A duration, for "in the last …" and "… ago": hours below a day, whole days above. */
const days = (d: number): string => (d < 1 ? plural(Math.round(d * 24), 'hour') : plural(Math.floor(d), 'day'));
const names = (list: readonly { index: { name: string } }[]): string =>
  list.map((u) => codeSpan(u.index.name)).join(', ');

interface UnusedBase {
  severity: Finding['severity'];
  target: Target;
  evidence: Finding['evidence'];
  recommendation: Recommendation;
}

/** One unused (or, with unusedMaxOps, rarely used) index: the variant for whose counters were read. */
function reportUnused(
  report: IndexUsageReport,
  base: UnusedBase,
  d: { index: string; key: string; days: string; size: string },
  ops: number,
  maxOps: number,
  cov: Coverage,
): void {
  const few = { ...d, ops, maxOps };
  const none = ops === 0;
  switch (cov.kind) {
    case 'standalone':
      if (none) report({ ...base, messageId: 'unused', data: d });
      else report({ ...base, messageId: 'rarelyUsed', data: few });
      return;
    case 'members': {
      const m = { read: cov.read, members: cov.members };
      if (none) report({ ...base, messageId: 'unusedOnMembers', data: { ...d, ...m } });
      else report({ ...base, messageId: 'rarelyUsedOnMembers', data: { ...few, ...m } });
      return;
    }
    case 'onlyMember':
      if (none) report({ ...base, messageId: 'unusedOnOnlyMember', data: { ...d, host: cov.host } });
      else report({ ...base, messageId: 'rarelyUsedOnOnlyMember', data: { ...few, host: cov.host } });
      return;
    case 'membersNotRead': {
      const m = { read: cov.read, members: cov.members, notRead: cov.notRead };
      if (none) report({ ...base, messageId: 'unusedMembersNotRead', data: { ...d, ...m } });
      else report({ ...base, messageId: 'rarelyUsedMembersNotRead', data: { ...few, ...m } });
      return;
    }
    case 'connectedOnly':
      if (none) report({ ...base, messageId: 'unusedConnectedOnly', data: { ...d, why: cov.why } });
      else report({ ...base, messageId: 'rarelyUsedConnectedOnly', data: { ...few, why: cov.why } });
      return;
    case 'sharded':
      if (none) report({ ...base, messageId: 'unusedSharded', data: { ...d, primaries: cov.primaries } });
      else report({ ...base, messageId: 'rarelyUsedSharded', data: { ...few, primaries: cov.primaries } });
      return;
  }
}

/** What checkUsage could not judge: indexes whose counters carry no start date, and indexes $indexStats gave no row
 * for. */
interface NotJudged {
  unreadable: IndexUsage[];
  noRows: string[];
  /** Indexes reported unused (or rarely used). */
  unused: number;
}

function checkUsage(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  data: IndexUsageData,
  o: IndexUsageOptions,
  report: IndexUsageReport,
  shapes: readonly ShapeData[],
): NotJudged {
  const collectedAt = Date.parse(snapshot.collectedAt);
  const usage: IndexUsage[] = c.indexes
    .filter((i) => !isIdIndex(c, i))
    .map((i) => indexUsage(i, accessesOf(data, i.name), collectedAt, o));
  const target = { db: c.db, collection: c.name };
  const unused = usage.filter((x) => x.status === 'unused');
  for (const u of unused) reportUnusedIndex(snapshot, c, data, o, report, u, shapes);
  const kept = usage.filter((x) => x.status === 'kept');
  if (kept.length) {
    report({
      messageId: 'kept',
      severity: 'info',
      target,
      data: { list: kept.map((u) => `${codeSpan(u.index.name)} (${u.keptReason ?? ''})`).join('; ') },
      evidence: { indexes: kept.length },
    });
  }
  reportTooRecent(usage, o, target, report);
  return {
    unreadable: usage.filter((x) => x.status === 'unreadable'),
    noRows: usage.filter((x) => x.status === 'unknown').map((u) => u.index.name),
    unused: unused.length,
  };
}

/** An index no query used over the window: hide it, then drop it (warn only when every member was read). */
function reportUnusedIndex(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  data: IndexUsageData,
  o: IndexUsageOptions,
  report: IndexUsageReport,
  u: IndexUsage,
  shapes: readonly ShapeData[],
): void {
  const target = { db: c.db, collection: c.name };
  const rows = accessesOf(data, u.index.name) ?? [];
  const cov = coverage(snapshot, data.members, rows.length);
  const wl = workloadSaid(shapes, u.index);
  reportUnused(
    report,
    {
      severity: cov.complete ? 'warn' : 'info',
      target: { ...target, index: u.index.name },
      evidence: {
        ops: u.ops,
        windowDays: u.windowDays === null ? null : Math.floor(u.windowDays),
        membersRead: rows.length,
        allMembersRead: cov.complete,
        sizeBytes: u.index.sizeBytes,
        key: formatKey(u.index.key),
        ...wl.evidence,
      },
      recommendation: {
        action: hideThenDropAction(snapshot.server),
        reason:
          `An unused index still takes a write on every insert (and on updates to its fields), disk and ` +
          `cache. ${wl.sentence}${hideFirst(snapshot.server, c.db, c.name, u.index.name)} Drop it after a full ` +
          `business cycle${cov.complete ? '' : ', and only after checking the members not read'}.`,
        ...hideThenDrop(snapshot.server, c.db, c.name, u.index.name),
      },
    },
    {
      index: u.index.name,
      key: formatKey(u.index.key),
      days: days(u.windowDays ?? 0),
      size: u.index.sizeBytes === null ? 'unknown' : formatBytes(u.index.sizeBytes),
    },
    u.ops,
    o.unusedMaxOps,
    cov,
  );
}

/**
 * What the workload says of an index $indexStats calls unused: how many of its shapes on the collection can use it
 * (evidence), and a sentence for the recommendation; nothing without shapes there.
 */
function workloadSaid(
  shapes: readonly ShapeData[],
  ix: CollectionSnapshot['indexes'][number],
): { evidence: Record<string, number>; sentence: string } {
  if (shapes.length === 0) return { evidence: {}, sentence: '' };
  const using = shapes.filter((s) => canUseIndex(s.shape, ix));
  const evidence = { workloadShapes: shapes.length, workloadShapesUsing: using.length };
  if (using.length === 0)
    return {
      evidence,
      sentence: `None of the ${plural(shapes.length, 'query shape')} the workload ran on this collection can use it. `,
    };
  const list = using
    .slice(0, 3)
    .map((s) => s.printed)
    .join('; ');
  return {
    evidence,
    sentence:
      `Yet ${formatNumber(using.length)} of the ${plural(shapes.length, 'query shape')} the workload ran on this ` +
      `collection can use it (${list}${using.length > 3 ? '; …' : ''}): the confirmation replays them without it. `,
  };
}

/** Secondary indexes $indexStats gave no verdict on (no start date, no row, or not read): the workload's to judge. */
function notJudgedByStats(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  data: IndexUsageData | undefined,
  o: IndexUsageOptions,
): CollectionSnapshot['indexes'] {
  const secondary = c.indexes.filter((i) => !isIdIndex(c, i));
  if (!data) return secondary;
  const collectedAt = Date.parse(snapshot.collectedAt);
  return secondary.filter((i) => {
    const status = indexUsage(i, accessesOf(data, i.name), collectedAt, o).status;
    return status === 'unreadable' || status === 'unknown';
  });
}

/**
 * The profiler is per member: the primary's system.profile (the one read) holds no read sent to a secondary, so on a
 * replica set of several members (or through mongos) it cannot show an index unused, whatever its level. A one-member
 * set (the member list the index-usage collector read) has nobody else to send reads to.
 */
function completenessOf(
  snapshot: Snapshot,
  wl: WorkloadData,
  data: IndexUsageData | undefined,
): { complete: boolean; completeness: string } {
  const topology = snapshot.server.topology;
  if (!wl.complete || !wl.sources.includes('profiler') || (topology !== 'replicaSet' && topology !== 'sharded'))
    return wl;
  const m = data?.members;
  if (topology === 'replicaSet' && m && m.listError === undefined && m.read.length + m.notRead.length === 1) return wl;
  return {
    complete: false,
    completeness:
      "the profiler is per member: the primary's system.profile holds no read sent to a secondary (give a log or " +
      'queries file of every member with --workload-complete)',
  };
}

/**
 * The workload's verdict on the indexes $indexStats could not judge: from a complete workload, an index no shape of
 * the collection can use is reported (and those kept for a reason are listed); from an incomplete one, nothing: their
 * names are returned for the one line that says why.
 */
function checkWorkload(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  data: IndexUsageData | undefined,
  wl: WorkloadData | undefined,
  o: IndexUsageOptions,
  report: IndexUsageReport,
): { names: string[]; why: string; judged: string[] } {
  const shapes = workloadShapes(wl, c.name);
  if (!wl || shapes.length === 0) return { names: [], why: '', judged: [] };
  const verdicts = notJudgedByStats(snapshot, c, data, o).map((ix) => ({ ix, v: workloadVerdict(ix, shapes) }));
  const unused = verdicts.filter((x) => x.v === 'unused').map((x) => x.ix);
  const view = completenessOf(snapshot, wl, data);
  if (!view.complete) return { names: unused.map((ix) => ix.name), why: view.completeness, judged: [] };
  for (const ix of unused) reportUnusedByWorkload(snapshot, c, ix, shapes, wl, report);
  const kept = verdicts.filter((x) => x.v === 'kept');
  if (kept.length)
    report({
      messageId: 'keptByWorkload',
      severity: 'info',
      target: { db: c.db, collection: c.name },
      data: { list: kept.map((x) => `${codeSpan(x.ix.name)} (${keptReason(x.ix) ?? ''})`).join('; ') },
      evidence: { indexes: kept.length },
    });
  // What a complete workload decided (a shape uses it, kept for a reason, unused): judged, not "not judged".
  return { names: [], why: '', judged: verdicts.filter((x) => x.v !== 'special').map((x) => x.ix.name) };
}

/** An index no shape of a complete workload can use: hide it, then drop it. */
function reportUnusedByWorkload(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  ix: CollectionSnapshot['indexes'][number],
  shapes: readonly ShapeData[],
  wl: WorkloadData,
  report: IndexUsageReport,
): void {
  const calls = shapes.reduce((t, s) => t + s.calls, 0);
  const base = {
    severity: 'warn' as const,
    target: { db: c.db, collection: c.name, index: ix.name },
    evidence: {
      key: formatKey(ix.key),
      sizeBytes: ix.sizeBytes,
      workloadShapes: shapes.length,
      workloadShapesUsing: 0,
      workloadCalls: calls,
      workloadSources: sourceText(wl),
    },
    recommendation: {
      action: hideThenDropAction(snapshot.server),
      reason:
        `No query the workload ran on this collection can use it, and the workload holds every operation ` +
        `(${wl.completeness}). ${hideFirst(snapshot.server, c.db, c.name, ix.name)} The workload covers only the ` +
        `time it was recorded: drop it after a full business cycle in which nothing slowed down.`,
      ...hideThenDrop(snapshot.server, c.db, c.name, ix.name),
    },
  };
  const d = {
    index: ix.name,
    key: formatKey(ix.key),
    calls: plural(calls, 'call'),
    source: sourceText(wl),
    size: ix.sizeBytes === null ? 'unknown' : formatBytes(ix.sizeBytes),
  };
  if (shapes.length === 1) report({ ...base, messageId: 'unusedByWorkloadOne', data: d });
  else report({ ...base, messageId: 'unusedByWorkload', data: { ...d, shapes: formatNumber(shapes.length) } });
}

/** One line per database: the workload is incomplete, so the indexes only it could judge were not called unused. */
function noteIncompleteWorkload(
  wl: WorkloadData | undefined,
  gaps: readonly { coll: string; names: string[]; why: string }[],
  note: NoteFn,
  db: string,
): void {
  const first = gaps[0];
  if (!wl || !first) return;
  const list =
    gaps
      .slice(0, 5)
      .map((g) => `${g.coll}: ${g.names.map((n) => codeSpan(n)).join(', ')}`)
      .join('; ') + (gaps.length > 5 ? '; …' : '');
  note(
    `the workload (${sourceText(wl)}) cannot call an index unused: ${first.why}. No query shape of it can ` +
      `use ${list}, but they are not called unused. ` +
      `A workload of every operation can: the profiler at level 2 for a while (db.setProfilingLevel(2), where ` +
      `its overhead is acceptable), or a log written with slowms -1 or a queries file of every query, given ` +
      `with --workload-complete.`,
    { db },
    'info',
  );
}

/** Indexes too young to judge, in one line that names the youngest's age (and its host, when known). */
function reportTooRecent(
  usage: IndexUsage[],
  o: IndexUsageOptions,
  target: { db: string; collection: string },
  report: IndexUsageReport,
): void {
  const early = usage.filter((x) => x.status === 'tooRecent');
  const youngest = early.reduce<IndexUsage | null>(
    (a, b) => (a !== null && (a.windowDays ?? 0) <= (b.windowDays ?? 0) ? a : b),
    null,
  );
  if (youngest) {
    const evidence = {
      indexes: early.length,
      youngestDays: youngest.windowDays === null ? null : Math.round(youngest.windowDays * 10) / 10,
      warmupDays: o.warmupDays,
    };
    const data = { list: names(early), age: days(youngest.windowDays ?? 0), warmup: o.warmupDays };
    if (youngest.youngestHost)
      report({
        messageId: 'tooRecent',
        severity: 'info',
        target,
        data: { ...data, host: youngest.youngestHost },
        evidence,
      });
    else report({ messageId: 'tooRecentUnnamed', severity: 'info', target, data, evidence });
  }
}

/** One line for every index whose $indexStats counters carry no start date: not judged, and why. */
function noteUnreadable(
  unreadable: readonly { c: CollectionSnapshot; u: IndexUsage }[],
  note: NoteFn,
  db: string,
): void {
  if (unreadable.length === 0) return;
  const byColl = new Map<string, string[]>();
  for (const { c, u } of unreadable) byColl.set(c.name, [...(byColl.get(c.name) ?? []), codeSpan(u.index.name)]);
  const list =
    [...byColl]
      .slice(0, 5)
      .map(([coll, ixs]) => `${coll}: ${ixs.join(', ')}`)
      .join('; ') + (byColl.size > 5 ? '; …' : '');
  const gave = new Map<string, string>();
  for (const { u } of unreadable) {
    for (const m of u.noSince ?? [])
      gave.set(
        m.host || 'a member',
        m.since === 'undefined'
          ? 'no accesses.since'
          : m.since === 'null'
            ? 'accesses.since null'
            : `an accesses.since of BSON type ${m.since}`,
      );
  }
  const hosts = [...gave].map(([h, v]) => `${h} gave ${v}`).join('; ');
  const maxOps = Math.max(...unreadable.map(({ u }) => u.ops));
  note(
    `index use was not judged for ${plural(unreadable.length, 'index', 'indexes')} ` +
      `with ${maxOps === 0 ? 'no recorded use' : `at most ${plural(maxOps, 'recorded use')}`} (${list}): ` +
      `$indexStats on ${hosts}, where MongoDB gives the date its counters started. Without it accesses.ops is ` +
      `not a count over any known time, so the counters call none of them unused. Redundant indexes and index ` +
      `counts were still checked.`,
    { db },
  );
}

/**
 * Never a silent pass: one line per database naming the collections whose index use was not read (the collector's
 * note says why) and the indexes $indexStats gave no row for.
 */
function noteNotChecked(
  snapshot: Snapshot,
  db: string,
  missing: readonly CollectionSnapshot[],
  noRows: readonly { c: CollectionSnapshot; names: string[] }[],
  note: NoteFn,
): void {
  const parts: string[] = [];
  const list = `${missing
    .slice(0, 5)
    .map((c) => c.name)
    .join(', ')}${missing.length > 5 ? ', …' : ''}`;
  if (missing.length) {
    const said = (snapshot.collectors.find((r) => r.id === indexUsageCollector.id)?.couldNot.length ?? 0) > 0;
    const why = said
      ? '$indexStats could not be read there (its own line under "Could not check" says why)'
      : 'no $indexStats was recorded there';
    parts.push(`on ${plural(missing.length, 'collection')} (${list}): ${why}`);
  }
  const n = noRows.reduce((t, x) => t + x.names.length, 0);
  if (n) {
    const list =
      noRows
        .slice(0, 5)
        .map(({ c, names: ixs }) => `${c.name}: ${ixs.map((x) => codeSpan(x)).join(', ')}`)
        .join('; ') + (noRows.length > 5 ? '; …' : '');
    parts.push(`for ${plural(n, 'index', 'indexes')} that $indexStats gave no row for (${list})`);
  }
  if (parts.length === 0) return;
  // only collections left unread, $indexStats not proven: the collector's gap when it says the server lacks it
  const lacks = n === 0 && snapshot.server.capabilities.indexStats.supported !== true;
  const on = `on ${plural(missing.length, 'collection')} (${list})`;
  const effect = `unused indexes ${on}; redundant indexes, counts and sizes were checked`;
  const gap = lacks ? gapOf(NO_INDEXSTATS, effect) : undefined;
  note(
    `index use was not checked ${parts.join('; and ')}. Redundant indexes, index counts and sizes were still checked.`,
    { db },
    'skipped',
    gap,
  );
}

function checkPrefixes(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  data: IndexUsageData | undefined,
  report: IndexUsageReport,
): void {
  for (const p of prefixPairs(c)) {
    const target = { db: c.db, collection: c.name, index: p.shorter.name };
    const pair = {
      index: p.shorter.name,
      key: formatKey(p.shorter.key),
      longer: p.longer.name,
      longerKey: formatKey(p.longer.key),
    };
    const sameKey = Object.keys(p.shorter.key).length === Object.keys(p.longer.key).length;
    if (p.blockers.length) {
      report({
        messageId: sameKey ? 'notRedundantSameKey' : 'notRedundant',
        severity: 'info',
        target,
        data: { ...pair, why: p.blockers.join('; ') },
        evidence: { longer: p.longer.name, reasons: p.blockers.length },
      });
      continue;
    }
    const ops = (name: string): number | null => accessesOf(data, name)?.reduce((s, a) => s + a.ops, 0) ?? null;
    const base = {
      severity: 'warn' as const,
      target,
      evidence: {
        key: formatKey(p.shorter.key),
        longer: p.longer.name,
        longerKey: formatKey(p.longer.key),
        sizeBytes: p.shorter.sizeBytes,
        longerSizeBytes: p.longer.sizeBytes,
        ops: ops(p.shorter.name),
        longerOps: ops(p.longer.name),
      },
      recommendation: {
        action: hideThenDropAction(snapshot.server),
        reason:
          `${codeSpan(p.longer.name)} serves the same equality, range and sort queries on its leading fields; its ` +
          `entries are larger, so those queries read a little more. Check with explain() that the planner ` +
          `picks it (the confirmation does this on a scratch copy). ` +
          hideFirst(snapshot.server, c.db, c.name, p.shorter.name),
        ...hideThenDrop(snapshot.server, c.db, c.name, p.shorter.name),
      },
    };
    const fields = Object.keys(p.shorter.key)
      .map((f) => codeSpan(f))
      .join(', ');
    if (p.shorter.sizeBytes === null)
      report({ ...base, messageId: sameKey ? 'duplicateUnsized' : 'redundantUnsized', data: { ...pair, fields } });
    else
      report({
        ...base,
        messageId: sameKey ? 'duplicate' : 'redundant',
        data: { ...pair, fields, size: formatBytes(p.shorter.sizeBytes) },
      });
  }
}

function checkCount(c: CollectionSnapshot, o: IndexUsageOptions, report: IndexUsageReport): void {
  const n = c.indexes.length;
  const over =
    n > o.errorIndexes
      ? { severity: 'error' as const, limit: o.errorIndexes, source: 'Atlas' }
      : n > o.warnIndexes
        ? { severity: 'warn' as const, limit: o.warnIndexes, source: 'Compass' }
        : null;
  if (!over) return;
  report({
    messageId: 'tooMany',
    severity: over.severity,
    target: { db: c.db, collection: c.name },
    data: { count: n, limit: over.limit, source: over.source },
    evidence: { indexes: n, limit: over.limit, totalIndexBytes: indexBytes(c) },
    recommendation: {
      action: 'consolidate',
      reason:
        'Drop the unused and redundant ones (reported separately when found), and fold single-field indexes ' +
        'into compound indexes that lead with the fields queried by equality, then sort, then range (ESR). ' +
        "Review each index's use first:",
      commands: [
        shellCall(c.db, c.name, 'aggregate', [
          { $indexStats: {} },
          { $project: { name: 1, 'accesses.ops': 1, 'accesses.since': 1 } },
        ]),
      ],
    },
  });
}

function cacheUnknownReason(snapshot: Snapshot, status: ServerStatusData | undefined): string {
  if (snapshot.server.flavor === 'ferretdb') return 'this FerretDB server has no WiredTiger cache to compare with';
  if (!status)
    return (
      "serverStatus could not be read (it needs the clusterMonitor role), so wiredTiger.cache['maximum bytes " +
      "configured'] is unknown"
    );
  if (isRouter(snapshot.server)) return `${ROUTER_HAS_NO_STORAGE}, so the WiredTiger cache size is unknown`;
  const engine = status.storageEngine;
  if (engine === 'wiredTiger')
    return (
      "the server reports storage engine wiredTiger but its serverStatus has no wiredTiger.cache['maximum " +
      "bytes configured']"
    );
  if (engine) return `the storage engine is ${engine}, not WiredTiger`;
  return "serverStatus names no storage engine and has no wiredTiger.cache['maximum bytes configured']";
}

/**
 * Indexes against the WiredTiger cache. The cache is the server's, shared by every database: the run's databases are
 * judged together (one note or finding per run), the finding placed on the database holding the most index bytes.
 */
function checkCache(snapshot: Snapshot, o: IndexUsageOptions, report: IndexUsageReport, note: NoteFn): void {
  const status = dataOf(serverStatus, snapshot);
  const dbs = snapshot.databases;
  if (dbs.length === 0) return;
  const several = dbs.length > 1;
  const colls = dbs.flatMap((db) => db.collections.filter((c) => c.type === 'collection'));
  const name = (c: CollectionSnapshot): string => (several ? `${c.db}.${c.name}` : c.name);
  const sizes = colls.map(indexBytes).filter((s): s is number => s !== null);
  // collections with documents (or unread statistics) whose index sizes are unknown; empty ones hold next to nothing
  const unknown = colls.filter(
    (c) => indexBytes(c) === null && c.indexes.length > 0 && !(c.stats && c.stats.count === 0),
  );
  const n = several
    ? `${plural(colls.length, 'collection')} checked in ${formatNumber(dbs.length)} databases`
    : `${plural(colls.length, 'collection')} checked`;
  const unknownText = unknown.length
    ? `index sizes could not be read for ${plural(unknown.length, 'collection')} ` +
      `(${unknown.slice(0, 5).map(name).join(', ')}${unknown.length > 5 ? ', …' : ''}: $collStats gave no ` +
      `index sizes for them)`
    : '';
  const at = several ? undefined : { db: (dbs[0] as DatabaseSnapshot).name };
  // sizes unknown because $collStats read 0 for every collection of them: the core read's gap, said on its line
  const readZero = (c: CollectionSnapshot): boolean =>
    c.stats !== null && c.stats.count > 0 && c.stats.sizeBytes === 0 && c.stats.storageSizeBytes === 0;
  const zero = unknown.length > 0 && unknown.every(readZero);
  if (sizes.length === 0) {
    const gap = zero ? gapOf(COLLSTATS_ZERO_SIZES, 'indexes against the WiredTiger cache') : undefined;
    if (unknown.length) note(`${unknownText}, so they were not compared with the cache.`, at, 'skipped', gap);
    return;
  }
  const total = sizes.reduce((a, b) => a + b, 0);
  const size = unknown.length ? `at least ${formatBytes(total)}` : formatBytes(total);
  const cache = status?.cacheBytes ?? null;
  if (cache === null || cache <= 0) {
    const none = noWiredTiger(snapshot.server);
    const gap = none ? gapOf(none, `indexes (${size}) against the WiredTiger cache`) : undefined;
    const floor = unknown.length ? ` The total is a floor: ${unknownText}.` : '';
    note(
      `indexes of the ${n} take ${size}; not compared with the cache: ${cacheUnknownReason(snapshot, status)}.${floor}`,
      at,
      'skipped',
      gap,
    );
    return;
  }
  const share = total / cache;
  if (share <= o.cacheShareWarn) {
    if (unknown.length)
      note(
        `indexes of the ${n} take ${size}, ${Math.round(share * 100)}% of the WiredTiger cache ` +
          `(${formatBytes(cache)}); ${unknownText}, so the share may be higher.`,
        at,
      );
    return;
  }
  reportIndexesVsCache(report, o, { dbs, collections: colls.length, unknown: unknown.length, total, cache });
}

/** The run's index bytes and the cache they are judged against. */
interface CacheFigures {
  dbs: readonly DatabaseSnapshot[];
  /** Collections checked, and those whose index sizes could not be read. */
  collections: number;
  unknown: number;
  total: number;
  cache: number;
}

/** The index bytes of the run's databases against the cache, when they take more than the share allowed. */
function reportIndexesVsCache(
  report: IndexUsageReport,
  o: IndexUsageOptions,
  { dbs, collections, unknown, total, cache }: CacheFigures,
): void {
  const several = dbs.length > 1;
  const share = total / cache;
  const perDb = dbs
    .map((db) => ({ db: db.name, bytes: db.collections.map(indexBytes).reduce<number>((a, b) => a + (b ?? 0), 0) }))
    .sort((a, b) => b.bytes - a.bytes);
  const largest = perDb[0] as { db: string; bytes: number };
  const base = {
    severity: 'warn' as const,
    target: { db: largest.db },
    evidence: {
      totalIndexBytes: total,
      cacheBytes: cache,
      share: Math.round(share * 1000) / 1000,
      collections,
      collectionsWithUnknownIndexSizes: unknown,
      ...(several ? { databases: dbs.length, largestDatabaseIndexBytes: largest.bytes } : {}),
    },
    recommendation: {
      action: 'shrink the index set, or grow the cache',
      reason:
        'Drop unused and redundant indexes first (reported separately when found); use partial indexes ' +
        'where queries touch a subset; otherwise give the cache more memory ' +
        '(storage.wiredTiger.engineConfig.cacheSizeGB, or a larger instance).',
    },
  };
  const data = {
    size: formatBytes(total),
    share: `${Math.round(share * 100)}%`,
    cache: formatBytes(cache),
    limit: `${Math.round(o.cacheShareWarn * 100)}%`,
  };
  if (several) {
    const across = {
      ...data,
      databases: formatNumber(dbs.length),
      largest: largest.db,
      largestSize: formatBytes(largest.bytes),
    };
    if (unknown)
      report({ ...base, messageId: 'indexesVsCacheDatabasesAtLeast', data: { ...across, unsized: unknown } });
    else report({ ...base, messageId: 'indexesVsCacheDatabases', data: across });
  } else if (unknown) report({ ...base, messageId: 'indexesVsCacheAtLeast', data: { ...data, unsized: unknown } });
  else report({ ...base, messageId: 'indexesVsCache', data });
}

/** Hidden members take no reads through read preferences, so not reading them leaves the verdicts as they are: said
 * once. */
function noteHiddenUnknown(snapshot: Snapshot, reported: readonly CollectionSnapshot[], note: NoteFn): void {
  const why = new Set(
    reported
      .map((c) => dataOf(indexUsageCollector, c)?.members?.hiddenUnknown)
      .filter((w): w is string => w !== undefined),
  );
  if (why.size === 0) return;
  note(
    `hidden replica-set members, if any, were not read: ${[...why].join('; ')}. They take no reads through ` +
      `read preferences, so the unused verdicts stand.`,
    { db: snapshot.databases[0]?.name ?? '' },
  );
}

export default defineRule({
  id: 'index-usage',
  needs: [serverStatus, indexUsageCollector, queryWorkload],
  scope: 'snapshot',
  meta: {
    description:
      'Unused (summed over every replica-set member), redundant and too many indexes, and index size against the cache',
    docsUrl: 'https://www.mongodb.com/docs/manual/reference/operator/aggregation/indexStats/',
    // Each finding links to the page that explains it: $indexStats explains the counters (kept, tooRecent); a redundant
    // index is a compound index's prefix; an unused one, too many or too large are the unnecessary-indexes advice.
    docsUrls: {
      ...Object.fromEntries(
        (Object.keys(messages) as (keyof typeof messages)[])
          .filter((id) => /^(unused|rarelyUsed)/.test(id))
          .map((id) => [id, UNNECESSARY_INDEXES]),
      ),
      redundant: COMPOUND_PREFIXES,
      redundantUnsized: COMPOUND_PREFIXES,
      notRedundant: COMPOUND_PREFIXES,
      tooMany: UNNECESSARY_INDEXES,
      indexesVsCache: INDEXES_IN_RAM,
      indexesVsCacheAtLeast: INDEXES_IN_RAM,
    },
    severity: 'warn',
    messages,
    options: indexUsageOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    const withUnused: CollectionSnapshot[] = [];
    for (const db of snapshot.databases) {
      const unreadable: { c: CollectionSnapshot; u: IndexUsage }[] = [];
      const missing: CollectionSnapshot[] = [];
      const noRows: { c: CollectionSnapshot; names: string[] }[] = [];
      const wl = dataOf(queryWorkload, db);
      const gaps: { coll: string; names: string[]; why: string }[] = [];
      for (const c of db.collections.filter((x) => x.type === 'collection')) {
        const data = dataOf(indexUsageCollector, c);
        const { judged, ...gap } = checkWorkload(snapshot, c, data, wl, options, report);
        if (gap.names.length) gaps.push({ coll: c.name, ...gap });
        if (data) {
          const out = checkUsage(snapshot, c, data, options, report, workloadShapes(wl, c.name));
          if (out.unused > 0) withUnused.push(c);
          // An index a complete workload judged is no "not judged" line beside its finding (issue 27).
          const open = (name: string): boolean => !judged.includes(name);
          unreadable.push(...out.unreadable.filter((u) => open(u.index.name)).map((u) => ({ c, u })));
          const rowless = out.noRows.filter(open);
          if (rowless.length) noRows.push({ c, names: rowless });
        } else if (c.indexes.some((i) => !isIdIndex(c, i))) missing.push(c);
        checkPrefixes(snapshot, c, data, report);
        checkCount(c, options, report);
      }
      noteUnreadable(unreadable, note, db.name);
      noteNotChecked(snapshot, db.name, missing, noRows, note);
      noteIncompleteWorkload(wl, gaps, note, db.name);
    }
    noteHiddenUnknown(snapshot, withUnused, note);
    checkCache(snapshot, options, report, note);
  },
  confirm: {
    describe:
      'for an unused index, every shape of the workload on the collection replayed on a scratch copy without it ' +
      '(proveDrop) when the run holds their calls, else insert time with all indexes vs without the flagged ones; ' +
      'for a redundant index, explain() with it dropped picks the longer one',
    messages: CONFIRM_MESSAGES,
    appliesTo: (f) => claimOf(f.messageId) !== null,
    // The drop proof copies as many documents as the index proof (PROOF_DOCS): declared to the consent line.
    copyDocs: () => PROOF_DOCS,
    run: confirmIndexUsage,
  },
});
