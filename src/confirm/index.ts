import { commandCursor } from '../adapters/cursor';
import { readOnly } from '../adapters/read-only';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import { isSystemCollection, SYSTEM_DATABASES } from '../core/names';
import type { AnyRule as Rule } from '../core/rule';
import { type AnalyzeSettings, resolveRuleOptions } from '../core/runner';
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
  settings?: AnalyzeSettings;
  /** Lets a caller (the CLI's Ctrl-C handler) reach the scratch database to drop it; its `plan` says how much it will write. */
  onScratch?: (scratch: Scratch) => void;
  /** Load limits (`--max-load`, src/confirm/load.ts): pause above them, stop when it lasts. Defaults: MAX_LOAD. */
  maxLoad?: LoadLimits | string;
  /** Longest pause for load before confirmation stops (default 60 s). */
  maxLoadPauseMs?: number;
  /** Who runs (written in the scratch database's marker): 'cli', 'mongosh' or 'api' (default). */
  via?: string;
  /** The command that removes stale scratch databases, in the leftover note (default: the mongosh line per database). */
  cleanupHint?: string;
}

/**
 * The only writer. For each finding whose rule has an experiment, runs it against a scratch
 * database and attaches the result. The scratch database is dropped at the end, whatever happened.
 * Experiments read the source only through `readOnly(source)` and write only through the Scratch handle, which
 * sends nothing outside its mongo_advisor_scratch_ database (src/adapters/read-only.ts).
 */
export async function confirmFindings(snapshot: Snapshot, findings: Finding[], given: Adapter, rules: readonly Rule[], opts: ConfirmOptions = {}): Promise<ConfirmRun> {
  const source = readOnly(given);
  const settings: ConfirmSettings = {
    maxDocs: opts.maxDocs ?? CONFIRM_DEFAULTS.maxDocs,
    maxBytes: opts.maxBytes ?? CONFIRM_DEFAULTS.maxBytes,
    budgetMs: opts.budgetMs ?? CONFIRM_DEFAULTS.budgetMs,
  };
  const byId = new Map(rules.map((r) => [r.id, r]));
  const todo = new Set(
    findings.filter((f) => {
      const c = byId.get(f.ruleId)?.confirm;
      return c !== undefined && f.messageId !== 'internalError' && (c.appliesTo?.(f) ?? true);
    }),
  );
  const target = opts.scratchAdapter ?? given;
  // Stale scratch databases of earlier runs (their marker's pid is gone, or they are old): said, never reused.
  const notes: string[] = await leftoverNotes(target, opts.cleanupHint ?? 'mongo-advisor cleanup <uri> (or advisor.cleanup() in mongosh)');
  if (todo.size === 0) return { findings, where: null, cleanedUp: null, notes };

  // The scratch handle gets the connection itself (it must write), behind its own gate: only the scratch database.
  const scratch = new Scratch(target, undefined, opts.via ?? 'api');
  scratch.plan = { experiments: todo.size, maxDocs: settings.maxDocs, maxBytes: settings.maxBytes };
  const log = opts.log ?? (() => undefined);
  // Stops the experiments on the caller's signal (Ctrl-C) or when the load guard gives up.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  opts.signal?.addEventListener('abort', onAbort);
  if (opts.signal?.aborted) stop.abort();
  const guard = new LoadGuard(readOnly(target), {
    limits: typeof opts.maxLoad === 'string' ? parseMaxLoad(opts.maxLoad) : (opts.maxLoad ?? undefined),
    ...(opts.maxLoadPauseMs !== undefined ? { maxPauseMs: opts.maxLoadPauseMs } : {}),
    signal: stop.signal,
    log,
  });
  let loadStop: string | null = null;
  scratch.beforeWrite = async () => {
    try {
      await guard.check();
    } catch (err) {
      if (err instanceof LoadAbort) {
        loadStop ??= err.message;
        stop.abort();
      }
      throw err;
    }
  };
  opts.onScratch?.(scratch);
  const out: Finding[] = [];
  // Several experiments copy the same collection: read each (collection, filter, limit) once per run.
  const copies = new Map<string, Promise<Doc[]>>();
  const sourceDocs: ConfirmContext['sourceDocs'] = (db, coll, o) => {
    const key = JSON.stringify([db, coll, o?.limit ?? null, o?.filter ?? null]);
    let read = copies.get(key);
    if (!read) {
      read = readSourceDocs(source, snapshot, db, coll, settings, o);
      read.catch(() => copies.delete(key)); // a failed read is retried by the next experiment
      copies.set(key, read);
    }
    return read;
  };
  try {
    let experiments = 0;
    for (const original of findings) {
      const f = { ...original };
      out.push(f);
      if (!todo.has(original)) continue;
      if (!stop.signal.aborted && loadStop === null) {
        try {
          await guard.check(true);
        } catch (err) {
          if (!(err instanceof LoadAbort)) throw err;
          loadStop = err.message;
          stop.abort();
        }
      }
      if (loadStop !== null) {
        f.confirmation = { status: 'not-run', summary: `Not run: ${loadStop}`, measurements: [], where: scratch.where, durationMs: 0 };
        continue;
      }
      if (scratch.refused !== null) {
        f.confirmation = refusedConfirmation(scratch.where);
        continue;
      }
      if (stop.signal.aborted) continue;
      const rule = byId.get(f.ruleId) as Rule;
      const budget = new Budget(settings.budgetMs, stop.signal);
      const ctx: ConfirmContext = {
        source,
        scratch,
        snapshot,
        settings,
        budget,
        sourceDocs,
        log,
      };
      const started = performance.now();
      opts.onExperiment?.(original, experiments, todo.size);
      experiments++;
      // One line per experiment, with its number and budget: mongosh and CI logs show it as it starts.
      const on = `${f.target.db}.${f.target.collection ?? ''}${f.target.path ? ` (${f.target.path})` : ''}`;
      const budgetS = Math.round(settings.budgetMs / 1000);
      log(`confirming ${experiments} of ${todo.size}: ${f.ruleId} on ${on}, budget ${budgetS} s`);
      try {
        const result = await rule.confirm!.run(ctx, f, resolveRuleOptions(rule, opts.settings));
        f.confirmation = { ...result, where: scratch.where, durationMs: performance.now() - started };
        if (result.status === 'refuted' && f.recommendation) f.recommendation = withdrawn(f.recommendation);
      } catch (err) {
        const interrupted = opts.signal?.aborted === true;
        const load: string | null = loadStop;
        f.confirmation = {
          status: interrupted || load !== null ? 'not-run' : 'error',
          summary: interrupted ? 'Interrupted before the measurement finished.' : load !== null ? `Not finished: ${String(load)}` : `${describeServerError(err)}; nothing was measured.`,
          measurements: [],
          where: scratch.where,
          durationMs: performance.now() - started,
        };
      }
      // The scratch database refused its first write: whatever the experiment said, nothing was measured.
      if (scratch.refused !== null) f.confirmation = refusedConfirmation(scratch.where);
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    const problem = await scratch.cleanup();
    notes.push(...scratch.notes);
    if (problem) notes.push(problem);
  }
  if (loadStop !== null) notes.push(`mongo-advisor ${loadStop}`);
  if (scratch.refused !== null) {
    notes.push(
      `confirmation not run: the server refused the first write to the scratch database ${scratch.db} ` +
        `(${scratch.refused}), so nothing was written there and no experiment ran. Run with --scratch-uri to a ` +
        'server where the user may create and drop a database, or with --no-confirm',
    );
  }
  return { findings: out, where: scratch.where, cleanedUp: scratch.cleanedUp, notes };
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

async function readSourceDocs(source: Adapter, snapshot: Snapshot, db: string, coll: string, settings: ConfirmSettings, o: { limit?: number; filter?: Doc } = {}): Promise<Doc[]> {
  // The server's own data (local, config, system.*) is never copied into a scratch database, whatever a rule asks.
  if (SYSTEM_DATABASES.has(db) || isSystemCollection(coll)) {
    const ns = `${db}.${coll}`;
    throw new Error(`not copied: ${ns} holds the server's own data, which is never copied into a scratch database`);
  }
  const c = snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === coll);
  // $collStats' average first; a server that reports 0 (SecantusDB) falls back to the sampled documents' sizes, so the
  // copy stays bounded by bytes whatever the server says.
  const sampled = c?.sample.docs ?? [];
  const sampledAvg = sampled.length ? sampled.reduce((s, d) => s + d.bytes, 0) / sampled.length : 0;
  const avg = (c?.stats?.avgObjSize ?? 0) > 0 ? (c?.stats?.avgObjSize ?? 0) : sampledAvg;
  const byBytes = avg > 0 ? Math.max(1, Math.floor(settings.maxBytes / avg)) : settings.maxDocs;
  const limit = Math.min(o.limit ?? settings.maxDocs, settings.maxDocs, byBytes);
  const maxTimeMS = 30_000;
  const head: Doc[] = o.filter ? [{ $match: o.filter }] : [];
  const sample = [...head, { $sample: { size: limit } }];
  const read = snapshot.server.capabilities.sample.supported === true
    ? commandCursor(source, db, { aggregate: coll, pipeline: sample, cursor: {}, maxTimeMS }, { maxTimeMS })
    : commandCursor(source, db, { find: coll, filter: o.filter ?? {}, limit, maxTimeMS }, { limit, maxTimeMS });
  // $sample may return a document twice: every experiment gets each _id once (src/confirm/copy.ts).
  return dropRepeatedIds(await read).docs;
}
