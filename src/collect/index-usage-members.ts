import { commandCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { CollectionSnapshot, IndexUsageMembers } from '../core/types';
import { isDate } from './bson-size';
import type { CollectionCollectorContext } from './extras';

/** The data-bearing members of a replica set, as hello and (where allowed) replSetGetConfig list them. */
export interface MemberList {
  /** The member the adapter is connected to (`hello.me`): the core collect already read its $indexStats. */
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
  const arbiters = new Set(Array.isArray(hello.arbiters) ? hello.arbiters.filter((h): h is string => typeof h === 'string') : []);
  let hiddenUnknown: string | undefined;
  const members = ((config?.config as Doc | undefined)?.members as Doc[] | undefined) ?? null;
  if (members) {
    for (const m of members) {
      if (typeof m.host !== 'string' || m.arbiterOnly === true) continue;
      if (m.hidden === true) listed.add(m.host);
    }
  } else {
    hiddenUnknown = `hello does not list them and replSetGetConfig was not answered (${configError ?? 'no config in the reply'})`;
  }
  const others = [...listed].filter((h) => h !== self && !arbiters.has(h)).sort();
  return { self, others, ...(hiddenUnknown ? { hiddenUnknown } : {}) };
}

/**
 * Adds one member's $indexStats rows to the collection's indexes. Rows whose `host` was already read (the
 * connected node seen under another name, or a server that does not name each member apart) are skipped, so no
 * counter is added twice. Returns the rows used and the host names skipped as already read.
 */
export function mergeMemberStats(collection: CollectionSnapshot, rows: readonly Doc[]): { used: number; alreadyRead: string[] } {
  const seen = new Set(collection.indexes.flatMap((i) => (i.accesses ?? []).map((a) => a.host)));
  const alreadyRead = new Set<string>();
  let used = 0;
  for (const s of rows) {
    const ix = collection.indexes.find((i) => i.name === s.name);
    const acc = s.accesses as { ops?: unknown; since?: unknown } | undefined;
    const host = typeof s.host === 'string' ? s.host : '';
    if (!ix || !acc) continue;
    if (seen.has(host)) {
      alreadyRead.add(host);
      continue;
    }
    const since = acc.since;
    (ix.accesses ??= []).push({
      host,
      ops: acc.ops === undefined || acc.ops === null ? 0 : Number(acc.ops),
      since: since && typeof since === 'object' && isDate(since) ? since.toISOString() : String(since),
    });
    used++;
  }
  return { used, alreadyRead: [...alreadyRead] };
}

interface MemberPlan {
  list: MemberList | null;
  /** Why the member list could not be read at all. */
  error?: string;
  connections: Map<string, Promise<Adapter>>;
}

/** One plan per adapter: hello, replSetGetConfig and the member connections are made once per run, not per collection. */
const plans = new WeakMap<Adapter, Promise<MemberPlan>>();

async function planFor(adapter: Adapter, maxTimeMS: number): Promise<MemberPlan> {
  let plan = plans.get(adapter);
  if (!plan) {
    plan = (async (): Promise<MemberPlan> => {
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
    plans.set(adapter, plan);
  }
  return await plan;
}

/**
 * Reads one member's $indexStats for the collection; returns the reason its counters were not added, or null.
 * MongoDB documents `host` as the member's own hostname and port, so another member's rows naming a host already
 * read cannot be told apart from that member's: they are not added, and the member counts as not read.
 */
export async function readMember(member: Adapter, collection: CollectionSnapshot, maxTimeMS: number): Promise<string | null> {
  let rows: Doc[];
  try {
    rows = await commandCursor(member, collection.db, { aggregate: collection.name, pipeline: [{ $indexStats: {} }], cursor: {}, maxTimeMS }, { maxTimeMS });
  } catch (err) {
    return `$indexStats failed there: ${describeServerError(err)}`;
  }
  const { used, alreadyRead } = mergeMemberStats(collection, rows);
  if (used === 0 && alreadyRead.length > 0) {
    return `its $indexStats rows name host ${alreadyRead.map((h) => JSON.stringify(h)).join(', ')}, whose counters were already read, so they could not be told apart from that member's and were not added twice`;
  }
  return null;
}

/**
 * index-usage: sums $indexStats over every replica-set member. The core collect read the connected node;
 * this connects to each other member directly (driver adapter only) and adds its counters. Members it could
 * not read are recorded with the reason, so the rule can say whose use is missing. Standalone: nothing to do.
 */
export async function collectIndexUsageMembers(ctx: CollectionCollectorContext): Promise<void> {
  const { adapter, server, collection: c, maxTimeMS } = ctx;
  if (server.topology !== 'replicaSet' || server.capabilities.indexStats.supported !== true || c.indexes.length === 0) return;
  const plan = await planFor(adapter, maxTimeMS);
  const usage: IndexUsageMembers = { read: [], notRead: [] };
  if (!plan.list) {
    usage.notRead.push({ host: 'other members', reason: `the member list could not be read: ${plan.error ?? 'unknown'}` });
    c.indexUsageMembers = usage;
    return;
  }
  const coreRead = c.indexes.some((i) => i.accesses !== null);
  const self = plan.list.self ?? 'the connected member';
  if (coreRead) usage.read.push(self);
  else usage.notRead.push({ host: self, reason: 'its $indexStats could not be read (see the notes)' });
  if (plan.list.hiddenUnknown) usage.hiddenUnknown = plan.list.hiddenUnknown;
  for (const host of plan.list.others) {
    const conn = plan.connections.get(host);
    if (!conn) {
      usage.notRead.push({ host, reason: `the ${adapter.kind} adapter has one connection and cannot open another; run the CLI with a connection string to read every member` });
      continue;
    }
    let member: Adapter;
    try {
      member = await conn;
    } catch (err) {
      usage.notRead.push({ host, reason: `could not connect: ${describeServerError(err)}` });
      continue;
    }
    const problem = await readMember(member, c, maxTimeMS);
    if (problem) usage.notRead.push({ host, reason: problem });
    else usage.read.push(host);
  }
  c.indexUsageMembers = usage;
}
