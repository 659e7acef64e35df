import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type {
  AnyCollector,
  CollectorScope,
  GivenWorkload,
  ListedCollection,
  PendingWorkload,
  RuleOptions,
} from '../core/collector';
import type { ResolvedRule } from '../core/options';
import type {
  CollectionSnapshot,
  CollectorRun,
  DatabaseSnapshot,
  Gap,
  Note,
  ServerInfo,
  Snapshot,
  Target,
} from '../core/types';

const MAX_COULD_NOT = 20;

/**
 * Runs the planned collectors at their scopes and keeps what each could not do. A collector gets the read-only
 * adapter, a note function and what it reads; what it returns is stored under its id. A collector that throws costs
 * its own data only: the error becomes a note, the run goes on.
 */
export class CollectorRunner {
  private readonly couldNot = new Map<string, Set<string>>();
  private readonly state = new Map<string, Map<string, unknown>>();
  private readonly options = new Map<string, RuleOptions>();
  /** The given workload once settled (what collectors read). */
  private workload: GivenWorkload | undefined;
  /** A workload still being read when the run started: waited for once, by the first collector that reads it. */
  private readonly pending: Promise<void> | null;
  /** Each database's collector data so far: a database's collectors may run in two parts (`database`). */
  private readonly dbData = new Map<string, Record<string, unknown>>();

  /** `base.resolved`: the run's rules and their resolved options; each collector gets those of the rules needing it. */
  constructor(
    private readonly plan: readonly AnyCollector[],
    private readonly base: {
      adapter: Adapter;
      server: ServerInfo;
      maxTimeMS: number;
      serverStatus: Doc | null;
      runNotes: Note[];
      resolved?: readonly ResolvedRule[];
      workload?: PendingWorkload;
    },
  ) {
    const w = base.workload;
    if (w !== undefined && typeof (w as PromiseLike<unknown>).then === 'function') {
      this.pending = Promise.resolve(w as PromiseLike<GivenWorkload | undefined>).then((given) => {
        this.workload = given;
      });
      // Its rejection is the caller's to see (through `workloadRead`); not an unhandled one if no collector waits.
      this.pending.catch(() => undefined);
    } else {
      this.pending = null;
      this.workload = w as GivenWorkload | undefined;
    }
    for (const c of plan) {
      this.couldNot.set(c.id, new Set());
      this.state.set(c.id, new Map());
      const needing = (base.resolved ?? []).filter((r) => r.rule.needs?.some((n) => n.id === c.id));
      this.options.set(c.id, new Map(needing.map((r) => [r.rule.id, r.options])));
    }
  }

  /**
   * Whether the workload was given still being read: then a database's collectors run in two parts, those before the
   * first that reads the workload with the database's collections, the rest once every database is read (so waiting
   * for the log does not hold a lane that could read the next database).
   */
  get workloadPending(): boolean {
    return this.pending !== null;
  }

  /** Resolves once the given workload is read; rejects with the reading's error (the collect then fails with it). */
  async workloadRead(): Promise<void> {
    await this.pending;
  }

  private of(scope: CollectorScope): AnyCollector[] {
    return this.plan.filter((c) => c.scope === scope);
  }

  /** Records a note where it belongs and in the collector's "could not" list. */
  private noteFor(c: AnyCollector, into: Note[], where: Target | undefined) {
    return (message: string, opts: { level?: Note['level']; target?: Target; gap?: Gap } = {}): void => {
      const target = opts.target ?? where;
      const gap = opts.gap ? { gap: opts.gap } : {};
      into.push({ level: opts.level ?? 'skipped', ...(target ? { target } : {}), message, collector: c.id, ...gap });
      const list = this.couldNot.get(c.id);
      if (list && list.size < MAX_COULD_NOT) list.add(message);
    };
  }

  /** A capability the collector needs and the server lacks (or could not be asked about), as a reason; null when all
   * are proven. */
  private missing(c: AnyCollector): string | null {
    const lacking = (c.capabilities ?? []).filter((name) => this.base.server.capabilities[name].supported !== true);
    if (lacking.length === 0) return null;
    return (
      `${c.id}: not collected: the server ` +
      `lacks ${lacking.map((n) => `${n} (${this.base.server.capabilities[n].evidence})`).join(', ')}`
    );
  }

  private async run<T>(
    c: AnyCollector,
    note: (m: string, o?: { level?: Note['level'] }) => void,
    go: () => Promise<T>,
  ): Promise<T | null> {
    const lacking = this.missing(c);
    if (lacking) {
      this.couldNot.get(c.id)?.add(lacking);
      return null;
    }
    try {
      return await go();
    } catch (err) {
      note(`${c.id} could not read its data: ${describeServerError(err)}`, { level: 'error' });
      return null;
    }
  }

  async collection(
    snap: CollectionSnapshot,
    listed: ListedCollection,
    docs: readonly Doc[],
    ids: readonly unknown[],
    naturalIds: readonly unknown[] | null = null,
  ): Promise<void> {
    const data: Record<string, unknown> = {};
    for (const c of this.of('collection')) {
      const applies = c.appliesTo ? c.appliesTo(snap) : snap.type === 'collection';
      if (!applies) continue;
      const note = this.noteFor(c, snap.notes, { db: snap.db, collection: snap.name });
      const out = await this.run(c, note, () =>
        (c as AnyCollector & { scope: 'collection' }).collect({
          ...this.ctx(c, note),
          collection: snap,
          listed,
          docs,
          ids,
          naturalIds,
        }),
      );
      if (out !== null && out !== undefined) data[c.id] = out;
    }
    if (Object.keys(data).length > 0) snap.data = data;
  }

  /**
   * A database's collectors, in plan order: all of them, or (`part`) those before the first that reads the workload,
   * or that one and the rest. A collector that reads the workload waits for it here, outside `run`: a log that fails
   * fails the collect, it is no note.
   */
  async database(
    database: DatabaseSnapshot,
    listed: readonly ListedCollection[],
    part: 'all' | 'before-workload' | 'from-workload' = 'all',
  ): Promise<void> {
    const all = this.of('database');
    const split = all.findIndex((c) => c.readsWorkload === true);
    const at = split < 0 ? all.length : split;
    const planned = part === 'all' ? all : part === 'before-workload' ? all.slice(0, at) : all.slice(at);
    const data = this.dbData.get(database.name) ?? {};
    this.dbData.set(database.name, data);
    for (const c of planned) {
      if (c.readsWorkload) await this.workloadRead();
      const note = this.noteFor(c, this.base.runNotes, { db: database.name });
      const out = await this.run(c, note, () =>
        (c as AnyCollector & { scope: 'database' }).collect({
          ...this.ctx(c, note),
          db: database.name,
          collections: database.collections,
          listed,
          // the earlier collectors' data as it stands: a copy, so the collector cannot add to this database's
          data: Object.freeze({ ...data }),
        }),
      );
      if (out !== null && out !== undefined) data[c.id] = out;
    }
    if (Object.keys(data).length > 0) database.data = data;
  }

  async deployment(
    snapshot: Snapshot,
    databaseNames: readonly string[] | null,
    listed: Record<string, readonly ListedCollection[]>,
  ): Promise<void> {
    const data: Record<string, unknown> = {};
    for (const c of this.of('deployment')) {
      const note = this.noteFor(c, this.base.runNotes, undefined);
      const out = await this.run(c, note, () =>
        (c as AnyCollector & { scope: 'deployment' }).collect({
          ...this.ctx(c, note),
          databases: snapshot.databases,
          databaseNames,
          listed,
        }),
      );
      if (out !== null && out !== undefined) data[c.id] = out;
    }
    if (Object.keys(data).length > 0) snapshot.data = data;
  }

  private ctx(
    c: AnyCollector,
    note: (message: string, opts?: { level?: Note['level']; target?: Target; gap?: Gap }) => void,
  ) {
    const run = this.state.get(c.id) ?? new Map<string, unknown>();
    const options = this.options.get(c.id) ?? new Map<string, Readonly<Record<string, unknown>>>();
    const { adapter, server, maxTimeMS, serverStatus } = this.base;
    const workload = this.workload;
    return { adapter, server, maxTimeMS, serverStatus, note, run, options, ...(workload ? { workload } : {}) };
  }

  /**
   * The snapshot's record of the plan: each collector, its version, what it could not do and the options it read
   * (by rule id, when rules needing it had options resolved for the run).
   */
  record(): CollectorRun[] {
    return this.plan.map((c) => {
      const options = this.options.get(c.id);
      return {
        id: c.id,
        version: c.version,
        scope: c.scope,
        couldNot: [...(this.couldNot.get(c.id) ?? [])],
        ...(options && options.size > 0 ? { options: Object.fromEntries(options) } : {}),
      };
    });
  }
}
