import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';

const DAY_MS = 86_400_000;

export interface IndexUsageOptions extends Record<string, unknown> {
  warmupDays: number;
  unusedMaxOps: number;
  warnIndexes: number;
  errorIndexes: number;
  cacheShareWarn: number;
}

/** `db.name` where mongosh allows it, else `db.getCollection("name")` (odd names, names of db methods). */
export function shellCollection(name: string): string {
  const reserved = new Set(['stats', 'version', 'help', 'auth', 'logout', 'getName', 'runCommand', 'aggregate', 'watch', 'getMongo', 'getSiblingDB', 'createCollection', 'dropDatabase']);
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reserved.has(name) ? `db.${name}` : `db.getCollection(${JSON.stringify(name)})`;
}

/** `{ a: 1, "b.c": -1, loc: "2dsphere" }` as mongosh prints a key pattern. */
export function formatKey(key: IndexSnapshot['key']): string {
  const parts = Object.entries(key).map(([k, v]) => `${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k)}: ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  return `{ ${parts.join(', ')} }`;
}

/** The special index kind (text, 2dsphere, 2d, hashed, wildcard, columnstore…) or null for a B-tree index. */
export function specialKind(ix: IndexSnapshot): string | null {
  for (const [field, v] of Object.entries(ix.key)) {
    if (field === '$**' || field.endsWith('.$**')) return typeof v === 'string' ? v : 'wildcard';
    if (typeof v === 'string') return v;
  }
  return null;
}

function sameDirection(a: number | string, b: number | string): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return Math.sign(a) === Math.sign(b);
}

/** Whether `a`'s key is a leading part of `b`'s: same fields in the same order with the same types and directions. */
export function isKeyPrefix(a: IndexSnapshot, b: IndexSnapshot): boolean {
  const ka = Object.entries(a.key);
  const kb = Object.entries(b.key);
  if (ka.length === 0 || ka.length > kb.length) return false;
  return ka.every(([field, v], i) => {
    const other = kb[i];
    return other !== undefined && other[0] === field && sameDirection(v, other[1]);
  });
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v as Record<string, unknown>).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * Why the shorter index `a` cannot simply give way to `b`, although its key is a prefix of `b`'s; empty when it
 * can. Special kinds store other keys than a B-tree; collation, uniqueness, sparseness and partial filters change
 * which documents and which queries an index serves.
 */
export function prefixBlockers(a: IndexSnapshot, b: IndexSnapshot): string[] {
  const why: string[] = [];
  const ka = specialKind(a);
  const kb = specialKind(b);
  if (ka) why.push(`\`${a.name}\` is a ${ka} index, which stores other keys than a B-tree index`);
  if (kb) why.push(`\`${b.name}\` is a ${kb} index, which stores other keys than a B-tree index${kb === '2dsphere' ? ' and skips documents without the geo field' : ''}`);
  if (canonical(a.collation ?? null) !== canonical(b.collation ?? null)) why.push('their collations differ, and a query uses an index only with a matching collation');
  if (a.unique) why.push(`\`${a.name}\` is unique: it enforces a constraint the longer index does not`);
  if (a.sparse || b.sparse) why.push(`${a.sparse ? `\`${a.name}\`` : `\`${b.name}\``} is sparse: it skips documents without its fields, so the two answer different queries`);
  if (a.partial || b.partial) why.push(`${a.partial ? `\`${a.name}\`` : `\`${b.name}\``} is partial: it holds only documents matching its filter`);
  if (a.expireAfterSeconds !== undefined) why.push(`\`${a.name}\` is a TTL index: the server's deletes need it`);
  if (b.hidden) why.push(`\`${b.name}\` is hidden, so the planner cannot use it in \`${a.name}\`'s place`);
  return why;
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
