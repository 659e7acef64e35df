import type { Command } from 'commander';
import { runDemo } from '../../demo/run';
import type { Io } from '../io';

/** `mongo-advisor demo`: embedded server, seeded blog, check with confirmation, cleanup. */
export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('start an embedded server, seed a blog, run check with confirmation, print the report and clean up')
    .option('--no-confirm', 'skip the scratch experiments')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .action(async (flags: { confirm: boolean; color?: boolean }) => {
      setExit(await runDemo({ confirm: flags.confirm, color: flags.color ?? io.isTTY, io }));
    });
}
