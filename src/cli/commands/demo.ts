import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Io } from '../io';

type RunDemo = typeof import('../../demo/run').runDemo;

/**
 * The demo and the embedded servers it starts (pip, Go builds, mongodb-memory-server) are not part of the CLI's core:
 * the built CLI loads `dist/demo.cjs` only when `demo` runs, so `check`, `lint` and `audit` never load them. Run from
 * the sources (tests), the module is imported directly.
 */
async function loadDemo(): Promise<RunDemo> {
  const built = path.join(__dirname, 'demo.cjs');
  if (fs.existsSync(built)) return (require(built) as { runDemo: RunDemo }).runDemo;
  const fromSource = '../../demo/run';
  return ((await import(fromSource)) as { runDemo: RunDemo }).runDemo;
}

/** `mongo-advisor demo`: embedded server, seeded blog, check with confirmation, cleanup. */
export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('start an embedded server, seed a blog, run check with confirmation, print the report and clean up')
    .option('--no-confirm', 'skip the scratch experiments')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('-v, --verbose', 'every finding in full: repeated info findings of one rule are not collapsed into one entry')
    .action(async (flags: { confirm: boolean; color?: boolean; verbose?: boolean }) => {
      const runDemo = await loadDemo();
      setExit(await runDemo({ confirm: flags.confirm, color: flags.color ?? io.isTTY, verbose: flags.verbose === true, io }));
    });
}
