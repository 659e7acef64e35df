import type { Adapter, Doc } from './adapter';
import type { CapabilityName, CollectionSnapshot, DatabaseSnapshot, Gap, Note, ServerInfo, Target } from './types';

/**
 * The collector contract. A collector reads one kind of server data for the rules that name it in `needs`; the
 * engine runs it only when an enabled rule needs it, at its scope (once per run, per database or per collection),
 * through the read-only gate, and stores what it returns under its id (`data[id]` of the snapshot, the database or
 * the collection). It mutates nothing shared: it gets copies to read and returns its data.
 *
 * A collector that belongs to one rule lives in that rule's folder (`rules/<id>/collect.ts`); one that several rules
 * read lives in src/collect (the server status, for instance).
 */
export type CollectorScope = 'deployment' | 'database' | 'collection';

interface ContextBase {
  /** Read-only: a command that is not a read throws before it is sent (src/adapters/read-only.ts). */
  adapter: Adapter;
  server: Readonly<ServerInfo>;
  /** maxTimeMS to put on every command. */
  maxTimeMS: number;
  /** The serverStatus reply the probe read when the plan asked for it (never stored); null otherwise. */
  serverStatus: Doc | null;
  /**
   * Says what the collector could not read and why: printed under "Could not check" and recorded in the snapshot's
   * collector list. Never throw for a server refusal: note it and return what you have (or null).
   */
  /** `gap`: the server gap behind it, when other places can hit the same one (src/core/gaps.ts). */
  note(message: string, opts?: { level?: Note['level']; target?: Target; gap?: Gap }): void;
  /**
   * This collector's own state for the run (one map per collector per run, empty at the start): what a collection
   * collector learns once and reuses on the next collections, e.g. that the server refuses a command.
   */
  run: Map<string, unknown>;
  /**
   * The resolved options of the run's enabled rules that need this collector, by rule id (src/core/options.ts
   * `resolveRules`): the values analyze and confirm will read. Empty when none of them runs, e.g. `collect` given
   * collectors without a resolved list: read the rule's defaults then (`optionsOf`). What it read is recorded in
   * `snapshot.collectors[].options`. Optional so contexts made by hand (tests) need not name it; the engine always
   * sets it.
   */
  options?: RuleOptions;
  /**
   * Operations the run was given (`--log`, `--queries`), for the collectors that read a workload (`readsWorkload`);
   * absent: none. Always settled here: the runner waits for a workload still being read before it builds this.
   */
  workload?: GivenWorkload;
}

/**
 * Operations a run was given instead of reading them from the server (a slow-query log, a queries file): records of
 * the workload room (src/workload/record.ts), opaque to the engine, which hands them on untouched. Their commands
 * are user data: kept in memory, never stored or printed.
 */
export interface GivenWorkload {
  /** What they were read from, for notes ("the log mongod.log"): never a value. */
  from: string;
  /** Records given whole (the Node API, tests): folded by the collector that reads them. */
  records?: readonly unknown[];
  /**
   * The records folded as they were read (the CLI: src/workload/tally.ts), per-shape sums and a few real instances
   * each, so a log of any length costs the memory of its shapes. Opaque here too.
   */
  folded?: unknown;
  /** The user vouched that the records are every operation, not only slow ones (`--workload-complete`). */
  complete?: boolean;
}

/**
 * The workload a run is given, or one still being read: the CLI reads `--log` while the server work runs (the reading
 * is CPU in this process, the collect mostly waits on the server), and the runner waits for it only before a
 * collector that reads it. Settling to undefined means none was given; a rejection fails the collect with its error.
 */
export type PendingWorkload = GivenWorkload | PromiseLike<GivenWorkload | undefined>;

/** Resolved options by rule id, as a collector gets them. */
export type RuleOptions = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** A rule's resolved options as the collector context has them, typed; `defaults` when the run has none for it. */
export function optionsOf<O>(ctx: { options?: RuleOptions }, ruleId: string, defaults: O): O {
  return (ctx.options?.get(ruleId) as O | undefined) ?? defaults;
}

/** A collection as listCollections described it. */
export interface ListedCollection {
  name: string;
  type: string;
  options: Doc;
}

export interface CollectionContext extends ContextBase {
  /** The core facts of the collection (stats, indexes, the sample's profile), as a frozen copy. */
  collection: Readonly<CollectionSnapshot>;
  /**
   * The sampled documents pulled whole, for in-process measurements: `docs[i]` is `collection.sample.docs[i]` (those
   * measured on the server follow them in sample.docs and are not here). Never return them or any value from them.
   */
  docs: readonly Doc[];
  /** The `_id`s of the sample, in sample order (documents measured on the server included). */
  ids: readonly unknown[];
  /**
   * `_id`s in natural order that the core already read (a whole read, or the `_id` scan of a server without
   * `$sample`), from the first document on; null when it read none. A collector that needs natural order uses these
   * instead of a read of its own.
   */
  naturalIds: readonly unknown[] | null;
  /** The collection's listCollections entry (its options: validator, clusteredIndex, …), as the core read it. */
  listed: Readonly<ListedCollection>;
}

export interface DatabaseContext extends ContextBase {
  db: string;
  collections: readonly CollectionSnapshot[];
  /** Every entry of the database's listCollections (views, system collections included). */
  listed: readonly ListedCollection[];
  /**
   * The data the database collectors that ran before this one returned for this database, by id: read it with
   * `dataOf(collector, { data })`, never change it. The plan runs collectors in the order the rules' `needs` first name
   * them, so a rule that lists a shared collector before its own reads the shared data here instead of reading the
   * server again (embed-reference reads the workload collector's shapes and inserts). Optional so contexts made by
   * hand (tests) need not name it; the engine always sets it.
   */
  data?: Readonly<Record<string, unknown>>;
}

export interface DeploymentContext extends ContextBase {
  /** The databases this run reads. */
  databases: readonly DatabaseSnapshot[];
  /** listDatabases names when the core read them already (saves a round trip); null when it did not. */
  databaseNames: readonly string[] | null;
  /** listCollections of each database this run read, by name (saves a round trip per database). */
  listed: Readonly<Record<string, readonly ListedCollection[]>>;
}

export interface ContextOf {
  deployment: DeploymentContext;
  database: DatabaseContext;
  collection: CollectionContext;
}

export interface Collector<D = unknown, S extends CollectorScope = CollectorScope> {
  /** Unique; the key of its data. A rule's own collectors are named `<rule id>` or `<rule id>/<what>`. */
  id: string;
  /** Bump when the data's shape changes: a snapshot records the version each collector ran at. */
  version: number;
  scope: S;
  /** One line: what it reads, in commands. */
  description: string;
  /** Capabilities proven before it runs; when one is proven missing, it does not run and the snapshot says why. */
  capabilities?: readonly CapabilityName[];
  /** The probe reads serverStatus once for every collector that sets this (it needs the clusterMonitor role). */
  serverStatus?: boolean;
  /**
   * It reads `ctx.workload` (database scope): a workload still being read is waited for before this collector runs,
   * and only before it (and the database collectors after it, which may read its data).
   */
  readsWorkload?: boolean;
  /** JSON Schema of its data: a loaded snapshot is checked against it. Keep it strict: it is what keeps values out. */
  schema: Record<string, unknown>;
  /** Only collections whose data it reads (collection scope): ordinary collections with documents by default. */
  appliesTo?: (collection: Readonly<CollectionSnapshot>) => boolean;
  collect(ctx: ContextOf[S]): Promise<D | null>;
}

export type AnyCollector = Collector<unknown, CollectorScope>;

/** A collector; typed so `dataOf(collector, …)` hands rules the data with its type. */
export function defineCollector<D, S extends CollectorScope>(collector: Collector<D, S>): Collector<D, S> {
  return collector;
}

/** Where a collector's data is kept: the snapshot (deployment), a database or a collection. */
export interface HoldsData {
  data?: Record<string, unknown>;
}

/**
 * The data a collector stored on the snapshot, a database or a collection; undefined when it did not run there (see
 * `ranCollector`) or found nothing to record.
 */
export function dataOf<D>(
  collector: Collector<D, CollectorScope>,
  holder: HoldsData | null | undefined,
): D | undefined {
  return holder?.data?.[collector.id] as D | undefined;
}

/** The collectors the given rules need, each once, in the order first named. */
export function collectorsOf(rules: readonly { needs?: readonly AnyCollector[] }[]): AnyCollector[] {
  const byId = new Map<string, AnyCollector>();
  for (const r of rules) {
    for (const c of r.needs ?? []) {
      const known = byId.get(c.id);
      if (known && known !== c) throw new Error(`two different collectors share the id "${c.id}"`);
      byId.set(c.id, c);
    }
  }
  return [...byId.values()];
}
