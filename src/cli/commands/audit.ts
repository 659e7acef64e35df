import { rules } from '../../../rules';
import { Command, Option } from 'commander';
import { loadConfig } from '../../core/config';
import { formatHtml } from '../../report/html';
import { ticketSummary } from '../../report/html-data';
import { informing, type Io } from '../io';
import { runLive } from '../live';
import type { DriverAdapter } from '../../adapters/driver';
import { createProgress, progressLines } from '../progress';
import {
  collectOptionsOf,
  connect,
  emit,
  outputOf,
  outputOption,
  REPORT_FORMATS,
  render,
  sayLeftovers,
  readPreferenceOption,
} from '../shared';
import { terminalSafe } from '../../core/format';
import { checkConnectionString } from '../uri';
import { exitCodeFor, FAIL_ON_HELP, positiveInt } from './check';
import { SEVERITIES, type Severity } from '../../core/types';
import { alongsideWorkload, type WorkloadFlags, workloadOptions } from '../workload';

const AUDIT_FORMATS = ['html', ...REPORT_FORMATS] as const;
/** The file an audit writes without -o: its name says the format it holds. */
const DEFAULT_FILE: Record<(typeof AUDIT_FORMATS)[number], string> = {
  html: 'mongo-advisor-audit.html',
  text: 'mongo-advisor-audit.txt',
  json: 'mongo-advisor-audit.json',
  sarif: 'mongo-advisor-audit.sarif',
  junit: 'mongo-advisor-audit.xml',
  markdown: 'mongo-advisor-audit.md',
};

interface AuditFlags extends WorkloadFlags {
  readPreference?: 'primary' | 'secondaryPreferred';
  db?: string[];
  out?: string;
  output?: string;
  format: (typeof AUDIT_FORMATS)[number];
  confirm: boolean;
  scratchUri?: string;
  maxLoad?: string;
  confirmBudget: number;
  concurrency: number;
  sampleSize?: number;
  maxTimeMs: number;
  config?: string;
  quiet?: boolean;
  verbose?: boolean;
  failOn?: Severity;
}

/**
 * `mongo-advisor audit <uri>`: the whole deployment (or some databases), a self-contained HTML report and a ticket
 * summary.
 */
export function registerAudit(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('audit')
    .description(
      'audit every database (or --db), write a self-contained HTML report with charts, print a summary for a ticket',
    )
    .argument('<uri>', 'connection string, e.g. mongodb://localhost:27017')
    .option('--db <name...>', 'databases to audit (default: every user database)')
    .option(
      '-o, --output <file>',
      'write the report to a file (default: mongo-advisor-audit.<html|txt|json|sarif|xml|md> by --format; - ' +
        'for stdout)',
    )
    .addOption(outputOption())
    .addOption(new Option('-f, --format <format>', 'report format').choices([...AUDIT_FORMATS]).default('html'))
    .addOption(new Option('--fail-on <severity>', FAIL_ON_HELP.read).choices([...SEVERITIES]))
    .option(
      '--confirm',
      'run the scratch experiments: copies of up to 5,000 documents per finding on the inspected server (or ' +
        '--scratch-uri), dropped afterwards (off by default: an audit only reads)',
      false,
    )
    .option(
      '--no-confirm',
      'no scratch experiments (the default for audit; kept for scripts written when audit confirmed by default)',
    )
    .option('--scratch-uri <uri>', 'with --confirm: run the experiments on another server instead of the inspected one')
    .option(
      '--max-load <limits>',
      'with --confirm: pause the experiments above these server load limits, stop if it lasts (default ' +
        'active=25,queued=10,dirty=0.05,lag=1)',
    )
    .option('--confirm-budget <seconds>', 'time each confirmation may take', positiveInt, 30)
    .option('--concurrency <n>', 'collections read at once (databases: at most 2)', positiveInt, 4)
    .option('--sample-size <n>', 'documents to sample per collection', positiveInt)
    .option('--max-time-ms <ms>', 'maxTimeMS for every inspection command', positiveInt, 10000)
    .addOption(readPreferenceOption())
    .option(
      '--config <file>',
      'configuration file (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")',
    );
  // --log, --queries and their caps: the same seven options, in the same order, on check, collect and audit
  for (const option of workloadOptions()) cmd.addOption(option);
  cmd
    .option('-q, --quiet', 'no progress bar on stderr')
    .option(
      '-v, --verbose',
      'every finding in full: repeated info findings of one rule are not collapsed into one entry',
    )
    .action((uri: string, flags: AuditFlags) => runAudit(uri, flags, io, setExit));
}

/** One audit: connect, collect and check (confirm when asked), write the report, print the ticket summary. */
async function runAudit(uri: string, flags: AuditFlags, io: Io, setExit: (code: number) => void): Promise<void> {
  checkConnectionString(uri);
  const output = outputOf(flags, io) ?? DEFAULT_FILE[flags.format];
  const { config, resolved } = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
  if (flags.scratchUri) checkConnectionString(flags.scratchUri, '--scratch-uri connection string');
  // The log is read while the collect runs; a bad log is still reported as when it was read first.
  await alongsideWorkload(flags, io, async (run) => {
    const adapter = run.own(await connect(uri));
    let scratchAdapter: DriverAdapter | undefined;
    // Everything after the first connection is inside the try: a --scratch-uri that cannot be reached (or a failed
    // listing of leftovers) closes it too, so the process ends with the message, not by the exit's linger.
    try {
      if (!flags.confirm) await sayLeftovers(adapter, run.io);
      if (flags.confirm && flags.scratchUri)
        scratchAdapter = run.own(await connect(flags.scratchUri, '--scratch-uri connection string'));
      const { result, snapshot } = await runLive(
        adapter,
        {
          dbs: flags.db ?? [],
          ...collectOptionsOf(flags, config),
          concurrency: flags.concurrency,
          confirm: flags.confirm,
          confirmBudgetMs: flags.confirmBudget * 1000,
          ...(scratchAdapter ? { scratchAdapter } : {}),
          ...(flags.maxLoad ? { maxLoad: flags.maxLoad } : {}),
          resolved,
          ...(run.workload ? { workload: run.workload } : {}),
          progress: run.progress(createProgress({ enabled: !flags.quiet })),
          lines: run.lines(progressLines(io, { quiet: flags.quiet === true, barOnTerminal: true })),
        },
        io,
      );
      const report = { result, snapshot };
      const verbose = flags.verbose === true;
      const text =
        flags.format === 'html'
          ? formatHtml(report, undefined, { verbose })
          : render(result, flags.format, { color: false, verbose });
      await emit(informing(io, flags.quiet), text, output, `${flags.format === 'html' ? 'HTML ' : ''}report`);
      // The ticket summary goes to stdout when the report went to a file: paste-ready.
      if (output !== '-') io.out(terminalSafe(ticketSummary(report, { verbose })));
      setExit(exitCodeFor(result, flags.failOn ?? config.failOn ?? 'warn'));
    } finally {
      await adapter.close().catch(() => undefined);
      await scratchAdapter?.close().catch(() => undefined);
    }
  });
}
