import { commandCursor } from '../../src/lib/cursor';
import type { Adapter, Doc } from '../../src/core/adapter';
import { asServerError, describeServerError } from '../../src/lib/server-error';
import { isDate } from '../../src/lib/bson-types';
import { type CollectionContext, defineCollector } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';
import type { CollectionSnapshot } from '../../src/core/types';
import { gapOf, NO_INDEXSTATS } from '../../src/core/gaps';
import { bsonTypeOfTag } from '../../src/lib/bson-types';
import { isIdIndex } from '../../src/lib/index-keys';

/** Host names as servers give them (host:port, [v6]:port, a bare name): anything else is not kept. */
const HOST = '^[A-Za-z0-9._:%\\[\\]-]{0,255}$';
/** An ISO date, or the BSON type name given instead of one. */
const SINCE = '^(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z|[A-Za-z]{1,32})$';
const host = { type: 'string', pattern: HOST } as const;
const reason = { type: 'string', maxLength: 1000 } as const;

/** One `$indexStats` row of one member: who counted, how many operations, since when. */
const indexAccess = {
  type: 'object',
  required: ['host', 'ops', 'since'],
  additionalProperties: false,
  properties: {
    /** The member's `host` as `$indexStats` names it (host:port on MongoDB); empty when the row names none. */
    host,
    /** `accesses.ops`: operations that used the index since `since`. */
    ops: { type: 'integer', minimum: 0 },
    /**
     * `accesses.since` as an ISO date; when the server gave no date, the BSON type it gave instead (`null`,
     * `undefined`, `string`…): such counters cover no known time.
     */
    since: { type: 'string', pattern: SINCE },
  },
} as const;

/** Which replica-set members' `$indexStats` went into the accesses, and which could not be read, with the reason. */
const indexUsageMembers = {
  type: 'object',
  required: ['read', 'notRead'],
  additionalProperties: false,
  properties: {
    /** Hosts read (the connected member first, as `hello.me` names it). */
    read: { type: 'array', items: host },
    notRead: {
      type: 'array',
      items: {
        type: 'object',
        required: ['host', 'reason'],
        additionalProperties: false,
        properties: { host, reason },
      },
    },
    /** Set when hidden members could not be listed (hello omits them), with the reason. */
    hiddenUnknown: reason,
    /** Set when the member list could not be read at all: only the connected member was read. */
    listError: reason,
  },
} as const;

/** The index-usage collector's data for one collection. */
export const INDEX_USAGE_SCHEMA = {
  type: 'object',
  required: ['accesses'],
  additionalProperties: false,
  properties: {
    /** `$indexStats` rows per index name (listIndexes names only), one per member read. */
    accesses: { type: 'object', additionalProperties: { type: 'array', items: indexAccess } },
    /** Replica sets only: the members summed, and those not read. Absent on a standalone or through mongos. */
    members: indexUsageMembers,
  },
} as const;

export type IndexAccess = FromSchema<typeof indexAccess>;
export type IndexUsageMembers = FromSchema<typeof indexUsageMembers>;
export type IndexUsageData = FromSchema<typeof INDEX_USAGE_SCHEMA>;

/** The rows of one index, or none (an own property only: an index may be named like an Object method). */
export function accessesOf(data: IndexUsageData | undefined, index: string): IndexAccess[] | null {
  if (!data) return null;
  return Object.hasOwn(data.accesses, index) ? (data.accesses[index] ?? null) : null;
}

/** The data-bearing members of a replica set, as hello and (where allowed) replSetGetConfig list them. */
export interface MemberList {
  /** The member the adapter is connected to (`hello.me`): its $indexStats is read through the adapter itself. */
  self: string | null;
  /** Every other data-bearing member. */
  others: string[];
  /** Set when hidden members could not be listed, with the reason. */
  hiddenUnknown?: string;
}

/**
 * Members from `hello` (hosts and passives; arbiters hold no data) plus, from `replSetGetConfig`, hidden
 * members, which `hello` never lists. Pure: takes the two documented responses.
 */
export function memberList(hello: Doc, config: Doc | null, configError: string | null): MemberList {
  const self = typeof hello.me === 'string' ? hello.me : null;
  const listed = new Set<string>();
  for (const key of ['hosts', 'passives'] as const) {
    const hosts = hello[key];
    if (Array.isArray(hosts)) for (const h of hosts) if (typeof h === 'string') listed.add(h);
  }
  const arbiters = new Set(
    Array.isArray(hello.arbiters) ? hello.arbiters.filter((h): h is string => typeof h === 'string') : [],
  );
  let hiddenUnknown: string | undefined;
  const members = ((config?.config as Doc | undefined)?.members as Doc[] | undefined) ?? null;
  if (members) {
    for (const m of members) {
      if (typeof m.host !== 'string' || m.arbiterOnly === true) continue;
      if (m.hidden === true) listed.add(m.host);
    }
  } else {
    hiddenUnknown =
      `hello does not list them and replSetGetConfig was not answered ` +
      `(${configError ?? 'no config in the reply'})`;
  }
  const others = [...listed].filter((h) => h !== self && !arbiters.has(h)).sort();
  return { self, others, ...(hiddenUnknown ? { hiddenUnknown } : {}) };
}

const hostRe = new RegExp(HOST);
const sinceRe = new RegExp(SINCE);

function hostOf(v: unknown): string {
  return typeof v === 'string' && hostRe.test(v) ? v : '';
}

function opsOf(v: unknown): number {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'bigint') n = Number(v);
  else if (v && typeof v === 'object' && typeof (v as { toNumber?: unknown }).toNumber === 'function')
    n = (v as { toNumber(): number }).toNumber();
  else n = Number(v ?? 0);
  return Number.isFinite(n) && n > 0 ? Math.trunc(n) : 0;
}

/** `accesses.since` as an ISO date, or the BSON type of what the server gave instead (never the value). */
export function sinceOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'object') {
    if (isDate(v)) {
      const t = v.getTime();
      const iso = Number.isFinite(t) ? new Date(t).toISOString() : '';
      return sinceRe.test(iso) ? iso : 'invalidDate';
    }
    const tag = (v as { _bsontype?: unknown })._bsontype;
    return typeof tag === 'string' ? bsonTypeOfTag(tag, v) : Array.isArray(v) ? 'array' : 'object';
  }
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  return 'unknown';
}

/**
 * Adds one member's $indexStats rows to `accesses`, for the indexes listIndexes named. Rows whose `host` was already
 * read (the connected node seen under another name, or a server that does not name each member apart) are skipped, so
 * no counter is added twice. Returns the rows used and the host names skipped as already read.
 */
export function mergeMemberStats(
  accesses: Record<string, IndexAccess[]>,
  indexes: readonly { name: string }[],
  rows: readonly Doc[],
): { used: number; alreadyRead: string[] } {
  const names = new Set(indexes.map((i) => i.name));
  const seen = new Set(Object.values(accesses).flatMap((list) => list.map((a) => a.host)));
  const alreadyRead = new Set<string>();
  let used = 0;
  for (const s of rows) {
    const acc = s.accesses as { ops?: unknown; since?: unknown } | undefined;
    const name = s.name;
    if (typeof name !== 'string' || !names.has(name) || !acc || typeof acc !== 'object') continue;
    const host = hostOf(s.host);
    if (seen.has(host)) {
      alreadyRead.add(host);
      continue;
    }
    const row: IndexAccess = { host, ops: opsOf(acc.ops), since: sinceOf(acc.since) };
    if (Object.hasOwn(accesses, name)) accesses[name]?.push(row);
    else Object.defineProperty(accesses, name, { value: [row], enumerable: true, writable: true, configurable: true });
    used++;
  }
  return { used, alreadyRead: [...alreadyRead] };
}

async function indexStats(
  adapter: Adapter,
  c: Pick<CollectionSnapshot, 'db' | 'name'>,
  maxTimeMS: number,
): Promise<Doc[]> {
  return await commandCursor(
    adapter,
    c.db,
    { aggregate: c.name, pipeline: [{ $indexStats: {} }], cursor: {}, maxTimeMS },
    { maxTimeMS },
  );
}

/**
 * Reads one member's $indexStats for the collection into `accesses`; returns the reason its counters were not added,
 * or null. MongoDB documents `host` as the member's own hostname and port, so another member's rows naming a host
 * already read cannot be told apart from that member's: they are not added, and the member counts as not read.
 */
export async function readMember(
  member: Adapter,
  collection: Pick<CollectionSnapshot, 'db' | 'name' | 'indexes'>,
  maxTimeMS: number,
  accesses: Record<string, IndexAccess[]>,
): Promise<string | null> {
  let rows: Doc[];
  try {
    rows = await indexStats(member, collection, maxTimeMS);
  } catch (err) {
    return `$indexStats failed there: ${describeServerError(err)}`;
  }
  const { used, alreadyRead } = mergeMemberStats(accesses, collection.indexes, rows);
  if (used === 0 && alreadyRead.length > 0) {
    return (
      `its $indexStats rows name host ${alreadyRead.map((h) => JSON.stringify(h)).join(', ')}, whose counters ` +
      `were already read, so they could not be told apart from that member's and were not added twice`
    );
  }
  return null;
}

interface MemberPlan {
  list: MemberList | null;
  /** Why the member list could not be read at all. */
  error?: string;
  connections: Map<string, Promise<Adapter>>;
}

/** What one run learnt once, shared by its collections. */
interface RunState {
  /** Settles once the run's first $indexStats has its answer: the others wait for it, so a server without it is asked
   * once. */
  first: Promise<void> | null;
  /** Set when the server answered that it has no $indexStats at all (not a permission): the others do not ask. */
  lacks: string | null;
  /** Refusals already noted (by error code), so each is said once per run. */
  noted: Set<string>;
  /** hello, replSetGetConfig and the member connections: once per run, on a replica set only. */
  members: Promise<MemberPlan> | null;
}

/** The collector's state for this run (`ctx.run`: a later check() on the same connection asks and says it again). */
function runOf(ctx: CollectionContext): RunState {
  let run = ctx.run.get('state') as RunState | undefined;
  if (!run) {
    run = { first: null, lacks: null, noted: new Set(), members: null };
    ctx.run.set('state', run);
  }
  return run;
}

/** Error codes and messages that say the server has no $indexStats (rather than this user may not run it here). */
const UNSUPPORTED_CODES = new Set([59, 115, 238, 40324]);
const unsupported = (e: { code?: number; message: string }): boolean =>
  (e.code !== undefined && UNSUPPORTED_CODES.has(e.code)) ||
  /not (implemented|supported)|unrecognized pipeline stage|unknown pipeline stage/i.test(e.message);

/** The connected node's $indexStats; null (noted once per run and cause) when the server refuses it. */
async function readConnected(ctx: CollectionContext, run: RunState): Promise<Doc[] | null> {
  if (run.first) await run.first;
  if (run.lacks !== null) return null;
  let release: (() => void) | undefined;
  if (!run.first) run.first = new Promise<void>((resolve) => (release = resolve));
  try {
    return await indexStats(ctx.adapter, ctx.collection, ctx.maxTimeMS);
  } catch (err) {
    const e = asServerError(err);
    const denied = e.code === 13 || e.codeName === 'Unauthorized';
    const lacks = !denied && unsupported(e);
    if (lacks) run.lacks = describeServerError(err);
    const key = e.code !== undefined ? `code ${e.code}` : describeServerError(err);
    if (!run.noted.has(key)) {
      run.noted.add(key);
      const what = denied
        ? 'it needs the clusterMonitor role (or the indexStats action on the collection): grant it, or run as ' +
          'a user that has it, to have index use checked'
        : lacks
          ? 'this server does not have $indexStats, so index use is not checked on it'
          : 'index use is not checked where it fails';
      const answered = `index use (it answered ${describeServerError(err)})`;
      const gap = lacks ? { gap: gapOf(NO_INDEXSTATS, answered) } : {};
      ctx.note(
        `index use could not be read ($indexStats): ${describeServerError(err)}; ${what}. The same answer ` +
          `on other collections of this run is not repeated; index-usage names them.`,
        gap,
      );
    }
    return null;
  } finally {
    release?.();
  }
}

async function planFor(adapter: Adapter, maxTimeMS: number, run: RunState): Promise<MemberPlan> {
  run.members ??= (async (): Promise<MemberPlan> => {
    let hello: Doc;
    try {
      hello = await adapter.command('admin', { hello: 1 });
    } catch (err) {
      return { list: null, error: `hello failed: ${describeServerError(err)}`, connections: new Map() };
    }
    let config: Doc | null = null;
    let configError: string | null = null;
    try {
      config = await adapter.command('admin', { replSetGetConfig: 1, maxTimeMS });
    } catch (err) {
      configError = describeServerError(err);
    }
    const list = memberList(hello, config, configError);
    const connections = new Map<string, Promise<Adapter>>();
    if (adapter.connectMember) {
      for (const host of list.others) {
        const p = adapter.connectMember(host);
        p.catch(() => undefined);
        connections.set(host, p);
      }
    }
    return { list, connections };
  })();
  return await run.members;
}

/**
 * Every other member's $indexStats added to `accesses` (driver adapter: a direct connection per member, opened once per
 * run). Members it could not read are recorded with the reason, so the rule can say whose use is missing.
 */
async function readMembers(
  ctx: CollectionContext,
  run: RunState,
  accesses: Record<string, IndexAccess[]>,
): Promise<IndexUsageMembers> {
  const { adapter, collection: c, maxTimeMS } = ctx;
  const plan = await planFor(adapter, maxTimeMS, run);
  if (!plan.list) return { read: [], notRead: [], listError: plan.error ?? 'the member list could not be read' };
  const usage: IndexUsageMembers = { read: [hostOf(plan.list.self)], notRead: [] };
  if (plan.list.hiddenUnknown) usage.hiddenUnknown = plan.list.hiddenUnknown;
  for (const host of plan.list.others) {
    const conn = plan.connections.get(host);
    if (!conn) {
      usage.notRead.push({
        host,
        reason:
          `the ${adapter.kind} adapter has one connection and cannot open another; run the CLI with a ` +
          `connection string to read every member`,
      });
      continue;
    }
    let member: Adapter;
    try {
      member = await conn;
    } catch (err) {
      usage.notRead.push({ host, reason: `could not connect: ${describeServerError(err)}` });
      continue;
    }
    const problem = await readMember(member, c, maxTimeMS, accesses);
    if (problem) usage.notRead.push({ host, reason: problem });
    else usage.read.push(host);
  }
  return usage;
}

/**
 * Index use, for the index-usage rule: `$indexStats` on the connected node (one aggregate per collection with an index
 * besides `_id_`) and, on a replica set only, on every other member (hello and replSetGetConfig once per run, then one
 * aggregate per member and collection over a direct connection). Keeps index names, hosts, counts and start dates only.
 * A refusal is noted once per run; a server without `$indexStats` is asked once per run.
 */
export const indexUsageCollector = defineCollector<IndexUsageData, 'collection'>({
  id: 'index-usage',
  version: 1,
  scope: 'collection',
  description:
    '$indexStats per collection with an index besides _id_ (1 command each), summed over every replica-set ' +
    'member (replica sets only: hello and replSetGetConfig once per run, 1 command per other member and ' +
    'collection)',
  appliesTo: (c) => c.type === 'collection' && c.indexes.some((i) => !isIdIndex(c, i)),
  schema: INDEX_USAGE_SCHEMA,
  async collect(ctx) {
    const run = runOf(ctx);
    const rows = await readConnected(ctx, run);
    if (rows === null) return null;
    const accesses: Record<string, IndexAccess[]> = {};
    mergeMemberStats(accesses, ctx.collection.indexes, rows);
    // The probe read hello already: a standalone or mongos is never asked for its members.
    if (ctx.server.topology !== 'replicaSet') return { accesses };
    return { accesses, members: await readMembers(ctx, run, accesses) };
  },
});
