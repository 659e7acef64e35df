import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { AnyCollector, CollectorScope, GivenWorkload, ListedCollection, RuleOptions } from '../core/collector';
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
      workload?: GivenWorkload;
    },
  ) {
    for (const c of plan) {
      this.couldNot.set(c.id, new Set());
      this.state.set(c.id, new Map());
      const needing = (base.resolved ?? []).filter((r) => r.rule.needs?.some((n) => n.id === c.id));
      this.options.set(c.id, new Map(needing.map((r) => [r.rule.id, r.options])));
    }
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

  async database(database: DatabaseSnapshot, listed: readonly ListedCollection[]): Promise<void> {
    const data: Record<string, unknown> = {};
    for (const c of this.of('database')) {
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
    const { adapter, server, maxTimeMS, serverStatus, workload } = this.base;
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
