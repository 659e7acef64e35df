import { collectPlan } from '../../core/runner';
import { onInterrupt } from '../interrupt';
import { rules } from '../../../rules';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { DriverAdapter } from '../../adapters/driver';
import { check } from '../../check';
import { type LoadedConfig, loadConfig } from '../../core/config';
import { saveSnapshot } from '../../core/snapshot-file';
import { UserError } from '../../core/errors';
import {
  type CheckResult,
  isWithdrawn,
  SEVERITIES,
  type Severity,
  type Snapshot,
  severityRank,
} from '../../core/types';
import {
  collectOptionsOf,
  connect,
  emit,
  freshFile,
  REPORT_FORMATS,
  type ReportFormat,
  render,
  sayLeftovers,
  readPreferenceOption,
} from '../shared';
import { SCRATCH_PREFIX } from '../../adapters/read-only';
import { checkTimeField } from '../time-field';
import { checkConnectionString } from '../uri';
import { listDatabaseNames } from '../../collect';
import { readOnly } from '../../adapters/read-only';
import { isInternalDb } from '../deployment';
import { EXIT, informing, type Io } from '../io';
import { progressLines } from '../progress';
import { alongsideWorkload, type WorkloadFlags, type WorkloadRun, workloadOptions } from '../workload';
import { killedProfileLines } from '../profile-marker';

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

export function dbFromUri(uri: string): string | undefined {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri);
  return m?.[1] ? decodeURIComponent(m[1]) : undefined;
}

/**
 * Why the defaults differ, said in --help: check and analyze print a report a person reads, so a warning already
 * makes the exit code 1; lint is the CI gate, where a warning should not break a build unless asked. All three read
 * "failOn" from the configuration file when the flag is not given.
 */
export const FAIL_ON_HELP = {
  read:
    'lowest severity that makes the exit code 1 (default: "failOn" of the configuration, else warn: this ' +
    'report is read by a person; lint, the CI gate, defaults to error)',
  gate:
    'lowest severity of a new finding that fails the run (default: "failOn" of the configuration, else error: ' +
    'a CI gate fails on errors; check, analyze, audit and demo, read by a person, default to warn)',
} as const;

export function exitCodeFor(result: CheckResult, failOn: Severity): number {
  // Withdrawn advice (refuted on scratch) is evidence, not a finding to act on: it never fails the run.
  const failing = (f: (typeof result.findings)[number]): boolean =>
    !isWithdrawn(f) && severityRank(f.severity) >= severityRank(failOn);
  return result.findings.some(failing) ? EXIT.findings : EXIT.ok;
}

interface CheckFlags extends WorkloadFlags {
  readPreference?: 'primary' | 'secondaryPreferred';
  db?: string[];
  collection?: string[];
  format: ReportFormat;
  output?: string;
  confirm: boolean;
  sampleSize?: number;
  maxTimeMs: number;
  failOn?: Severity;
  confirmBudget: number;
  confirmDocs?: number;
  scratchUri?: string;
  maxLoad?: string;
  timeField?: string;
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  config?: string;
  saveSnapshot?: string;
}

/** The databases to check: --db (one or several), else the connection string's; a scratch database is refused. */
async function databasesOf(uri: string, flags: CheckFlags, adapter: DriverAdapter): Promise<string[]> {
  const fromUri = dbFromUri(uri);
  const dbs = flags.db?.length ? [...new Set(flags.db)] : fromUri ? [fromUri] : [];
  const scratch = dbs.find((db) => db.startsWith(SCRATCH_PREFIX));
  if (scratch) {
    throw new UserError(
      `${scratch} is a scratch database mongo-advisor writes its experiments to (copies of documents), not ` +
        `one of yours to check. Remove it with: mongo-advisor cleanup <uri>`,
    );
  }
  if (dbs.length > 1 && flags.collection?.length) {
    throw new UserError(
      '--collection needs exactly one database: pass one --db <name> (or put it in the connection string).',
    );
  }
  if (dbs.length > 1 && flags.saveSnapshot) {
    const collect = `mongo-advisor collect <uri> --db ${dbs.join(' ')} -o ${freshFile('snap.json')}`;
    throw new UserError(
      `--save-snapshot writes one database's snapshot: pass one --db, or run ${collect} for several.`,
    );
  }
  if (dbs.length > 0) return dbs;
  const names = await listDatabaseNames(readOnly(adapter), flags.maxTimeMs).then(
    (all) => all.filter((n) => !isInternalDb(n)).sort(),
    () => null,
  );
  const listed = names?.length ? `${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}` : '';
  const there = names === null ? '' : listed ? ` Databases there: ${listed}.` : ' The server holds no user databases.';
  const ask =
    'Which database? Pass --db <name> (one or several, or put it in the connection string, mongodb://host/<db>).';
  throw new UserError(`${ask}${there}`);
}

/** Several databases' results as one report: findings and notes in order, collections named with their database. */
function mergeResults(results: CheckResult[]): CheckResult {
  const [first] = results as [CheckResult, ...CheckResult[]];
  if (results.length === 1) return first;
  const last = results[results.length - 1] as CheckResult;
  const confirmed = results.filter((r) => r.confirm.enabled);
  const tables = results.flatMap((r) => r.tables ?? []);
  return {
    ...first,
    durationMs: results.reduce((t, r) => t + r.durationMs, 0),
    scope: {
      db: results.map((r) => r.scope.db).join(', '),
      collections: results.flatMap((r) => r.scope.collections.map((c) => `${r.scope.db}.${c}`)),
    },
    findings: results.flatMap((r) => r.findings).sort((a, b) => severityRank(b.severity) - severityRank(a.severity)),
    notes: results.flatMap((r) => r.notes),
    roundTrips: last.roundTrips,
    confirm: confirmed.length
      ? {
          enabled: true,
          where: confirmed.find((r) => r.confirm.where)?.confirm.where ?? null,
          cleanedUp: confirmed.every((r) => r.confirm.cleanedUp !== false),
        }
      : first.confirm,
    ...(tables.length ? { tables } : {}),
  };
}

async function runCheck(uri: string, flags: CheckFlags, io: Io): Promise<number> {
  // The connection strings first: a bad scheme, host or port is named as such, before "which database?".
  checkConnectionString(uri);
  if (flags.scratchUri) checkConnectionString(flags.scratchUri, '--scratch-uri connection string');
  // Read the configuration before connecting, so a bad file fails fast.
  // The run's rules, options resolved once: every database's collect, analyze and confirm read this list.
  const loaded = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
  // The log is read while the collect runs (only the collect waits for it); a bad log, or a queries file, is still
  // reported as when it was read before anything connected, and wins over any error of the server work.
  return await alongsideWorkload(flags, io, (run) => checkWith(uri, flags, io, run, loaded));
}

async function checkWith(
  uri: string,
  flags: CheckFlags,
  io: Io,
  run: WorkloadRun,
  { config, resolved }: LoadedConfig,
): Promise<number> {
  const failOn = flags.failOn ?? config.failOn ?? 'warn';
  const workload = run.workload;
  // Connected before "which database?": an unreachable server or refused credentials is the first thing to fix, and
  // the question can then list the databases there are.
  const adapter = run.own(await connect(uri));
  // A confirming run lists leftovers itself (confirm's notes); a read-only run says them here.
  if (!flags.confirm) await sayLeftovers(adapter, run.io);
  const dbs = await databasesOf(uri, flags, adapter).catch(async (err: unknown) => {
    await adapter.close().catch(() => undefined);
    throw err;
  });
  for (const line of killedProfileLines(adapter.source, dbs)) run.io.err(line);
  let scratchAdapter: DriverAdapter | undefined;
  // Only a confirming run writes: only it needs Ctrl-C to drop a scratch database.
  const interrupt = flags.confirm ? onInterrupt(io) : null;
  // One line per step (one per experiment, with its budget) and a beat while one runs long, on a terminal or not.
  // Said once the log is read (its progress line is drawn until then).
  const lines = run.lines(progressLines(io, { quiet: flags.quiet === true }));
  const log = lines ? (line: string) => lines.say(line) : undefined;
  try {
    if (flags.scratchUri) {
      scratchAdapter = run.own(await connect(flags.scratchUri, '--scratch-uri connection string'));
    }
    const results: CheckResult[] = [];
    for (const db of dbs) {
      results.push(
        await check(adapter, {
          rules,
          db,
          ...collectOptionsOf(flags, config),
          confirm: flags.confirm,
          resolved,
          ...(workload ? { workload } : {}),
          onSnapshot: (s: Snapshot) => {
            // Once the field census is known: a --time-field no sampled document holds is an error, not a silent no-op.
            checkTimeField(s, flags.timeField);
            if (flags.saveSnapshot) saveSnapshot(flags.saveSnapshot, s, collectPlan(rules));
          },
          budgetMs: flags.confirmBudget * 1000,
          // Given only when chosen: the index proof may copy past the default (rules/query-indexes, proofDocs).
          ...(flags.confirmDocs !== undefined ? { maxDocs: flags.confirmDocs } : {}),
          ...(interrupt ? { signal: interrupt.signal, onScratch: interrupt.track } : {}),
          ...(scratchAdapter ? { scratchAdapter } : {}),
          ...(flags.maxLoad ? { maxLoad: flags.maxLoad } : {}),
          cleanupHint: 'mongo-advisor cleanup <uri>',
          ...(log ? { log } : {}),
        }),
      );
    }
    const result = mergeResults(results);
    lines?.stop();
    const color = flags.color ?? (io.isTTY && !flags.output);
    await emit(
      informing(io, flags.quiet),
      render(result, flags.format, { color, verbose: flags.verbose === true }),
      flags.output,
    );
    return exitCodeFor(result, failOn);
  } finally {
    lines?.stop();
    interrupt?.dispose();
    await adapter.close().catch(() => undefined);
    await scratchAdapter?.close().catch(() => undefined);
  }
}

/** `mongo-advisor check <uri>`: collect, analyze, confirm, report. */
export function registerCheck(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('check')
    .description('inspect a database (or some collections), confirm each finding on a scratch copy, print the report')
    .argument('<uri>', 'connection string, e.g. mongodb://localhost:27017')
    .option('--db <name...>', 'databases to check, one or several (default: the one in the connection string)')
    .option(
      '-c, --collection <name...>',
      'collections to check (one database only; default: all non-system collections)',
    )
    .addOption(new Option('-f, --format <format>', 'output format').choices([...REPORT_FORMATS]).default('text'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--confirm', 'run the scratch experiments (the default for check)', true)
    .option('--no-confirm', 'skip the scratch experiments (read-only run)')
    .option(
      '--sample-size <n>',
      'documents to sample per collection (default min(max(20, 4% of count), 10000))',
      positiveInt,
    )
    .option('--max-time-ms <ms>', 'maxTimeMS for every inspection command', positiveInt, 10000)
    .addOption(readPreferenceOption())
    .addOption(new Option('--fail-on <severity>', FAIL_ON_HELP.read).choices([...SEVERITIES]))
    .option('--confirm-budget <seconds>', 'time each confirmation may take', positiveInt, 30)
    .option(
      '--confirm-docs <n>',
      'most documents copied into scratch per experiment (default 5000; an index proof copies up to its proofDocs ' +
        'unless this is given)',
      positiveInt,
    )
    .option('--scratch-uri <uri>', 'run the experiments on another server instead of the inspected one')
    .option(
      '--max-load <limits>',
      'pause the experiments above these server load limits, stop if it lasts (default ' +
        'active=25,queued=10,dirty=0.05,lag=1; see docs/architecture.md)',
    )
    .option('--time-field <field>', "field holding each document's creation date (default: detected)")
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('-q, --quiet', 'no progress lines on stderr')
    .option(
      '-v, --verbose',
      'every finding in full: repeated info findings of one rule are not collapsed into one entry',
    );
  // --log, --queries and their caps: the same seven options, in the same order, on check, collect and audit
  for (const option of workloadOptions()) cmd.addOption(option);
  cmd
    .option('--save-snapshot <file>', 'also write the redacted snapshot (for `mongo-advisor analyze` later)')
    .option(
      '--config <file>',
      'configuration file (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")',
    )
    .action(async (uri: string, flags: CheckFlags) => {
      setExit(await runCheck(uri, flags, io));
    });
}
