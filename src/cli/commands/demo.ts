import { Command, Option } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../core/config';
import { SEVERITIES, type Severity } from '../../core/types';
import { rules } from '../../../rules';
import type { Io } from '../io';
import { emit, REPORT_FORMATS, type ReportFormat, render } from '../shared';
import { exitCodeFor, FAIL_ON_HELP } from './check';

type DemoModule = typeof import('../../demo/run');

/**
 * The demo and the embedded servers it starts (pip, Go builds, mongodb-memory-server) are not part of the CLI's core:
 * the built CLI loads `dist/demo.cjs` only when `demo` or `server` runs, so `check`, `lint` and `audit` never load
 * them. Run from the sources (tests), the module is imported directly.
 */
export async function loadDemo(): Promise<DemoModule> {
  const built = path.join(__dirname, 'demo.cjs');
  if (fs.existsSync(built)) return require(built) as DemoModule;
  const fromSource = '../../demo/run';
  return (await import(fromSource)) as DemoModule;
}

interface DemoFlags {
  confirm: boolean;
  format: ReportFormat;
  output?: string;
  failOn?: Severity;
  config?: string;
  color?: boolean;
  verbose?: boolean;
}

/** `mongo-advisor demo`: embedded server, seeded blog, check with confirmation, cleanup; judged as check is. */
export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('start an embedded server, seed a blog, run check with confirmation, print the report and clean up')
    .option('--confirm', 'run the scratch experiments (the default for demo, as for check)', true)
    .option('--no-confirm', 'skip the scratch experiments')
    .addOption(new Option('-f, --format <format>', 'output format').choices([...REPORT_FORMATS]).default('text'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .addOption(new Option('--fail-on <severity>', FAIL_ON_HELP.read).choices([...SEVERITIES]))
    .option(
      '--config <file>',
      'configuration file for failOn and rules (default: nearest .mongo-advisor.json or package.json "mongoAdvisor")',
    )
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option(
      '-v, --verbose',
      'every finding in full: repeated info findings of one rule are not collapsed into one entry',
    )
    .action(async (flags: DemoFlags) => {
      const { config } = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
      const { runDemo } = await loadDemo();
      const ruleSettings = flags.config && config.rules ? { rules: config.rules as Record<string, unknown> } : {};
      const result = await runDemo({ confirm: flags.confirm, io, ...ruleSettings });
      const color = flags.color ?? (io.isTTY && !flags.output);
      await emit(io, render(result, flags.format, { color, verbose: flags.verbose === true }), flags.output);
      setExit(exitCodeFor(result, flags.failOn ?? config.failOn ?? 'warn'));
    });
}
