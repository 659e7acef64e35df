import { collectPlan } from '../../core/runner';
import { rules } from '../../../rules';
import { Command, Option } from 'commander';
import { type LintResult } from '../../core/baseline';
import { loadConfig } from '../../core/config';
import { loadSnapshot } from '../../core/snapshot-file';
import { SEVERITIES, type Severity } from '../../core/types';
import type { Io } from '../io';
import { UserError } from '../../core/errors';
import {
  analyzeOffline,
  colonless,
  emit,
  freshFile,
  meantAsUri,
  REPORT_FORMATS,
  type ReportFormat,
  render,
} from '../shared';
import { exitCodeFor, FAIL_ON_HELP } from './check';
import { redactUri } from '../../lib/redact';

interface AnalyzeFlags {
  format: ReportFormat;
  failOn?: Severity;
  config?: string;
  output?: string;
  color?: boolean;
  verbose?: boolean;
}

/** `mongo-advisor analyze <snapshot>`: every rule over a snapshot file, offline (no server, no confirmation). */
export function registerAnalyze(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('analyze')
    .description('run every rule over a snapshot file written by collect, offline')
    .argument('<snapshot>', 'snapshot file (mongo-advisor collect … --output snap.json)')
    .addOption(new Option('-f, --format <format>', 'output format').choices([...REPORT_FORMATS]).default('text'))
    .addOption(new Option('--fail-on <severity>', FAIL_ON_HELP.read).choices([...SEVERITIES]))
    .option(
      '--config <file>',
      'configuration file (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")',
    )
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option(
      '-v, --verbose',
      'every finding in full: repeated info findings of one rule are not collapsed into one entry',
    )
    .action(async (file: string, flags: AnalyzeFlags) => {
      if (meantAsUri(file)) {
        const fixed = colonless(file);
        const shown = redactUri(fixed ?? file);
        const typo = fixed ? ` (with the colon after ${fixed.split(':')[0] ?? ''} that it lacks)` : '';
        throw new UserError(
          `analyze reads a snapshot file, not a server, and ${JSON.stringify(redactUri(file))} reads like a ` +
            `connection string${typo}: run mongo-advisor check ${shown} (or lint), or collect a snapshot first ` +
            `with mongo-advisor collect ${shown} --output ${freshFile('snap.json')}.`,
        );
      }
      const { config, resolved } = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
      const snapshot = loadSnapshot(file, collectPlan(rules));
      const result: LintResult = await analyzeOffline(snapshot, resolved);
      await emit(
        io,
        render(result, flags.format, {
          color: flags.color ?? (io.isTTY && !flags.output),
          verbose: flags.verbose === true,
        }),
        flags.output,
      );
      setExit(exitCodeFor(result, flags.failOn ?? config.failOn ?? 'warn'));
    });
}
