import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import type { ShapeData, WorkloadData } from '../../src/collect/workload';
import { isIdIndex, isKeyPrefix, prefixBlockers, specialKind } from '../../src/lib/index-keys';
import { canUseIndex } from '../../src/workload/judge';
import type { IndexAccess, IndexUsageMembers } from './collect';
import type { IndexUsageOptions } from './options';

export { formatKey, isKeyPrefix, prefixBlockers, specialKind } from '../../src/lib/index-keys';

const DAY_MS = 86_400_000;

/**
 * The claim a finding makes, by its message id, for the confirmation (which experiment tests it); null for lines no
 * experiment can test (kept, too recent, not redundant).
 */
export function claimOf(messageId: string): 'unused' | 'redundant' | 'tooMany' | 'indexesVsCache' | null {
  if (messageId.startsWith('unused') || messageId.startsWith('rarelyUsed')) return 'unused';
  if (['redundant', 'redundantUnsized', 'duplicate', 'duplicateUnsized'].includes(messageId)) return 'redundant';
  if (messageId === 'tooMany') return 'tooMany';
  if (messageId.startsWith('indexesVsCache')) return 'indexesVsCache';
  return null;
}

/** Indexes that can serve `shorter`'s queries in its place: compatible indexes whose key starts with its key. */
export function standIns(c: CollectionSnapshot, shorter: IndexSnapshot): string[] {
  return c.indexes
    .filter((b) => b !== shorter && isKeyPrefix(shorter, b) && prefixBlockers(shorter, b).length === 0)
    .map((b) => b.name);
}

export interface PrefixPair {
  shorter: IndexSnapshot;
  longer: IndexSnapshot;
  blockers: string[];
}

/**
 * Every (shorter, longer) pair where the shorter key is a prefix of the longer one. A shorter index with a
 * compatible partner gets one pair, with its longest compatible partner (never itself redundant); without one,
 * every blocked pair, so each reason is said.
 */
export function prefixPairs(c: CollectionSnapshot): PrefixPair[] {
  const out: PrefixPair[] = [];
  for (const a of c.indexes) {
    if (isIdIndex(c, a)) continue;
    const partners = c.indexes
      .filter((b) => b !== a && isKeyPrefix(a, b))
      // equal keys (possible only with different options): report the pair once
      .filter((b) => Object.keys(b.key).length > Object.keys(a.key).length || a.name > b.name);
    if (partners.length === 0) continue;
    const compatible = partners.map((b) => ({ shorter: a, longer: b, blockers: prefixBlockers(a, b) }));
    const clean = compatible
      .filter((p) => p.blockers.length === 0)
      .sort(
        (x, y) =>
          Object.keys(y.longer.key).length - Object.keys(x.longer.key).length ||
          x.longer.name.localeCompare(y.longer.name),
      );
    if (clean[0]) out.push(clean[0]);
    else out.push(...compatible);
  }
  return out;
}

export type UsageStatus = 'used' | 'unused' | 'kept' | 'tooRecent' | 'unreadable' | 'unknown';

export interface IndexUsage {
  index: IndexSnapshot;
  status: UsageStatus;
  ops: number;
  /** Days covered on every member read: the age of the youngest counter. */
  windowDays: number | null;
  /** For tooRecent: the member whose counters are youngest. */
  youngestHost: string | null;
  /** For kept: why an index with no recorded use is not called unused. */
  keptReason?: string;
  /** For unreadable: the members whose `accesses.since` is not a date, with what they gave instead. */
  noSince?: { host: string; since: string }[];
}

/** Why an index with no recorded use is kept anyway, or null. */
export function keptReason(ix: IndexSnapshot): string | null {
  if (ix.name === '_id_') return 'MongoDB requires it';
  if (ix.unique) return 'unique: it enforces a constraint even when no query reads it';
  if (ix.expireAfterSeconds !== undefined)
    return 'TTL: the server deletes expired documents through it, and those deletes do not count as use';
  if (ix.hidden)
    return (
      'hidden: the planner cannot use it, so no use is expected; drop it once nothing has slowed down since ' +
      'it was hidden'
    );
  if (ix.partial)
    return (
      'partial: it serves only queries that match its filter, which may run rarely (month-end jobs); check ' +
      'before dropping'
    );
  return null;
}

/**
 * Usage summed over every member read (`acc`: the index's $indexStats rows, null when none were read), with the
 * warm-up guard: counters younger than `warmupDays` prove nothing.
 */
export function indexUsage(
  ix: IndexSnapshot,
  acc: readonly IndexAccess[] | null,
  collectedAt: number,
  o: Pick<IndexUsageOptions, 'warmupDays' | 'unusedMaxOps'>,
): IndexUsage {
  if (acc === null || acc.length === 0)
    return { index: ix, status: 'unknown', ops: 0, windowDays: null, youngestHost: null };
  const ops = acc.reduce((s, a) => s + a.ops, 0);
  let windowDays: number | null = null;
  let youngestHost: string | null = null;
  const noSince: { host: string; since: string }[] = [];
  for (const a of acc) {
    const since = Date.parse(a.since);
    if (!Number.isFinite(since)) {
      noSince.push({ host: a.host, since: a.since });
      continue;
    }
    const days = (collectedAt - since) / DAY_MS;
    if (windowDays === null || days < windowDays) {
      windowDays = days;
      youngestHost = a.host;
    }
  }
  if (ops > o.unusedMaxOps) return { index: ix, status: 'used', ops, windowDays, youngestHost };
  // MongoDB documents accesses.ops as the operations since accesses.since: without that date the counter is not a
  // measure of use over any known time (a server may answer $indexStats without counting), so nothing is concluded.
  if (noSince.length > 0) return { index: ix, status: 'unreadable', ops, windowDays, youngestHost, noSince };
  const kept = keptReason(ix);
  if (kept) return { index: ix, status: 'kept', ops, windowDays, youngestHost, keptReason: kept };
  if (windowDays === null || windowDays < o.warmupDays)
    return { index: ix, status: 'tooRecent', ops, windowDays, youngestHost };
  return { index: ix, status: 'unused', ops, windowDays, youngestHost };
}

/** Index bytes of the collections checked: collStats' total, else the sum of the indexes' own sizes. */
export function indexBytes(c: CollectionSnapshot): number | null {
  if (c.stats && c.stats.totalIndexSizeBytes > 0) return c.stats.totalIndexSizeBytes;
  const sizes = c.indexes.map((i) => i.sizeBytes).filter((s): s is number => s !== null);
  return sizes.length ? sizes.reduce((a, b) => a + b, 0) : null;
}

/**
 * Whose counters an index's use was summed over, as the unused message says it: a standalone (nothing to add), every
 * member of a replica set (or its only one), some of them (with who was not read and why), the connected member only
 * (the member list could not be read), or the shard primaries mongos reaches. `complete` is false when an index used
 * only elsewhere would look unused here.
 */
export type Coverage =
  | { kind: 'standalone'; complete: true }
  | { kind: 'members'; complete: true; read: number; members: number }
  | { kind: 'onlyMember'; complete: true; host: string }
  | { kind: 'membersNotRead'; complete: false; read: number; members: number; notRead: string }
  | { kind: 'connectedOnly'; complete: false; why: string }
  | { kind: 'sharded'; complete: false; primaries: number };

export function coverage(snapshot: Snapshot, members: IndexUsageMembers | undefined, rows: number): Coverage {
  if (snapshot.server.topology === 'sharded') return { kind: 'sharded', complete: false, primaries: rows };
  if (snapshot.server.topology !== 'replicaSet') return { kind: 'standalone', complete: true };
  if (!members) return { kind: 'connectedOnly', complete: false, why: 'no member list was recorded' };
  if (members.listError !== undefined) return { kind: 'connectedOnly', complete: false, why: members.listError };
  const total = members.read.length + members.notRead.length;
  if (members.notRead.length > 0) {
    return {
      kind: 'membersNotRead',
      complete: false,
      read: members.read.length,
      members: total,
      notRead: members.notRead.map((n) => `${n.host} (${n.reason})`).join('; '),
    };
  }
  const only = members.read[0];
  if (total === 1 && only) return { kind: 'onlyMember', complete: true, host: only };
  return { kind: 'members', complete: true, read: members.read.length, members: total };
}

/** The workload's shapes on one collection (none when the workload was not read or holds none there). */
export function workloadShapes(data: WorkloadData | undefined, coll: string): ShapeData[] {
  return data?.collections.find((c) => c.name === coll)?.shapes ?? [];
}

const SOURCE_NAMES: Record<WorkloadData['sources'][number], string> = {
  profiler: 'the profiler',
  log: 'the slow-query log',
  file: 'the queries file',
  queryStats: '$queryStats',
};

/** Where the workload came from, in words ("the profiler", "the slow-query log and the queries file"). */
export function sourceText(data: WorkloadData): string {
  return data.sources.length ? data.sources.map((s) => SOURCE_NAMES[s]).join(' and ') : 'the workload';
}

/** What the workload says of one index no $indexStats verdict covers. */
export type WorkloadVerdict = 'used' | 'special' | 'kept' | 'unused';

/**
 * The workload's verdict on an index: used when a shape can use it; special (text, geo, hashed, wildcard: a shape does
 * not say whether a query reads them); kept for the unused finding's reasons (unique, TTL, hidden, partial); else
 * unused by every shape.
 */
export function workloadVerdict(ix: IndexSnapshot, shapes: readonly ShapeData[]): WorkloadVerdict {
  if (shapes.some((s) => canUseIndex(s.shape, ix))) return 'used';
  if (specialKind(ix)) return 'special';
  return keptReason(ix) ? 'kept' : 'unused';
}
