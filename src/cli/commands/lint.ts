import { terminalLine } from '../../core/format';
import { collectPlan, type ResolvedRule } from '../../core/runner';
import type { DriverAdapter } from '../../adapters/driver';
import { rules } from '../../../rules';
import * as path from 'node:path';
import { Command, Option } from 'commander';
import {
  buildBaseline,
  compareBaseline,
  judge,
  loadBaseline,
  type LintResult,
  saveBaseline,
} from '../../core/baseline';
import { type AdvisorConfig, loadConfig } from '../../core/config';
import { UserError } from '../../core/errors';
import { loadSnapshot } from '../../core/snapshot-file';
import {
  type CheckResult,
  type Finding,
  SEVERITIES,
  type Severity,
  type Snapshot,
  severityRank,
} from '../../core/types';
import type { Locate } from '../../report/catalog';
import { lintSpec, loadSpec } from '../../spec';
import { declaredIndexes, lintQueries, queryEntries, type QueryEntry, snapshotIndexes } from '../../spec/queries';
import { readQueriesFile } from '../../workload/queries-file';
import { type ExplainedQueries, explainQueries } from '../queries-explain';
import { runLive } from '../live';
import { informing, type Io } from '../io';
import { createProgress, progressLines } from '../progress';
import {
  analyzeOffline,
  collectOptionsOf,
  connect,
  emit,
  meantAsUri,
  nonNegativeInt,
  REPORT_FORMATS,
  type ReportFormat,
  render,
  sayLeftovers,
  readPreferenceOption,
} from '../shared';
import { dbFromUri, FAIL_ON_HELP, positiveInt } from './check';
import { checkConnectionString } from '../uri';
import { VERSION } from '../../version';

interface LintFlags {
  readPreference?: 'primary' | 'secondaryPreferred';
  spec?: string;
  queries?: string;
  db?: string[];
  collection?: string[];
  format: ReportFormat;
  output?: string;
  failOn?: Severity;
  maxWarnings?: number;
  baseline?: string;
  updateBaseline?: boolean;
  config?: string;
  confirm: boolean;
  scratchUri?: string;
  maxLoad?: string;
  sampleSize?: number;
  maxTimeMs: number;
  concurrency: number;
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  allowPartial?: boolean;
}

function relativeTo(dir: string, file: string | undefined): string | undefined {
  return file === undefined ? undefined : path.resolve(dir, file);
}

/** A result with no database behind it: a spec checked on its own. */
function emptyResult(source: string, db: string): CheckResult {
  return {
    tool: { name: 'mongo-advisor', version: VERSION },
    startedAt: new Date().toISOString(),
    durationMs: 0,
    source,
    server: { version: 'n/a', flavor: 'mongodb', storageEngine: null, topology: 'unknown' },
    scope: { db, collections: [] },
    findings: [],
    notes: [],
    roundTrips: 0,
    confirm: { enabled: false, where: null, cleanedUp: null },
  };
}

async function runLint(target: string | undefined, flags: LintFlags, io: Io): Promise<number> {
  const loaded = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
  const config: AdvisorConfig = loaded.config;
  const specFile = flags.spec ?? relativeTo(loaded.dir, config.spec);
  const baselineFile = flags.baseline ?? relativeTo(loaded.dir, config.baseline);
  if (!target && !specFile)
    throw new UserError(
      flags.queries
        ? 'lint --queries needs indexes to judge the queries against: a connection string, a snapshot file (from ' +
          'mongo-advisor collect), or --spec <file>.'
        : 'lint needs something to check: a connection string, a snapshot file (from mongo-advisor collect), or ' +
          '--spec <file>.',
    );
  if (flags.updateBaseline && !baselineFile)
    throw new UserError(
      '--update-baseline needs --baseline <file> (or "baseline" in the configuration) to know where to write.',
    );
  const t0 = performance.now();
  // A bad queries file stops the run before anything connects (exit 2, one message naming the entry).
  const entries = flags.queries ? queryEntries(readQueriesFile(flags.queries)) : undefined;
  const read = await checkTarget(target, specFile, flags, loaded, io, entries);
  const { result: specChecked, locate: specLocate } = specFile
    ? withSpec(read.result, read.snapshot, specFile, config)
    : { result: read.result, locate: undefined };
  const { result: checked, locate } =
    flags.queries && entries
      ? withQueries(specChecked, specLocate, {
          file: flags.queries,
          entries,
          read,
          specFile,
          config,
          resolved: loaded.resolved,
        })
      : { result: specChecked, locate: specLocate };
  const result = { ...checked, durationMs: Math.round(performance.now() - t0) };
  if (flags.updateBaseline && baselineFile) updateBaseline(result, baselineFile, io);
  return await verdict(result, flags, config, baselineFile, locate, io);
}

interface TargetRead {
  result: CheckResult;
  snapshot: Snapshot | null;
  /** Online: the queries' winning plans, by shape id, and what was judged offline instead. */
  explained?: ExplainedQueries;
}

/** The snapshot rules' result: from a live server, from a snapshot file, or empty (a spec alone). */
async function checkTarget(
  target: string | undefined,
  specFile: string | undefined,
  flags: LintFlags,
  { config, resolved }: { config: AdvisorConfig; resolved: readonly ResolvedRule[] },
  io: Io,
  entries?: readonly QueryEntry[],
): Promise<TargetRead> {
  if (target && meantAsUri(target)) return await checkLive(target, flags, config, resolved, io, entries);
  if (!target) return { result: emptyResult(`spec ${specFile ?? ''}`, '(spec)'), snapshot: null };
  if (flags.confirm)
    throw new UserError(
      `--confirm needs a live server: ${target} is a snapshot file, and confirmation measures on a scratch ` +
        `copy of the data. Lint the connection string instead, or drop --confirm.`,
    );
  if (flags.db || flags.collection)
    throw new UserError(
      '--db and --collection choose what to collect from a server; a snapshot file already holds what was collected.',
    );
  const snapshot = loadSnapshot(target, collectPlan(rules));
  return { result: await analyzeOffline(snapshot, resolved), snapshot };
}

async function checkLive(
  target: string,
  flags: LintFlags,
  config: AdvisorConfig,
  resolved: readonly ResolvedRule[],
  io: Io,
  entries?: readonly QueryEntry[],
): Promise<TargetRead> {
  checkConnectionString(target);
  const dbs = flags.db ?? (dbFromUri(target) ? [dbFromUri(target) as string] : []);
  if (flags.collection?.length && dbs.length !== 1)
    throw new UserError(
      '--collection needs exactly one database: pass --db <name> (or put it in the connection string).',
    );
  const adapter = await connect(target);
  let scratchAdapter: DriverAdapter | undefined;
  // inside the try: a --scratch-uri that cannot be reached closes the first connection too (no exit by linger)
  try {
    if (!flags.confirm) await sayLeftovers(adapter, io);
    if (flags.confirm && flags.scratchUri)
      scratchAdapter = await connect(flags.scratchUri, '--scratch-uri connection string');
    const live = await runLive(
      adapter,
      {
        dbs,
        ...collectOptionsOf(flags, config),
        concurrency: flags.concurrency,
        confirm: flags.confirm,
        ...(scratchAdapter ? { scratchAdapter } : {}),
        ...(flags.maxLoad ? { maxLoad: flags.maxLoad } : {}),
        resolved,
        progress: createProgress({ enabled: !flags.quiet }),
        lines: progressLines(io, { quiet: flags.quiet === true, barOnTerminal: true }),
      },
      io,
    );
    const explained = entries ? await explainQueries(adapter, entries, flags.readPreference) : undefined;
    return { result: live.result, snapshot: live.snapshot, ...(explained ? { explained } : {}) };
  } finally {
    await adapter.close().catch(() => undefined);
    await scratchAdapter?.close().catch(() => undefined);
  }
}

/** The spec's findings and notes added to the result (most severe first), and where each spec finding is declared. */
function withSpec(
  result: CheckResult,
  snapshot: Snapshot | null,
  specFile: string,
  config: AdvisorConfig,
): { result: CheckResult; locate: Locate } {
  const spec = lintSpec(specFile, snapshot, config);
  const merged = {
    ...result,
    findings: [...result.findings, ...spec.findings].sort(
      (a, b) => severityRank(b.severity) - severityRank(a.severity),
    ),
    notes: [...result.notes, ...spec.notes],
    ...(snapshot ? {} : { scope: spec.scope }),
  };
  return { result: merged, locate: spec.locate };
}

/**
 * The queries file's findings added to the result. Online, each shape as the server plans it; offline, against the
 * declared spec's indexes when there is a spec (what will be deployed), else the snapshot's.
 */
function withQueries(
  result: CheckResult,
  specLocate: Locate | undefined,
  q: {
    file: string;
    entries: readonly QueryEntry[];
    read: TargetRead;
    specFile?: string;
    config: AdvisorConfig;
    resolved: readonly ResolvedRule[];
  },
): { result: CheckResult; locate: Locate } {
  const { snapshot, explained } = q.read;
  const online = explained !== undefined && snapshot !== null;
  const source = online || !q.specFile ? 'snapshot' : 'declared';
  const indexes =
    source === 'declared' || !snapshot ? declaredIndexes(loadSpec(q.specFile ?? '').spec) : snapshotIndexes(snapshot);
  const queries = lintQueries({
    file: q.file,
    entries: q.entries,
    indexesOf: indexes.indexesOf,
    ...(indexes.viewOn ? { viewOn: indexes.viewOn } : {}),
    source: online ? 'live' : source,
    ...(explained ? { plans: explained.plans } : {}),
    ...(snapshot && source === 'snapshot' ? { selectivity: sampleSelectivity(snapshot), server: snapshot.server } : {}),
    ...queryIndexesCap(q.resolved),
    config: q.config,
  });
  // One answer per query: a shape of the queries file is reported by the query checks (located at its file and
  // line), not again by the query-indexes rule from the profiler's record of the same shape.
  const judged = new Set(q.entries.map((e) => `${e.shape.db}\0${e.shape.id}`));
  const again = (f: Finding): boolean =>
    f.ruleId === 'query-indexes' && judged.has(`${f.target.db}\0${String(f.evidence.shapeId)}`);
  const merged = {
    ...result,
    findings: [...result.findings.filter((f) => !again(f)), ...queries.findings].sort(
      (a, b) => severityRank(b.severity) - severityRank(a.severity),
    ),
    notes: [...result.notes, ...(explained?.notes ?? []), ...indexes.unknown(q.entries), ...queries.notes],
  };
  const locate: Locate = (f) => queries.locate(f) ?? specLocate?.(f) ?? null;
  return { result: merged, locate };
}

/**
 * Distinct values counted on each collection's sample by the query-indexes rule's collector (its data, read by id as
 * the snapshot file stores it): the equality fields of a proposal are ordered by it, as the rule orders them.
 */
function sampleSelectivity(snapshot: Snapshot): (field: string, db: string, coll: string) => number | undefined {
  const colls = new Map<string, unknown>();
  for (const d of snapshot.databases)
    for (const c of d.collections) colls.set(`${d.name}\0${c.name}`, c.data?.['query-indexes/selectivity']);
  return (field, db, coll) => {
    const data = colls.get(`${db}\0${coll}`) as { paths?: Record<string, { distinct?: number }> } | undefined;
    return data?.paths && Object.hasOwn(data.paths, field) ? data.paths[field]?.distinct : undefined;
  };
}

/** The query-indexes rule's cap on proposals per collection, as the run resolved it (the same cap for every door). */
function queryIndexesCap(resolved: readonly ResolvedRule[]): { maxPerCollection?: number } {
  const options = resolved.find((r) => r.rule.id === 'query-indexes')?.options as { maxPerCollection?: unknown };
  return typeof options?.maxPerCollection === 'number' ? { maxPerCollection: options.maxPerCollection } : {};
}

function updateBaseline(result: CheckResult, baselineFile: string, io: Io): void {
  const baseline = buildBaseline(result.findings);
  saveBaseline(baselineFile, baseline);
  io.err(
    `Wrote ${baseline.findings.length} accepted finding${baseline.findings.length === 1 ? '' : 's'} to the ` +
      `baseline ${baselineFile}. Commit it; lint --baseline ${baselineFile} now fails only on new findings.`,
  );
}

/** Judges the result (fail-on, max-warnings, the baseline), writes the report and returns the exit code. */
async function verdict(
  result: CheckResult,
  flags: LintFlags,
  config: AdvisorConfig,
  baselineFile: string | undefined,
  locate: Locate | undefined,
  io: Io,
): Promise<number> {
  const failOn = flags.failOn ?? config.failOn ?? 'error';
  const maxWarnings = flags.maxWarnings ?? config.maxWarnings ?? null;
  const comparison = baselineFile ? compareBaseline(result.findings, loadBaseline(baselineFile), baselineFile) : null;
  const lint = judge(result, { failOn, maxWarnings, baseline: comparison, allowPartial: flags.allowPartial === true });
  const out: LintResult = { ...result, lint };
  const color = flags.color ?? (io.isTTY && !flags.output);
  const options = { color, verbose: flags.verbose === true, ...(locate ? { locate } : {}) };
  await emit(informing(io, flags.quiet), render(out, flags.format, options), flags.output);
  // The verdict goes to stderr in every format (stdout holds the report alone, as the README says); a CI log shows it.
  io.err(`mongo-advisor lint ${terminalLine(lint.verdict)}`);
  return lint.exitCode;
}

/** `mongo-advisor lint [uri|snapshot]`: the CI gate. Exit 0 pass, 1 findings, 2 usage, input or connection error. */
export function registerLint(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('lint')
    .description('CI gate: check a server, a snapshot file or a declared spec; exit 0 (pass), 1 (findings), 2 (error)')
    .argument('[target]', 'connection string (mongodb://…) or snapshot file (from collect)')
    .option(
      '--spec <file>',
      'declared collections, validators and indexes (JSON or JS); with a target, also reports drift',
    )
    .option(
      '--queries <file>',
      'the queries the application sends (Extended JSON): each one checked against the indexes that would serve it',
    )
    .option(
      '--db <name...>',
      'databases to check on a server (default: the one in the connection string, else every user database)',
    )
    .option('-c, --collection <name...>', 'collections to check (one database only)')
    .addOption(new Option('-f, --format <format>', 'output format').choices([...REPORT_FORMATS]).default('text'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .addOption(new Option('--fail-on <severity>', FAIL_ON_HELP.gate).choices([...SEVERITIES]))
    .option('--max-warnings <n>', 'fail when more than n new warnings (default: no limit)', nonNegativeInt)
    .option('--baseline <file>', 'accepted findings: only findings not in it (or worse than in it) count')
    .option('--update-baseline', 'write every current finding to the baseline file, then judge against it')
    .option(
      '--allow-partial',
      'judge what could be read when some collections could not be (default: exit 2, the gate fails closed)',
    )
    .option(
      '--config <file>',
      'configuration file (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")',
    )
    .option('--confirm', 'run the scratch experiments (off in lint: CI usually may not write)', false)
    .option('--no-confirm', 'no scratch experiments (the default for lint)')
    .option('--scratch-uri <uri>', 'with --confirm: run the experiments on another server instead of the inspected one')
    .option(
      '--max-load <limits>',
      'with --confirm: pause the experiments above these server load limits, stop if it lasts (default ' +
        'active=25,queued=10,dirty=0.05,lag=1)',
    )
    .option('--sample-size <n>', 'documents to sample per collection', positiveInt)
    .option('--max-time-ms <ms>', 'maxTimeMS for every inspection command', positiveInt, 10000)
    .addOption(readPreferenceOption())
    .option('--concurrency <n>', 'collections read at once', positiveInt, 4)
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('-q, --quiet', 'no progress bar on stderr')
    .option(
      '-v, --verbose',
      'every finding in full: repeated info findings of one rule are not collapsed into one entry',
    )
    .action(async (target: string | undefined, flags: LintFlags) => {
      setExit(await runLint(target, flags, io));
    });
}
