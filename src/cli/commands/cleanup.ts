import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { UserError } from '../../core/errors';
import { terminalLine } from '../../core/format';
import { dropScratchDatabases, formatSize, listScratchDatabases } from '../../confirm/leftovers';
import { connect } from '../shared';
import { EXIT, type Io } from '../io';

interface CleanupFlags {
  yes?: boolean;
}

/** Asks on the terminal; anything but y/yes is no. */
async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `mongo-advisor cleanup <uri>`: lists the scratch databases on a server (size, owner, stale or in use) and drops the
 * stale ones after asking (`--yes` for scripts). One a run in progress uses is never dropped. Exit 0 when nothing
 * stale remains, 1 when some could not be dropped (or the user said no), 2 on usage or connection errors.
 */
export async function runCleanup(uri: string, flags: CleanupFlags, io: Io, confirm: (q: string) => Promise<boolean> = ask): Promise<number> {
  const adapter = await connect(uri);
  try {
    const found = await listScratchDatabases(adapter);
    if (found.length === 0) {
      io.out('No scratch databases (mongo_advisor_scratch_…) on this server.');
      return EXIT.ok;
    }
    for (const d of found) io.out(terminalLine(`${d.name}  ${formatSize(d.bytes)}  ${d.state === 'stale' ? 'STALE' : 'in use'}: ${d.why}`));
    const stale = found.filter((d) => d.state === 'stale');
    if (stale.length === 0) {
      io.out('None is stale: each belongs to a run going on now, and is left alone.');
      return EXIT.ok;
    }
    const total = formatSize(stale.reduce((s, d) => s + (d.bytes ?? 0), 0));
    const question = `Drop the ${stale.length} stale scratch database${stale.length === 1 ? '' : 's'} (${total})? [y/N] `;
    if (!flags.yes) {
      if (!process.stdin.isTTY) throw new UserError(`${stale.length} stale scratch database${stale.length === 1 ? '' : 's'} found; nothing dropped: no terminal to ask on. Pass --yes to drop them.`);
      if (!(await confirm(question))) {
        io.out('Nothing dropped.');
        return EXIT.findings;
      }
    }
    let failed = 0;
    for (const o of await dropScratchDatabases(adapter, stale.map((d) => d.name))) {
      if (o.problem) failed++;
      io.out(terminalLine(o.problem ? `NOT dropped ${o.name}: ${o.problem}` : `dropped ${o.name} (listDatabases no longer lists it)`));
    }
    return failed ? EXIT.findings : EXIT.ok;
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

export function registerCleanup(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('cleanup')
    .description('list scratch databases left by interrupted runs (size, owner) and drop the stale ones after asking')
    .argument('<uri>', 'connection string of the server (or of the --scratch-uri server) to clean')
    .option('-y, --yes', 'drop the stale scratch databases without asking (scripts)')
    .action(async (uri: string, flags: CleanupFlags) => {
      setExit(await runCleanup(uri, flags, io));
    });
}
