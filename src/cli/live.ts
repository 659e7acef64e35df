import { rules } from '../../rules';
import type { DriverAdapter } from '../adapters/driver';
import { analyzeAndConfirm } from '../check';
import { collectPlan, type ResolvedRule } from '../core/runner';
import type { CheckResult, Finding, Snapshot } from '../core/types';
import { onInterrupt } from './interrupt';
import { collectDeployment } from './deployment';
import type { Io } from './io';
import type { Progress } from './progress';
import type { Heartbeat } from '../lib/heartbeat';
import { scopeOfSnapshot } from './shared';
import type { FoldOptions } from '../core/fold';
import { checkTargets } from '../core/names';
import type { PendingWorkload } from '../core/collector';

export interface LiveRunOptions {
  dbs: string[];
  collections?: string[];
  sampleSize?: number;
  /** When an object counts as a map (the configuration's `maps`). */
  maps?: Partial<FoldOptions>;
  maxTimeMS: number;
  readPreference?: 'primary' | 'secondaryPreferred';
  concurrency: number;
  confirm: boolean;
  confirmBudgetMs?: number;
  /** Where the experiments write (--scratch-uri); the inspected server when absent. */
  scratchAdapter?: DriverAdapter;
  maxLoad?: string;
  /** The run's rules with their options resolved once (`loadConfig(...).resolved`). */
  resolved: readonly ResolvedRule[];
  /** Operations given with --log or --queries (the query-indexes rule's workload), or the log still being read. */
  workload?: PendingWorkload;
  progress: Progress;
  /** Progress lines where no bar is drawn (src/cli/progress.ts progressLines): a step each, with beats. */
  lines?: Heartbeat | null;
}

/**
 * Collects (several databases if asked), analyzes and, when asked, confirms on a scratch database. Ctrl-C stops
 * the experiments and drops the scratch database before exiting 130.
 */
export async function runLive(
  adapter: DriverAdapter,
  opts: LiveRunOptions,
  io: Io,
): Promise<{ result: CheckResult; snapshot: Snapshot }> {
  const started = Date.now();
  const t0 = performance.now();
  const log = opts.lines ? (line: string) => opts.lines?.say(line) : undefined;
  checkTargets(opts.dbs, opts.collections ?? []);
  log?.(`collecting ${opts.dbs.length ? opts.dbs.join(', ') : 'every user database'}`);
  const snapshot = await collectDeployment(adapter, {
    dbs: opts.dbs,
    ...(opts.collections?.length ? { collections: opts.collections } : {}),
    ...(opts.sampleSize ? { sampleSize: opts.sampleSize } : {}),
    ...(opts.maps ? { maps: opts.maps } : {}),
    maxTimeMS: opts.maxTimeMS,
    ...(opts.readPreference ? { readPreference: opts.readPreference } : {}),
    concurrency: opts.concurrency,
    dbConcurrency: Math.min(2, opts.concurrency),
    progress: opts.progress,
    // Only what the enabled rules read (the plan); the snapshot records which collectors ran.
    collectors: collectPlan(opts.resolved),
    resolved: opts.resolved,
    ...(opts.workload ? { workload: opts.workload } : {}),
  });
  // Ctrl-C stops the experiments and drops the scratch database (src/cli/interrupt.ts), only while confirming.
  const interrupt = opts.confirm ? onInterrupt(io) : null;
  try {
    // One step of the bar per experiment, told by confirm as an event with the number that will run (never parsed
    // out of log lines, and no second analysis to count them).
    const onExperiment = (f: Finding, index: number, total: number): void => {
      if (index === 0) opts.progress.stage('confirming', total);
      opts.progress.tick(
        `${f.ruleId} on ${f.target.db}.${f.target.collection ?? ''}${f.target.path ? ` (${f.target.path})` : ''}`,
      );
    };
    const result = await analyzeAndConfirm(
      snapshot,
      opts.confirm ? adapter : null,
      {
        db: snapshot.databases[0]?.name ?? '',
        rules,
        confirm: opts.confirm,
        resolved: opts.resolved,
        ...(interrupt ? { signal: interrupt.signal, onScratch: interrupt.track } : {}),
        onExperiment,
        ...(opts.confirmBudgetMs ? { budgetMs: opts.confirmBudgetMs } : {}),
        ...(opts.scratchAdapter ? { scratchAdapter: opts.scratchAdapter } : {}),
        ...(opts.maxLoad ? { maxLoad: opts.maxLoad } : {}),
        cleanupHint: 'mongo-advisor cleanup <uri>',
        ...(log ? { log } : {}),
      },
      started,
      t0,
    );
    opts.progress.stop();
    opts.lines?.stop();
    return { result: { ...result, scope: scopeOfSnapshot(snapshot) }, snapshot };
  } finally {
    opts.lines?.stop();
    interrupt?.dispose();
  }
}
