import type { Adapter } from './adapters/types';
import { collectSnapshot, type CollectOptions } from './collect';
import { confirmFindings, type ConfirmOptions } from './confirm';
import { UserError } from './core/errors';
import { checkTargets } from './core/names';
import type { AnyRule } from './core/rule';
import { analyze, type AnalyzeSettings, collectPlan, type ResolvedRule, resolveRules, ruleTables } from './core/runner';
import type { CheckResult, Snapshot } from './core/types';
import { SCRATCH_PREFIX } from './confirm/scratch';
import { VERSION } from './version';

/** The privilege checks without which no experiment starts (src/collect/privileges.ts PRIVILEGE_CHECKS). */
const SCRATCH_WRITES = new Set(['scratch collections', 'scratch copies', 'scratch cleanup']);

export interface CheckOptions extends Omit<CollectOptions, 'db'>, Omit<ConfirmOptions, 'settings'> {
  db: string;
  /** Run the scratch experiments (default true). */
  confirm?: boolean;
  settings?: AnalyzeSettings;
  /** Called with the snapshot before analysis (the CLI uses it for --save-snapshot). */
  onSnapshot?: (s: Snapshot) => void;
  /** The rules to run: the engine names none, so the front door passes the list in (rules/index.ts for the built-in
   * ones). */
  rules: readonly AnyRule[];
  /** Your own rules (made with `defineRule`), run beside `rules`; their ids must be new. */
  extraRules?: readonly AnyRule[];
  /**
   * The run's rules with their options resolved once (`loadConfig(...).resolved`, or `runRules`): collect, analyze and
   * confirm all read it. When given, `rules`, `extraRules` and `settings` are not read again.
   */
  resolved?: readonly ResolvedRule[];
}

/** A rule list plus a caller's own rules, checked for clashing ids. */
export function rulesWith(rules: readonly AnyRule[], extra: readonly AnyRule[] = []): readonly AnyRule[] {
  const ids = new Set(rules.map((r) => r.id));
  for (const r of extra) {
    if (ids.has(r.id))
      throw new UserError(`A rule with the id "${r.id}" is already registered: give your rule another id.`);
    ids.add(r.id);
  }
  return extra.length ? [...rules, ...extra] : rules;
}

/** The run's list: `opts.resolved`, else the rules plus the caller's, checked for clashing ids, resolved once. */
export function runRules(
  opts: Pick<CheckOptions, 'rules' | 'extraRules' | 'settings' | 'resolved'>,
): readonly ResolvedRule[] {
  return opts.resolved ?? resolveRules(rulesWith(opts.rules, opts.extraRules), opts.settings);
}

/** collect -> analyze -> confirm. The one entry point the CLI, the mongosh plugin and Node callers share. */
export async function check(adapter: Adapter, opts: CheckOptions): Promise<CheckResult> {
  const started = Date.now();
  const t0 = performance.now();
  const log = opts.log ?? (() => undefined);
  // Names MongoDB refuses, and the server's own databases, are a user error before any progress line or command.
  checkTargets([opts.db], opts.collections ?? []);
  // Options resolved once for the whole run; collect only what the enabled rules read (the plan), each collector with
  // its rules' options. The snapshot records which collectors ran, and with which options.
  const resolved = runRules(opts);
  const collectors = opts.collectors ?? collectPlan(resolved);
  // The experiments write to a scratch database on this server unless another one is given: the probe judges that too.
  const privilegeScratchDb = opts.confirm !== false && !opts.scratchAdapter ? `${SCRATCH_PREFIX}<run>` : null;
  // The first progress line once the names are known to exist: logged before, "collecting blog.blog" was the first
  // line of a mongosh advisor.check("blog") that then fell back to the database blog (no collection of that name).
  const onListed = (n: number): void => {
    log(`collecting ${opts.db}${opts.collections?.length ? `.${opts.collections.join(', ')}` : ''}`);
    opts.onListed?.(n);
  };
  const snapshot = await collectSnapshot(adapter, { ...opts, collectors, resolved, privilegeScratchDb, onListed });
  opts.onSnapshot?.(snapshot);
  return await analyzeAndConfirm(snapshot, adapter, { ...opts, resolved }, started, t0);
}

export async function analyzeAndConfirm(
  snapshot: Snapshot,
  adapter: Adapter | null,
  opts: CheckOptions,
  started = Date.now(),
  t0 = performance.now(),
): Promise<CheckResult> {
  const resolved = runRules(opts);
  const { findings, notes } = analyze(snapshot, resolved);
  for (const db of snapshot.databases) for (const c of db.collections) notes.push(...c.notes);
  notes.push(...snapshot.notes);
  let result = findings;
  let confirm: CheckResult['confirm'] = { enabled: false, where: null, cleanedUp: null };
  // Roles that cannot create, fill and drop the scratch database: no experiment is started (one line says why).
  const blocked =
    snapshot.privileges?.basis === 'roles' && !opts.scratchAdapter
      ? snapshot.privileges.skipped.filter((s) => SCRATCH_WRITES.has(s.check))
      : [];
  if (opts.confirm !== false && adapter && blocked.length > 0) {
    notes.push({
      level: 'skipped',
      message:
        `confirmation not started: your roles do not allow writing the scratch database ` +
        `(${blocked.map((b) => b.needs).join('; ')}), so no experiment ran and no finding is confirmed. Give ` +
        `the user a role that grants those actions on every database (docs/roles.md), run with --scratch-uri ` +
        `to a server where it may create and drop a database, or run with --no-confirm`,
    });
  } else if (opts.confirm !== false && adapter) {
    const run = await confirmFindings(snapshot, findings, adapter, resolved, opts);
    result = run.findings;
    confirm = { enabled: true, where: run.where, cleanedUp: run.cleanedUp };
    for (const n of run.notes) notes.push({ level: 'error', message: n });
  }
  // The rules' tables read the findings as reported: confirmed when the run confirmed.
  const { tables, notes: tableNotes } = ruleTables(snapshot, resolved, result);
  notes.push(...tableNotes);
  const db = snapshot.databases[0];
  return {
    tool: { name: 'mongo-advisor', version: VERSION },
    startedAt: new Date(started).toISOString(),
    durationMs: Math.round(performance.now() - t0),
    source: snapshot.source,
    server: {
      version: snapshot.server.version,
      flavor: snapshot.server.flavor,
      ...(snapshot.server.imitator ? { imitator: snapshot.server.imitator } : {}),
      storageEngine: snapshot.server.storageEngine,
      topology: snapshot.server.topology,
    },
    scope: { db: db?.name ?? opts.db, collections: db?.collections.map((c) => c.name) ?? [] },
    findings: result,
    notes,
    roundTrips: adapter ? adapter.roundTrips : snapshot.roundTrips,
    confirm,
    ...(snapshot.privileges ? { privileges: snapshot.privileges } : {}),
    ...(tables.length ? { tables } : {}),
  };
}
