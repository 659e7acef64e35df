import { formatBytes, formatNumber } from '../../src/core/format';
import { defineRule, type NoteFn, type Report } from '../../src/core/rule';
import type { CollectionSnapshot, Snapshot } from '../../src/core/types';
import {
  type IndexUsage,
  type IndexUsageOptions,
  formatKey,
  indexBytes,
  indexUsage,
  membersRead,
  prefixPairs,
  shellCollection,
} from './analyze';
import { confirmIndexUsage } from './confirm';

export const indexUsageOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
  properties: {
    warmupDays: {
      type: 'number',
      minimum: 0,
      default: 7,
      description: "Counters younger than this prove nothing (they restart with the server and when an index is built): Atlas calls an index unused after no use for 7+ days.",
    },
    unusedMaxOps: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description: 'Uses ($indexStats accesses.ops summed over every member read) at or below which an index counts as unused: pt-mongodb-index-check flags accesses.ops == 0.',
    },
    warnIndexes: { type: 'integer', minimum: 1, default: 10, description: 'More indexes than this on one collection is a warning: Compass flags more than 10 (the field reports).' },
    errorIndexes: { type: 'integer', minimum: 1, default: 30, description: 'More indexes than this on one collection is an error: Atlas flags more than 30 per collection (the many-collections field report).' },
    cacheShareWarn: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 0.5,
      description:
        "Share of the WiredTiger cache (serverStatus wiredTiger.cache['maximum bytes configured']) the indexes of the database may take before a warning. Past half, documents compete with indexes for the cache; once the working set outgrows it, reads go to disk (the compression field report: ~13k vs ~1.22M QPS when the data no longer fit in RAM).",
    },
  },
};

const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;
const days = (d: number): string => (d < 1 ? `${formatNumber(Math.round(d * 24))} hours` : plural(Math.floor(d), 'day'));
const names = (list: readonly { index: { name: string } }[]): string => list.map((u) => `\`${u.index.name}\``).join(', ');

function hideThenDrop(snapshot: Snapshot, coll: string, index: string): string[] {
  const c = shellCollection(coll);
  const [major = 0, minor = 0] = snapshot.server.versionArray;
  const canHide = snapshot.server.flavor === 'mongodb' && (major > 4 || (major === 4 && minor >= 4));
  return canHide ? [`${c}.hideIndex(${JSON.stringify(index)})`, `${c}.dropIndex(${JSON.stringify(index)})`] : [`${c}.dropIndex(${JSON.stringify(index)})`];
}

/** Returns the indexes whose counters could not be read as use (no `accesses.since` date), for one note per run. */
function checkUsage(snapshot: Snapshot, c: CollectionSnapshot, o: IndexUsageOptions, report: Report): IndexUsage[] {
  const collectedAt = Date.parse(snapshot.collectedAt);
  const usage: IndexUsage[] = c.indexes.filter((i) => i.name !== '_id_').map((i) => indexUsage(i, collectedAt, o));
  const target = { db: c.db, collection: c.name };
  for (const u of usage.filter((x) => x.status === 'unused')) {
    const who = membersRead(snapshot, c, u.index);
    report({
      messageId: 'unused',
      severity: who.complete ? 'warn' : 'info',
      target: { ...target, index: u.index.name },
      data: {
        index: u.index.name,
        key: formatKey(u.index.key),
        uses: u.ops === 0 ? 'no use' : plural(u.ops, 'use'),
        days: days(u.windowDays ?? 0),
        members: who.text ? `, summed over ${who.text}` : '',
        size: u.index.sizeBytes === null ? 'an unknown size' : formatBytes(u.index.sizeBytes),
        missing: who.missing ? ` ${who.missing}` : '',
      },
      evidence: {
        ops: u.ops,
        windowDays: u.windowDays === null ? null : Math.floor(u.windowDays),
        membersRead: (u.index.accesses ?? []).length,
        allMembersRead: who.complete,
        sizeBytes: u.index.sizeBytes,
        key: formatKey(u.index.key),
      },
      recommendation: {
        action: 'hide it, then drop it',
        reason: `An unused index still takes a write on every insert (and on updates to its fields), disk and cache. hideIndex keeps it maintained but invisible to the planner, and unhideIndex brings it back at once if a query slows down; drop it after a full business cycle${who.complete ? '' : ', and only after checking the members not read'}.`,
        commands: hideThenDrop(snapshot, c.name, u.index.name),
      },
    });
  }
  const kept = usage.filter((x) => x.status === 'kept');
  if (kept.length) {
    report({
      messageId: 'kept',
      severity: 'info',
      target,
      data: { list: kept.map((u) => `\`${u.index.name}\` (${u.keptReason ?? ''})`).join('; ') },
      evidence: { indexes: kept.length },
    });
  }
  const early = usage.filter((x) => x.status === 'tooRecent');
  if (early.length) {
    const youngest = early.reduce((a, b) => ((a.windowDays ?? 0) <= (b.windowDays ?? 0) ? a : b));
    report({
      messageId: 'tooRecent',
      severity: 'info',
      target,
      data: {
        list: names(early),
        host: youngest.youngestHost || 'a member',
        age: youngest.windowDays === null ? 'at an unknown time' : `${days(youngest.windowDays)} ago`,
        warmup: o.warmupDays,
      },
      evidence: { indexes: early.length, youngestDays: youngest.windowDays === null ? null : Math.round(youngest.windowDays * 10) / 10, warmupDays: o.warmupDays },
    });
  }
  return usage.filter((x) => x.status === 'unreadable');
}

/** One line for every index whose $indexStats counters carry no start date: not judged, and why. */
function noteUnreadable(unreadable: readonly { c: CollectionSnapshot; u: IndexUsage }[], note: NoteFn, db: string): void {
  if (unreadable.length === 0) return;
  const byColl = new Map<string, string[]>();
  for (const { c, u } of unreadable) byColl.set(c.name, [...(byColl.get(c.name) ?? []), `\`${u.index.name}\``]);
  const list = [...byColl].slice(0, 5).map(([coll, ixs]) => `${coll}: ${ixs.join(', ')}`).join('; ') + (byColl.size > 5 ? '; …' : '');
  const gave = new Map<string, string>();
  for (const { u } of unreadable) for (const m of u.noSince ?? []) gave.set(m.host || 'a member', m.since === 'undefined' ? 'no accesses.since' : `accesses.since ${m.since}`);
  const hosts = [...gave].map(([h, v]) => `${h} gave ${v}`).join('; ');
  const maxOps = Math.max(...unreadable.map(({ u }) => u.ops));
  note(
    `index use was not judged for ${plural(unreadable.length, 'index', 'indexes')} with ${maxOps === 0 ? 'no recorded use' : `at most ${plural(maxOps, 'recorded use')}`} (${list}): $indexStats on ${hosts}, where MongoDB gives the date its counters started. Without it accesses.ops is not a count over any known time, so none is called unused. Redundant indexes and index counts were still checked.`,
    { db },
  );
}

function checkPrefixes(snapshot: Snapshot, c: CollectionSnapshot, report: Report): void {
  for (const p of prefixPairs(c)) {
    const target = { db: c.db, collection: c.name, index: p.shorter.name };
    const data = { index: p.shorter.name, key: formatKey(p.shorter.key), longer: p.longer.name, longerKey: formatKey(p.longer.key) };
    if (p.blockers.length) {
      report({ messageId: 'notRedundant', severity: 'info', target, data: { ...data, why: p.blockers.join('; ') }, evidence: { longer: p.longer.name, reasons: p.blockers.length } });
      continue;
    }
    const ops = (ix: typeof p.shorter): number | null => (ix.accesses ? ix.accesses.reduce((s, a) => s + a.ops, 0) : null);
    report({
      messageId: 'redundant',
      severity: 'warn',
      target,
      data: {
        ...data,
        fields: Object.keys(p.shorter.key).map((f) => `\`${f}\``).join(', '),
        size: p.shorter.sizeBytes === null ? 'its space' : formatBytes(p.shorter.sizeBytes),
      },
      evidence: {
        key: formatKey(p.shorter.key),
        longer: p.longer.name,
        longerKey: formatKey(p.longer.key),
        sizeBytes: p.shorter.sizeBytes,
        longerSizeBytes: p.longer.sizeBytes,
        ops: ops(p.shorter),
        longerOps: ops(p.longer),
      },
      recommendation: {
        action: 'hide it, then drop it',
        reason: `\`${p.longer.name}\` serves the same equality, range and sort queries on its leading fields; its entries are larger, so those queries read a little more. Check with explain() that the planner picks it (the confirmation does this on a scratch copy), then drop the shorter index.`,
        commands: hideThenDrop(snapshot, c.name, p.shorter.name),
      },
    });
  }
}

function checkCount(c: CollectionSnapshot, o: IndexUsageOptions, report: Report): void {
  const n = c.indexes.length;
  const over = n > o.errorIndexes ? { severity: 'error' as const, limit: o.errorIndexes, source: 'the Atlas line' } : n > o.warnIndexes ? { severity: 'warn' as const, limit: o.warnIndexes, source: 'the Compass line' } : null;
  if (!over) return;
  report({
    messageId: 'tooMany',
    severity: over.severity,
    target: { db: c.db, collection: c.name },
    data: { count: n, limit: over.limit, source: over.source },
    evidence: { indexes: n, limit: over.limit, totalIndexBytes: indexBytes(c) },
    recommendation: {
      action: 'consolidate',
      reason: 'Drop the unused and redundant ones (reported separately when found), and fold single-field indexes into compound indexes that lead with the fields queried by equality, then sort, then range (ESR). Review each index\'s use first:',
      commands: [`${shellCollection(c.name)}.aggregate([{ $indexStats: {} }, { $project: { name: 1, "accesses.ops": 1, "accesses.since": 1 } }])`],
    },
  });
}

function cacheUnknownReason(snapshot: Snapshot): string {
  const engine = snapshot.server.storageEngine;
  if (snapshot.server.flavor === 'ferretdb') return 'this FerretDB server has no WiredTiger cache to compare with';
  if (engine === 'wiredTiger') return "the server reports storage engine wiredTiger but its serverStatus has no wiredTiger.cache['maximum bytes configured']";
  if (engine) return `the storage engine is ${engine}, not WiredTiger`;
  return "serverStatus could not be read (it needs the clusterMonitor role), so wiredTiger.cache['maximum bytes configured'] is unknown";
}

function checkCache(snapshot: Snapshot, o: IndexUsageOptions, report: Report, note: NoteFn): void {
  for (const db of snapshot.databases) {
    const colls = db.collections.filter((c) => c.type === 'collection');
    const sizes = colls.map(indexBytes).filter((s): s is number => s !== null);
    // collections with documents (or unread statistics) whose index sizes are unknown; empty ones hold next to nothing
    const unknown = colls.filter((c) => indexBytes(c) === null && c.indexes.length > 0 && !(c.stats && c.stats.count === 0));
    const n = `${plural(colls.length, 'collection')} checked`;
    const unknownText = unknown.length ? `index sizes could not be read for ${plural(unknown.length, 'collection')} (${unknown.slice(0, 5).map((c) => c.name).join(', ')}${unknown.length > 5 ? ', …' : ''}; see the notes)` : '';
    if (sizes.length === 0) {
      if (unknown.length) note(`${unknownText}, so they were not compared with the cache.`, { db: db.name });
      continue;
    }
    const total = sizes.reduce((a, b) => a + b, 0);
    const size = unknown.length ? `at least ${formatBytes(total)}` : formatBytes(total);
    const cache = snapshot.server.cacheBytes;
    if (cache === null || cache <= 0) {
      note(`indexes of the ${n} take ${size}; not compared with the cache: ${cacheUnknownReason(snapshot)}.${unknown.length ? ` The total is a floor: ${unknownText}.` : ''}`, { db: db.name });
      continue;
    }
    const share = total / cache;
    if (share <= o.cacheShareWarn) {
      if (unknown.length) note(`indexes of the ${n} take ${size}, ${Math.round(share * 100)}% of the WiredTiger cache (${formatBytes(cache)}); ${unknownText}, so the share may be higher.`, { db: db.name });
      continue;
    }
    report({
      messageId: 'indexesVsCache',
      severity: 'warn',
      target: { db: db.name },
      data: { collections: n, size, share: `${unknown.length ? 'at least ' : ''}${Math.round(share * 100)}%`, cache: formatBytes(cache), limit: `${Math.round(o.cacheShareWarn * 100)}%` },
      evidence: { totalIndexBytes: total, cacheBytes: cache, share: Math.round(share * 1000) / 1000, collections: colls.length, collectionsWithUnknownIndexSizes: unknown.length },
      recommendation: {
        action: 'shrink the index set, or grow the cache',
        reason: 'Drop unused and redundant indexes first (reported separately when found); use partial indexes where queries touch a subset; otherwise give the cache more memory (storage.wiredTiger.engineConfig.cacheSizeGB, or a larger instance).',
      },
    });
  }
}

export default defineRule<IndexUsageOptions>({
  id: 'index-usage',
  needs: ['serverStatus', 'indexStats', 'members'],
  scope: 'snapshot',
  meta: {
    description: 'Unused (summed over every replica-set member), redundant and too many indexes, and index size against the cache',
    docsUrl: 'https://www.mongodb.com/docs/manual/reference/operator/aggregation/indexStats/',
    severity: 'warn',
    messages: {
      unused: 'Index `{{index}}` {{key}} recorded {{uses}} in the last {{days}}{{members}}; it takes {{size}} and a write on every insert.{{missing}}',
      kept: 'No recorded use, but not called unused: {{list}}.',
      tooRecent:
        'Too early to call {{list}} unused: no use recorded, but the counters on {{host}} started {{age}}, within the {{warmup}}-day warm-up ($indexStats restarts with the server and when an index is built).',
      redundant: 'Index `{{index}}` {{key}} is a prefix of `{{longer}}` {{longerKey}} with the same options: queries on {{fields}} can use `{{longer}}`. Dropping it saves {{size}} and one index write per insert.',
      notRedundant: 'Index `{{index}}` {{key}} is a prefix of `{{longer}}` {{longerKey}} but not redundant: {{why}}.',
      tooMany: '{{count}} indexes on this collection, more than {{limit}} ({{source}}): every insert writes an entry in each, and each is its own WiredTiger table (a file and a data handle).',
      indexesVsCache:
        'Indexes of the {{collections}} take {{size}}, {{share}} of the WiredTiger cache ({{cache}}); past {{limit}}, documents compete with indexes for the cache and reads start going to disk.',
    },
    options: indexUsageOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    const colls = snapshot.databases.flatMap((d) => d.collections).filter((c) => c.type === 'collection');
    const usageCap = snapshot.server.capabilities.indexStats;
    if (usageCap.supported !== true && colls.some((c) => c.indexes.some((i) => i.name !== '_id_'))) {
      note(`index use was not checked: the server lacks $indexStats (${usageCap.evidence}). Redundant indexes, index counts and sizes were still checked.`, { db: snapshot.databases[0]?.name ?? '' });
    }
    const unreadable: { c: CollectionSnapshot; u: IndexUsage }[] = [];
    for (const c of colls) {
      if (usageCap.supported === true) unreadable.push(...checkUsage(snapshot, c, options, report).map((u) => ({ c, u })));
      checkPrefixes(snapshot, c, report);
      checkCount(c, options, report);
    }
    noteUnreadable(unreadable, note, snapshot.databases[0]?.name ?? '');
    checkCache(snapshot, options, report, note);
  },
  confirm: {
    describe: 'insert time on a scratch copy with all indexes vs without the flagged ones; for a redundant index, explain() with it dropped picks the longer one',
    appliesTo: (f) => ['unused', 'redundant', 'tooMany', 'indexesVsCache'].includes(f.messageId),
    run: confirmIndexUsage,
  },
});
