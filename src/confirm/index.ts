import { commandCursor } from '../adapters/cursor';
import { readOnly } from '../adapters/read-only';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { AnyRule as Rule } from '../core/rule';
import { type AnalyzeSettings, resolveRuleOptions } from '../core/runner';
import type { Finding, Snapshot } from '../core/types';
import { type ConfirmContext, CONFIRM_DEFAULTS, type ConfirmSettings } from './context';
import { Budget } from './harness';
import { Scratch } from './scratch';

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
  /** Lets a caller (the CLI's Ctrl-C handler) reach the scratch database to drop it. */
  onScratch?: (scratch: Scratch) => void;
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
  if (todo.size === 0) return { findings, where: null, cleanedUp: null, notes: [] };

  // The scratch handle gets the connection itself (it must write), behind its own gate: only the scratch database.
  const scratch = new Scratch(opts.scratchAdapter ?? given);
  opts.onScratch?.(scratch);
  const log = opts.log ?? (() => undefined);
  const notes: string[] = [];
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
      if (opts.signal?.aborted) continue;
      const rule = byId.get(f.ruleId) as Rule;
      const budget = new Budget(settings.budgetMs, opts.signal);
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
      opts.onExperiment?.(original, experiments++, todo.size);
      log(`confirming ${f.ruleId} on ${f.target.db}.${f.target.collection ?? ''}${f.target.path ? ` (${f.target.path})` : ''}`);
      try {
        const result = await rule.confirm!.run(ctx, f, resolveRuleOptions(rule, opts.settings));
        f.confirmation = { ...result, where: scratch.where, durationMs: performance.now() - started };
      } catch (err) {
        const interrupted = opts.signal?.aborted === true;
        f.confirmation = {
          status: interrupted ? 'not-run' : 'error',
          summary: interrupted ? 'Interrupted before the measurement finished.' : `${describeServerError(err)}; nothing was measured.`,
          measurements: [],
          where: scratch.where,
          durationMs: performance.now() - started,
        };
      }
    }
  } finally {
    const problem = await scratch.cleanup();
    if (problem) notes.push(problem);
  }
  return { findings: out, where: scratch.where, cleanedUp: scratch.cleanedUp, notes };
}

async function readSourceDocs(source: Adapter, snapshot: Snapshot, db: string, coll: string, settings: ConfirmSettings, o: { limit?: number; filter?: Doc } = {}): Promise<Doc[]> {
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
  if (snapshot.server.capabilities.sample.supported === true) {
    return await commandCursor(source, db, { aggregate: coll, pipeline: [...head, { $sample: { size: limit } }], cursor: {}, maxTimeMS }, { maxTimeMS });
  }
  return await commandCursor(source, db, { find: coll, filter: o.filter ?? {}, limit, maxTimeMS }, { limit, maxTimeMS });
}
