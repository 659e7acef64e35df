import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import { isKeyPrefix, prefixBlockers } from '../../src/lib/index-keys';

export { formatKey, isKeyPrefix, prefixBlockers, specialKind } from '../../src/lib/index-keys';
export { shellCollection } from '../../src/lib/shell';

const DAY_MS = 86_400_000;

export interface IndexUsageOptions extends Record<string, unknown> {
  warmupDays: number;
  unusedMaxOps: number;
  warnIndexes: number;
  errorIndexes: number;
  cacheShareWarn: number;
}

/** Indexes that can serve `shorter`'s queries in its place: compatible indexes whose key starts with its key. */
export function standIns(c: CollectionSnapshot, shorter: IndexSnapshot): string[] {
  return c.indexes.filter((b) => b !== shorter && isKeyPrefix(shorter, b) && prefixBlockers(shorter, b).length === 0).map((b) => b.name);
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
    if (a.name === '_id_') continue;
    const partners = c.indexes
      .filter((b) => b !== a && isKeyPrefix(a, b))
      // equal keys (possible only with different options): report the pair once
      .filter((b) => Object.keys(b.key).length > Object.keys(a.key).length || a.name > b.name);
    if (partners.length === 0) continue;
    const compatible = partners.map((b) => ({ shorter: a, longer: b, blockers: prefixBlockers(a, b) }));
    const clean = compatible.filter((p) => p.blockers.length === 0).sort((x, y) => Object.keys(y.longer.key).length - Object.keys(x.longer.key).length || x.longer.name.localeCompare(y.longer.name));
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
  if (ix.expireAfterSeconds !== undefined) return 'TTL: the server deletes expired documents through it, and those deletes do not count as use';
  if (ix.hidden) return 'hidden: the planner cannot use it, so no use is expected; drop it once nothing has slowed down since it was hidden';
  if (ix.partial) return 'partial: it serves only queries that match its filter, which may run rarely (month-end jobs); check before dropping';
  return null;
}

/** Usage summed over every member read, with the warm-up guard: counters younger than `warmupDays` prove nothing. */
export function indexUsage(ix: IndexSnapshot, collectedAt: number, o: IndexUsageOptions): IndexUsage {
  const acc = ix.accesses;
  if (acc === null || acc.length === 0) return { index: ix, status: 'unknown', ops: 0, windowDays: null, youngestHost: null };
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
  if (windowDays === null || windowDays < o.warmupDays) return { index: ix, status: 'tooRecent', ops, windowDays, youngestHost };
  return { index: ix, status: 'unused', ops, windowDays, youngestHost };
}

/** Index bytes of the collections checked: collStats' total, else the sum of the indexes' own sizes. */
export function indexBytes(c: CollectionSnapshot): number | null {
  if (c.stats && c.stats.totalIndexSizeBytes > 0) return c.stats.totalIndexSizeBytes;
  const sizes = c.indexes.map((i) => i.sizeBytes).filter((s): s is number => s !== null);
  return sizes.length ? sizes.reduce((a, b) => a + b, 0) : null;
}

/** Who was read: "3 of 3 members", "the connected member", or the shard primaries through mongos. */
export function membersRead(snapshot: Snapshot, c: CollectionSnapshot, ix: IndexSnapshot): { text: string; complete: boolean; missing: string } {
  const hosts = (ix.accesses ?? []).length;
  const m = c.indexUsageMembers;
  if (snapshot.server.topology === 'sharded') {
    return { text: `${hosts} shard primar${hosts === 1 ? 'y' : 'ies'} (through mongos)`, complete: false, missing: 'Shard secondaries are not read through mongos; an index used only by secondary reads would look unused here.' };
  }
  if (snapshot.server.topology !== 'replicaSet') return { text: '', complete: true, missing: '' };
  if (!m) return { text: 'the connected member only', complete: false, missing: 'The other members were not read; an index used only there would look unused here.' };
  const total = m.read.length + m.notRead.length;
  const parts: string[] = [];
  const counted = total === 1 && m.read.length === 1 ? `the only member listed (${m.read[0] ?? ''})` : `${m.read.length} of ${total} member${total === 1 ? '' : 's'}`;
  if (m.notRead.length) parts.push(`Not read: ${m.notRead.map((n) => `${n.host} (${n.reason})`).join('; ')}; an index used only there would look unused here.`);
  // Hidden members take no reads through read preferences, so their absence does not lower the verdict.
  if (m.hiddenUnknown) parts.push(`Hidden members, if any, were not read: ${m.hiddenUnknown}.`);
  return { text: counted, complete: m.notRead.length === 0, missing: parts.join(' ') };
}
