import { rules } from '../../rules';
import type { DriverAdapter } from '../adapters/driver';
import { analyzeAndConfirm } from '../check';
import type { Scratch } from '../confirm/scratch';
import { analyze, type AnalyzeSettings, collectPlan, enabledRules } from '../core/runner';
import type { CheckResult, Snapshot } from '../core/types';
import { collectDeployment } from './deployment';
import type { Io } from './io';
import type { Progress } from './progress';
import { scopeOfSnapshot } from './shared';

export interface LiveRunOptions {
  dbs: string[];
  collections?: string[];
  sampleSize?: number;
  maxTimeMS: number;
  concurrency: number;
  confirm: boolean;
  confirmBudgetMs?: number;
  settings: AnalyzeSettings;
  progress: Progress;
}

/**
 * Collects (several databases if asked), analyzes and, when asked, confirms on a scratch database. Ctrl-C stops
 * the experiments and drops the scratch database before exiting 130.
 */
export async function runLive(adapter: DriverAdapter, opts: LiveRunOptions, io: Io): Promise<{ result: CheckResult; snapshot: Snapshot }> {
  const started = Date.now();
  const t0 = performance.now();
  const snapshot = await collectDeployment(adapter, {
    dbs: opts.dbs,
    ...(opts.collections?.length ? { collections: opts.collections } : {}),
    ...(opts.sampleSize ? { sampleSize: opts.sampleSize } : {}),
    maxTimeMS: opts.maxTimeMS,
    concurrency: opts.concurrency,
    dbConcurrency: Math.min(2, opts.concurrency),
    progress: opts.progress,
    // Only what the enabled rules read (the plan); the snapshot records which parts ran.
    parts: collectPlan(enabledRules(rules, opts.settings)),
  });
  const controller = new AbortController();
  let scratch: Scratch | null = null;
  let interrupts = 0;
  const onSignal = (): void => {
    if (++interrupts > 1) process.exit(130);
    io.err('Interrupted: stopping and dropping the scratch database (Ctrl-C again to quit at once)…');
    controller.abort();
    void (scratch ? scratch.cleanup() : Promise.resolve(null)).then((problem) => {
      if (problem) io.err(problem);
      process.exit(130);
    });
  };
  if (opts.confirm) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    // Analysis is pure and fast: run it once ahead to give the confirmation bar its total.
    const confirmable = opts.confirm ? analyze(snapshot, opts.settings, rules).findings.filter((f) => f.messageId !== 'internalError' && rules.find((r) => r.id === f.ruleId)?.confirm).length : 0;
    let confirming = 0;
    const log = (line: string): void => {
      // confirmFindings logs one "confirming …" line per experiment: the bar's steps.
      if (line.startsWith('confirming ')) {
        if (confirming++ === 0) opts.progress.stage('confirming', confirmable);
        opts.progress.tick(line.slice('confirming '.length));
      }
    };
    const result = await analyzeAndConfirm(
      snapshot,
      opts.confirm ? adapter : null,
      {
        db: snapshot.databases[0]?.name ?? '',
        rules,
        confirm: opts.confirm,
        settings: opts.settings,
        signal: controller.signal,
        onScratch: (s) => {
          scratch = s;
        },
        log,
        ...(opts.confirmBudgetMs ? { budgetMs: opts.confirmBudgetMs } : {}),
      },
      started,
      t0,
    );
    opts.progress.stop();
    return { result: { ...result, scope: scopeOfSnapshot(snapshot) }, snapshot };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
