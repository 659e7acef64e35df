import { commandCursor } from '../adapters/cursor';
import { readOnly } from '../adapters/read-only';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import { isSystemCollection, SYSTEM_DATABASES } from '../core/names';
import { type AnalyzeSettings, asResolved, type ResolvedRule } from '../core/options';
import type { AnyRule as Rule } from '../core/rule';
import type { Finding, Recommendation, Snapshot } from '../core/types';
import { type ConfirmContext, CONFIRM_DEFAULTS, type ConfirmSettings } from './context';
import { dropRepeatedIds } from './copy';
import { Budget } from './harness';
import { leftoverNotes } from './leftovers';
import { LoadAbort, LoadGuard, type LoadLimits, parseMaxLoad } from './load';
import { Scratch } from './scratch';

/** A finding's confirmation when the server refused writing the scratch database (the run's note says why). */
const REFUSED_SUMMARY = 'Not run: the server refused writing the scratch database (see the notes); nothing measured.';
function refusedConfirmation(where: string): Finding['confirmation'] {
  return { status: 'not-run', summary: REFUSED_SUMMARY, measurements: [], where, durationMs: 0 };
}

export interface ConfirmRun {
  findings: Finding[];
  where: string | null;
  cleanedUp: boolean | null;
  notes: string[];
}

export interface ConfirmOptions extends Partial<ConfirmSettings> {
  /** Where scratch collections go; the source server when absent. */
  scratchAdapter?: Adapter;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called as each experiment starts (progress bars): the finding, its position and how many will run. */
  onExperiment?: (finding: Finding, index: number, total: number) => void;
  /** Only when `confirmFindings` is given bare rules: the settings their options are resolved under. */
  settings?: AnalyzeSettings;
  /** Lets a caller (the CLI's Ctrl-C handler) reach the scratch database to drop it; its `plan` says how much it will
   * write. */
  onScratch?: (scratch: Scratch) => void;
  /** Load limits (`--max-load`, src/confirm/load.ts): pause above them, stop when it lasts. Defaults: MAX_LOAD. */
  maxLoad?: LoadLimits | string;
  /** Longest pause for load before confirmation stops (default 60 s). */
  maxLoadPauseMs?: number;
  /** Who runs (written in the scratch database's marker): 'cli', 'mongosh' or 'api' (default). */
  via?: string;
  /** The command that removes stale scratch databases, in the leftover note (default: the mongosh line per
   * database). */
  cleanupHint?: string;
}

/** One confirmation run's shared state: the scratch handle, the load guard and why it stopped, if it did. */
interface Session {
  scratch: Scratch;
  guard: LoadGuard;
  /** Aborted on the caller's signal (Ctrl-C) or when the load guard gives up. */
  stop: AbortController;
  /** The load guard's reason to stop, once it gave up. */
  loadStop: string | null;
  settings: ConfirmSettings;
  sourceDocs: ConfirmContext['sourceDocs'];
  log: (line: string) => void;
}

/** What the experiments run over: the findings to confirm, each rule as resolved for the run, the source read. */
interface Plan {
  todo: ReadonlySet<Finding>;
  byId: ReadonlyMap<string, ResolvedRule>;
  base: Pick<ConfirmContext, 'source' | 'snapshot'>;
}

/** The findings whose rule has an experiment that applies to them. */
function experimentsFor(findings: readonly Finding[], byId: ReadonlyMap<string, ResolvedRule>): Set<Finding> {
  return new Set(
    findings.filter((f) => {
      const c = byId.get(f.ruleId)?.rule.confirm;
      return c !== undefined && f.messageId !== 'internalError' && (c.appliesTo?.(f) ?? true);
    }),
  );
}

/** The scratch handle, with the load guard checked before each write, and the signal that stops the experiments. */
function openSession(
  target: Adapter,
  [experiments, copyMost]: [number, number],
  settings: ConfirmSettings,
  sourceDocs: Session['sourceDocs'],
  opts: ConfirmOptions,
): Session {
  // The scratch handle gets the connection itself (it must write), behind its own gate: only the scratch database.
  const scratch = new Scratch(target, undefined, opts.via ?? 'api');
  scratch.plan = { experiments, maxDocs: copyMost, maxBytes: settings.maxBytes };
  const log = opts.log ?? (() => undefined);
  const stop = new AbortController();
  const guard = new LoadGuard(readOnly(target), {
    limits: typeof opts.maxLoad === 'string' ? parseMaxLoad(opts.maxLoad) : (opts.maxLoad ?? undefined),
    ...(opts.maxLoadPauseMs !== undefined ? { maxPauseMs: opts.maxLoadPauseMs } : {}),
    signal: stop.signal,
    log,
  });
  const session: Session = { scratch, guard, stop, loadStop: null, settings, sourceDocs, log };
  scratch.beforeWrite = async () => {
    try {
      await guard.check();
    } catch (err) {
      if (err instanceof LoadAbort) {
        session.loadStop ??= err.message;
        stop.abort();
      }
      throw err;
    }
  };
  return session;
}

/**
 * The most documents one experiment of the run may copy, for the consent line: the run's maxDocs, or more when an
 * experiment asks past it (`confirm.copyDocs`, the index proof) and the user did not choose maxDocs.
 */
function copyMostOf(todo: ReadonlySet<Finding>, byId: ReadonlyMap<string, ResolvedRule>, s: ConfirmSettings): number {
  if (s.maxDocsChosen) return s.maxDocs;
  const asked = [...todo].map((f) => {
    const r = byId.get(f.ruleId);
    return r?.rule.confirm?.copyDocs?.(r.options) ?? 0;
  });
  return Math.max(s.maxDocs, ...asked);
}

/** Reads each (collection, filter, limit) of the source once per run: several experiments copy the same collection. */
function sharedSourceDocs(source: Adapter, snapshot: Snapshot, settings: ConfirmSettings): Session['sourceDocs'] {
  const copies = new Map<string, Promise<Doc[]>>();
  return (db, coll, o) => {
    const key = JSON.stringify([db, coll, o?.limit ?? null, o?.filter ?? null, o?.pastMaxDocs === true, o?.avgBytes]);
    let read = copies.get(key);
    if (!read) {
      read = readSourceDocs(source, snapshot, db, coll, settings, o);
      read.catch(() => copies.delete(key)); // a failed read is retried by the next experiment
      copies.set(key, read);
    }
    return read;
  };
}

/** Why this experiment is not run (the load guard stopped, the scratch database was refused); null when it may run. */
async function notRunReason(s: Session): Promise<Finding['confirmation'] | null> {
  if (!s.stop.signal.aborted && s.loadStop === null) {
    try {
      await s.guard.check(true);
    } catch (err) {
      if (!(err instanceof LoadAbort)) throw err;
      s.loadStop = err.message;
      s.stop.abort();
    }
  }
  if (s.loadStop !== null) {
    const summary = `Not run: ${s.loadStop}`;
    return { status: 'not-run', summary, measurements: [], where: s.scratch.where, durationMs: 0 };
  }
  if (s.scratch.refused !== null) return refusedConfirmation(s.scratch.where);
  return null;
}

/** A finding's confirmation when the caller stopped the run (Ctrl-C in mongosh) before its experiment began. */
function interruptedConfirmation(s: Session): Finding['confirmation'] {
  const summary = 'Not run: the run was interrupted before this experiment began; nothing measured.';
  return { status: 'not-run', summary, measurements: [], where: s.scratch.where, durationMs: 0 };
}

/** Runs one finding's experiment with its rule's resolved options and attaches the result to `f`. */
async function runExperiment(
  s: Session,
  ctx: ConfirmContext,
  f: Finding,
  r: ResolvedRule,
  interrupted: () => boolean,
): Promise<void> {
  const started = performance.now();
  try {
    const result = await r.rule.confirm!.run(ctx, f, r.options);
    f.confirmation = { ...result, where: s.scratch.where, durationMs: performance.now() - started };
    if (result.status === 'refuted' && f.recommendation) f.recommendation = withdrawn(f.recommendation);
  } catch (err) {
    const stopped = interrupted();
    const load: string | null = s.loadStop;
    f.confirmation = {
      status: stopped || load !== null ? 'not-run' : 'error',
      summary: stopped
        ? 'Interrupted before the measurement finished.'
        : load !== null
          ? `Not finished: ${String(load)}`
          : `${describeServerError(err)}; nothing was measured.`,
      measurements: [],
      where: s.scratch.where,
      durationMs: performance.now() - started,
    };
  }
  // The scratch database refused its first write: whatever the experiment said, nothing was measured.
  if (s.scratch.refused !== null) f.confirmation = refusedConfirmation(s.scratch.where);
}

/** Each finding, copied, in order; those with an experiment get its confirmation. */
async function runAll(s: Session, findings: readonly Finding[], plan: Plan, opts: ConfirmOptions): Promise<Finding[]> {
  const { todo, byId } = plan;
  const out: Finding[] = [];
  let experiments = 0;
  for (const original of findings) {
    const f = { ...original };
    out.push(f);
    if (!todo.has(original)) continue;
    const notRun = await notRunReason(s);
    if (notRun) f.confirmation = notRun;
    else if (s.stop.signal.aborted && opts.signal?.aborted === true) f.confirmation = interruptedConfirmation(s);
    if (notRun || s.stop.signal.aborted) continue;
    const budget = new Budget(s.settings.budgetMs, s.stop.signal);
    const { scratch, settings, sourceDocs, log } = s;
    const ctx: ConfirmContext = { ...plan.base, scratch, settings, budget, sourceDocs, log };
    opts.onExperiment?.(original, experiments, todo.size);
    experiments++;
    // One line per experiment, with its number and budget: mongosh and CI logs show it as it starts.
    const on = `${f.target.db}.${f.target.collection ?? ''}${f.target.path ? ` (${f.target.path})` : ''}`;
    const budgetS = Math.round(s.settings.budgetMs / 1000);
    s.log(`confirming ${experiments} of ${todo.size}: ${f.ruleId} on ${on}, budget ${budgetS} s`);
    await runExperiment(s, ctx, f, byId.get(f.ruleId) as ResolvedRule, () => opts.signal?.aborted === true);
  }
  return out;
}

/** What the run leaves to say once the scratch database is gone: the load guard's stop, a refused first write. */
function closingNotes(s: Session): string[] {
  const notes: string[] = [];
  if (s.loadStop !== null) notes.push(`mongo-advisor ${s.loadStop}`);
  if (s.scratch.refused !== null) {
    notes.push(
      `confirmation not run: the server refused the first write to the scratch database ${s.scratch.db} ` +
        `(${s.scratch.refused}), so nothing was written there and no experiment ran. Run with --scratch-uri to a ` +
        'server where the user may create and drop a database, or with --no-confirm',
    );
  }
  return notes;
}

/**
 * The only writer. For each finding whose rule has an experiment, runs it against a scratch
 * database and attaches the result. The scratch database is dropped at the end, whatever happened.
 * Experiments read the source only through `readOnly(source)` and write only through the Scratch handle, which
 * sends nothing outside its mongo_advisor_scratch_ database (src/adapters/read-only.ts).
 *
 * `rules` is the run's list (`resolveRules`): each experiment gets its rule's options as resolved there. Bare rules
 * (tests) are resolved once here, under `opts.settings`.
 */
export async function confirmFindings(
  snapshot: Snapshot,
  findings: Finding[],
  given: Adapter,
  rules: readonly Rule[] | readonly ResolvedRule[],
  opts: ConfirmOptions = {},
): Promise<ConfirmRun> {
  const source = readOnly(given);
  const settings: ConfirmSettings = {
    maxDocs: opts.maxDocs ?? CONFIRM_DEFAULTS.maxDocs,
    maxBytes: opts.maxBytes ?? CONFIRM_DEFAULTS.maxBytes,
    budgetMs: opts.budgetMs ?? CONFIRM_DEFAULTS.budgetMs,
    maxDocsChosen: opts.maxDocs !== undefined,
  };
  const byId = new Map(asResolved(rules, opts.settings).map((r) => [r.rule.id, r]));
  const todo = experimentsFor(findings, byId);
  const target = opts.scratchAdapter ?? given;
  // Stale scratch databases of earlier runs (their marker's pid is gone, or they are old): said, never reused.
  const hint = opts.cleanupHint ?? 'mongo-advisor cleanup <uri> (or advisor.cleanup() in mongosh)';
  const notes: string[] = await leftoverNotes(target, hint);
  if (todo.size === 0) return { findings, where: null, cleanedUp: null, notes };

  const s = openSession(
    target,
    [todo.size, copyMostOf(todo, byId, settings)],
    settings,
    sharedSourceDocs(source, snapshot, settings),
    opts,
  );
  const onAbort = (): void => s.stop.abort();
  opts.signal?.addEventListener('abort', onAbort);
  if (opts.signal?.aborted) s.stop.abort();
  opts.onScratch?.(s.scratch);
  let out: Finding[];
  try {
    out = await runAll(s, findings, { todo, byId, base: { source, snapshot } }, opts);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    // A step of its own: without this line the heartbeat kept naming the last experiment, which had finished.
    s.log(`dropping the scratch database ${s.scratch.db}`);
    const problem = await s.scratch.cleanup();
    notes.push(...s.scratch.notes);
    if (problem) notes.push(problem);
  }
  notes.push(...closingNotes(s));
  return { findings: out, where: s.scratch.where, cleanedUp: s.scratch.cleanedUp, notes };
}

/**
 * A recommendation whose experiment refuted its claim is never printed unchanged: it reads as withdrawn, with what it
 * was, and loses its commands (nobody should paste them). The same in every output, JSON, SARIF and JUnit included.
 */
export function withdrawn(r: Recommendation): Recommendation {
  return {
    action: `Withdrawn: ${r.action}`,
    reason:
      'the experiment on a scratch copy refuted the claim this advice rests on (see its result), so nothing is ' +
      `recommended on this evidence. The advice rested on this: ${r.reason}`,
  };
}

/**
 * A collection's average document size: $collStats' first; a server that reports 0 (SecantusDB) falls back to the
 * sampled documents' sizes, so a copy stays bounded by bytes whatever the server says. 0 when neither is known.
 */
export function averageDocBytes(snapshot: Snapshot, db: string, coll: string): number {
  const c = snapshot.databases?.find((d) => d.name === db)?.collections.find((x) => x.name === coll);
  const sampled = c?.sample.docs ?? [];
  const sampledAvg = sampled.length ? sampled.reduce((s, d) => s + d.bytes, 0) / sampled.length : 0;
  return (c?.stats?.avgObjSize ?? 0) > 0 ? (c?.stats?.avgObjSize ?? 0) : sampledAvg;
}

async function readSourceDocs(
  source: Adapter,
  snapshot: Snapshot,
  db: string,
  coll: string,
  settings: ConfirmSettings,
  o: { limit?: number; filter?: Doc; pastMaxDocs?: boolean; avgBytes?: number } = {},
): Promise<Doc[]> {
  // The server's own data (local, config, system.*) is never copied into a scratch database, whatever a rule asks.
  if (SYSTEM_DATABASES.has(db) || isSystemCollection(coll)) {
    const ns = `${db}.${coll}`;
    throw new Error(`not copied: ${ns} holds the server's own data, which is never copied into a scratch database`);
  }
  const avg = averageDocBytes(snapshot, db, coll) || (o.avgBytes ?? 0);
  const byBytes = avg > 0 ? Math.max(1, Math.floor(settings.maxBytes / avg)) : settings.maxDocs;
  // Past maxDocs only when asked, when the user did not choose it, and when the byte bound can be kept (avg known).
  const past = o.pastMaxDocs === true && settings.maxDocsChosen !== true && avg > 0;
  const most = past ? Infinity : settings.maxDocs;
  const limit = Math.min(o.limit ?? settings.maxDocs, most, byBytes);
  const maxTimeMS = 30_000;
  const head: Doc[] = o.filter ? [{ $match: o.filter }] : [];
  const sample = [...head, { $sample: { size: limit } }];
  const read =
    snapshot.server.capabilities.sample.supported === true
      ? commandCursor(source, db, { aggregate: coll, pipeline: sample, cursor: {}, maxTimeMS }, { maxTimeMS })
      : commandCursor(source, db, { find: coll, filter: o.filter ?? {}, limit, maxTimeMS }, { limit, maxTimeMS });
  // $sample may return a document twice: every experiment gets each _id once (src/confirm/copy.ts).
  return dropRepeatedIds(await read).docs;
}
