import { terminalSafe } from '../../core/format';
import { collectPlan } from '../../core/runner';
import { onInterrupt } from '../interrupt';
import { rules } from '../../../rules';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DriverAdapter } from '../../adapters/driver';
import { check } from '../../check';
import { loadConfig, settingsOf } from '../../core/config';
import { saveSnapshot } from '../../core/snapshot-file';
import { UserError } from '../../core/errors';
import { type CheckResult, SEVERITIES, type Severity, type Snapshot, severityRank } from '../../core/types';
import { formatJson } from '../../report/json';
import { formatText } from '../../report/text';
import { connectionError } from '../errors';
import { EXIT, type Io } from '../io';

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

export function dbFromUri(uri: string): string | undefined {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(uri);
  return m?.[1] ? decodeURIComponent(m[1]) : undefined;
}

export function exitCodeFor(result: CheckResult, failOn: Severity): number {
  return result.findings.some((f) => severityRank(f.severity) >= severityRank(failOn)) ? EXIT.findings : EXIT.ok;
}

interface CheckFlags {
  db?: string;
  collection?: string[];
  format: 'text' | 'json';
  confirm: boolean;
  sampleSize?: number;
  maxTimeMs: number;
  failOn: Severity;
  confirmBudget: number;
  confirmDocs: number;
  scratchUri?: string;
  timeField?: string;
  color?: boolean;
  quiet?: boolean;
  config?: string;
  saveSnapshot?: string;
}

async function runCheck(uri: string, flags: CheckFlags, io: Io): Promise<number> {
  const db = flags.db ?? dbFromUri(uri);
  if (!db) throw new UserError('Which database? Pass --db <name> (or put it in the connection string, mongodb://host/<db>).');
  // Read the configuration before connecting, so a bad file fails fast.
  const { config } = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
  let adapter: DriverAdapter;
  try {
    adapter = await DriverAdapter.connect(uri);
  } catch (err) {
    throw connectionError(err, uri);
  }
  let scratchAdapter: DriverAdapter | undefined;
  // Only a confirming run writes: only it needs Ctrl-C to drop a scratch database.
  const interrupt = flags.confirm ? onInterrupt(io) : null;
  const log = flags.quiet || !process.stderr.isTTY ? undefined : (line: string) => io.err(`\x1b[2m${terminalSafe(line)}\x1b[0m`);
  try {
    if (flags.scratchUri) {
      try {
        scratchAdapter = await DriverAdapter.connect(flags.scratchUri);
      } catch (err) {
        throw connectionError(err, flags.scratchUri);
      }
    }
    const result = await check(adapter, {
      rules,
      db,
      ...(flags.collection?.length ? { collections: flags.collection } : {}),
      ...(flags.sampleSize ? { sampleSize: flags.sampleSize } : {}),
      ...(flags.timeField ? { timeField: flags.timeField } : {}),
      maxTimeMS: flags.maxTimeMs,
      confirm: flags.confirm,
      settings: settingsOf(config),
      ...(flags.saveSnapshot ? { onSnapshot: (s: Snapshot) => saveSnapshot(flags.saveSnapshot as string, s, collectPlan(rules)) } : {}),
      budgetMs: flags.confirmBudget * 1000,
      maxDocs: flags.confirmDocs,
      ...(interrupt ? { signal: interrupt.signal, onScratch: interrupt.track } : {}),
      ...(scratchAdapter ? { scratchAdapter } : {}),
      ...(log ? { log } : {}),
    });
    io.out(flags.format === 'json' ? formatJson(result) : formatText(result, { color: flags.color ?? io.isTTY }));
    return exitCodeFor(result, flags.failOn);
  } finally {
    interrupt?.dispose();
    await adapter.close().catch(() => undefined);
    await scratchAdapter?.close().catch(() => undefined);
  }
}

/** `mongo-advisor check <uri>`: collect, analyze, confirm, report. */
export function registerCheck(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('check')
    .description('inspect a database (or some collections), confirm each finding on a scratch copy, print the report')
    .argument('<uri>', 'connection string, e.g. mongodb://localhost:27017')
    .option('--db <name>', 'database to check (default: the one in the connection string)')
    .option('-c, --collection <name...>', 'collections to check (default: all non-system collections)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--no-confirm', 'skip the scratch experiments (read-only run)')
    .option('--sample-size <n>', 'documents to sample per collection (default min(max(20, 4% of count), 10000))', positiveInt)
    .option('--max-time-ms <ms>', 'maxTimeMS for every inspection command', positiveInt, 10000)
    .addOption(new Option('--fail-on <severity>', 'lowest severity that makes the exit code 1').choices([...SEVERITIES]).default('warn'))
    .option('--confirm-budget <seconds>', 'time each confirmation may take', positiveInt, 30)
    .option('--confirm-docs <n>', 'most documents copied into scratch per experiment', positiveInt, 5000)
    .option('--scratch-uri <uri>', 'run the experiments on another server instead of the inspected one')
    .option('--time-field <field>', 'field holding each document\'s creation date (default: detected)')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('-q, --quiet', 'no progress lines on stderr')
    .option('--save-snapshot <file>', 'also write the redacted snapshot (for `mongo-advisor analyze` later)')
    .option('--config <file>', 'configuration file (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")')
    .action(async (uri: string, flags: CheckFlags) => {
      setExit(await runCheck(uri, flags, io));
    });

}
