import { Command, Option } from 'commander';
import type { EmbeddedKind } from '../../servers/embedded';
import type { Io } from '../io';
import { loadDemo } from './demo';

/** The embedded servers' kinds, most faithful first (a type import only: the CLI's bundle never loads the servers). */
const KINDS = ['mongodb-memory-server', 'secantusdb', 'ferretdb'] as const satisfies readonly EmbeddedKind[];

/**
 * `mongo-advisor server`: an embedded server to try mongosh and the CLI on, kept until Ctrl-C. It prints the URI, the
 * mongosh command and the exact `load("<absolute path>/dist/advisor.js")` line, which works from any directory.
 */
export function registerServer(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('server')
    .description(
      'start an embedded server, seed the demo blog, print its URI and the mongosh load() line; Ctrl-C stops it',
    )
    .addOption(
      new Option(
        '--kind <kind>',
        'which embedded server (default: the first that starts, most faithful first)',
      ).choices([...KINDS]),
    )
    .option('--no-seed', 'start it empty (default: seed the demo blog, mongo_advisor_demo_blog)')
    .action(async (flags: { kind?: EmbeddedKind; seed: boolean }) => {
      const { serve } = await loadDemo();
      setExit(await serve({ seed: flags.seed, ...(flags.kind ? { kind: flags.kind } : {}), io }));
    });
}
