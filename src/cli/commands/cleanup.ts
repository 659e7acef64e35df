import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { Adapter } from '../../adapters/types';
import { UserError } from '../../core/errors';
import { terminalLine } from '../../core/format';
import {
  dropScratchDatabases,
  formatSize,
  listScratchDatabases,
  type ScratchDatabase,
  stateLabel,
} from '../../confirm/leftovers';
import { SCRATCH_PREFIX } from '../../confirm/scratch';
import { connect } from '../shared';
import { EXIT, type Io } from '../io';

interface CleanupFlags {
  yes?: boolean;
  /** Databases to drop by name, ours or not (never one a run in progress uses): instead of the stale ones. */
  drop?: string[];
}

/** Asks on the terminal; anything but y/yes is no. */
export async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/** The databases `--drop` names, checked against the listing: each must carry the prefix, exist, and be idle. */
function named(found: readonly ScratchDatabase[], names: readonly string[]): ScratchDatabase[] {
  return [...new Set(names)].map((name) => {
    const shown = JSON.stringify(terminalLine(name));
    if (!name.startsWith(SCRATCH_PREFIX)) {
      throw new UserError(
        `--drop ${shown} refused: cleanup drops only databases named ${SCRATCH_PREFIX}…; drop others yourself.`,
      );
    }
    const d = found.find((x) => x.name === name);
    if (!d) throw new UserError(`--drop ${shown}: no such database on this server; the list above shows those there.`);
    if (d.state === 'running') {
      const why = terminalLine(d.why);
      throw new UserError(`--drop ${shown} refused: a mongo-advisor run is using it now (${why}). Wait for it to end.`);
    }
    return d;
  });
}

/** Drops the chosen databases after asking (or with --yes); the exit code. */
async function dropChosen(
  adapter: Adapter,
  chosen: readonly ScratchDatabase[],
  flags: CleanupFlags,
  io: Io,
  confirm: (q: string) => Promise<boolean>,
): Promise<number> {
  const total = formatSize(chosen.reduce((s, d) => s + (d.bytes ?? 0), 0));
  const list = chosen.map((d) => d.name).join(', ');
  if (!flags.yes) {
    if (!process.stdin.isTTY) {
      // Not a usage error: the listing was done, and stale databases were kept (exit 1, as "the user said no").
      io.err(terminalLine(`Nothing dropped: no terminal to ask on. Pass --yes to drop ${list} (${total}).`));
      return EXIT.findings;
    }
    if (!(await confirm(terminalLine(`Drop ${list} (${total})? [y/N] `)))) {
      io.out('Nothing dropped.');
      return EXIT.findings;
    }
  }
  let failed = 0;
  for (const o of await dropScratchDatabases(
    adapter,
    chosen.map((d) => d.name),
  )) {
    if (o.problem) failed++;
    const gone = `dropped ${o.name} (listDatabases no longer lists it)`;
    io.out(terminalLine(o.problem ? `NOT dropped ${o.name}: ${o.problem}` : gone));
  }
  return failed ? EXIT.findings : EXIT.ok;
}

/**
 * `mongo-advisor cleanup <uri>`: lists the scratch databases on a server (size, owner, stale, in use or not ours) and
 * drops the stale ones after asking (`--yes` for scripts). One a run in progress uses is never dropped; one with the
 * prefix but without our marker is not ours and is dropped only when named (`--drop <name>`). Exit 0 when nothing
 * stale remains, 1 when some could not be dropped (or the user said no), 2 on usage or connection errors.
 */
export async function runCleanup(
  uri: string,
  flags: CleanupFlags,
  io: Io,
  confirm: (q: string) => Promise<boolean> = ask,
): Promise<number> {
  const adapter = await connect(uri);
  try {
    const found = await listScratchDatabases(adapter);
    if (found.length === 0 && !flags.drop?.length) {
      io.out('No scratch databases (mongo_advisor_scratch_…) on this server.');
      return EXIT.ok;
    }
    for (const d of found) io.out(terminalLine(`${d.name}  ${formatSize(d.bytes)}  ${stateLabel(d)}: ${d.why}`));
    if (flags.drop?.length) return await dropChosen(adapter, named(found, flags.drop), flags, io, confirm);
    if (found.some((d) => d.state === 'foreign')) {
      io.out('To drop one that is not ours anyway, name it: mongo-advisor cleanup <uri> --drop <name>');
    }
    const stale = found.filter((d) => d.state === 'stale');
    if (stale.length === 0) {
      io.out('None is stale: nothing to drop.');
      return EXIT.ok;
    }
    return await dropChosen(adapter, stale, flags, io, confirm);
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

export function registerCleanup(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('cleanup')
    .description('list scratch databases left by interrupted runs (size, owner) and drop the stale ones after asking')
    .argument('<uri>', 'connection string of the server (or of the --scratch-uri server) to clean')
    .option('-y, --yes', 'drop without asking (scripts)')
    .option('--drop <name...>', `drop these ${SCRATCH_PREFIX}… databases instead of the stale ones, marker or not`)
    .action(async (uri: string, flags: CleanupFlags) => {
      setExit(await runCleanup(uri, flags, io));
    });
}
