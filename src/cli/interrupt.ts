import { formatBytes } from '../core/format';
import type { Scratch } from '../confirm/scratch';
import type { Io } from './io';

export interface Interrupt {
  /** Aborted on the first Ctrl-C (or SIGTERM, SIGHUP): experiments stop at their next step. */
  signal: AbortSignal;
  /** The scratch database to drop if interrupted (confirm hands it over as soon as it exists, before any write). */
  track: (s: Scratch) => void;
  /** Something to put back on exit (the profiling level): run on the first signal, named on the second. */
  restore: (action: RestoreAction) => void;
  dispose: () => void;
}

/** A setting to put back on every exit path; the command runs it itself on a normal end or an error. */
export interface RestoreAction {
  /** What it puts back, as a clause: `restoring the profiling level of "shop" to 0 (slowms 100)`. */
  what: string;
  /** Puts it back (safe to call twice: the same promise); resolves to the line saying so, rejects with why not. */
  run: () => Promise<string>;
  /** The exact command that puts it back by hand, said after a second Ctrl-C or a failure. */
  byHand: string;
}

/** The exit status of a process a signal ended: 128 + the signal's number, as shells report it. */
const EXIT_FOR = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Handled = keyof typeof EXIT_FOR;

const howToDrop = (s: Scratch): string =>
  `drop it with: mongo-advisor cleanup <uri> --yes, or in mongosh ${s.dropByHand}`;

/** A second signal: say what may remain (the scratch database, restores not done) and how to undo it, then exit. */
function quitAtOnce(
  say: (line: string) => void,
  scratch: Scratch | null,
  pending: readonly RestoreAction[],
  signal: Handled,
): never {
  if (scratch && !scratch.cleanedUp)
    say(
      `Quit before the drop was confirmed: the scratch database ${scratch.db} may remain ` +
        `on ${scratch.source}; ${howToDrop(scratch)}`,
    );
  else if (!pending.length) say('Quit.');
  for (const a of pending) say(`Quit before ${a.what} was done; by hand: ${a.byHand}`);
  process.exit(EXIT_FOR[signal]);
}

/** The first signal's line: what happened and what is being undone, or that there is nothing to undo. */
function firstSignalLine(
  signal: Handled,
  scratch: Scratch | null,
  actions: readonly RestoreAction[],
  nothing: string | undefined,
): string {
  const what =
    signal === 'SIGINT' ? 'Interrupted' : signal === 'SIGHUP' ? 'The terminal closed (SIGHUP)' : 'Terminated (SIGTERM)';
  const steps = [
    ...(scratch ? [`stopping, then dropping the scratch database ${scratch.db}`] : []),
    ...actions.map((a) => a.what),
  ];
  return steps.length
    ? `${what}: ${steps.join('; ')} (Ctrl-C again to quit at once)…`
    : `${what} (${nothing ?? 'no scratch database was written'}).`;
}

/**
 * The one interrupt handler of the CLI's confirming commands (check, lint, audit). When confirm hands over the scratch
 * handle it says where the run will write and how much (consent, before the first write). The first Ctrl-C, SIGTERM
 * or SIGHUP (a closed terminal) stops the experiments and drops the scratch database: the handle refuses new
 * commands, waits (bounded) for those in flight, drops, and checks with listDatabases; the handler then says
 * "dropped" or prints the exact command to run, and exits 128 + the signal's number. A second Ctrl-C exits at once,
 * saying the database may remain and how to drop it. After SIGHUP nothing may be readable any more: writes to a
 * closed terminal are ignored, and the cleanup runs the same. Settings a command changed (`profile`: the profiling
 * level) are handed over as restore actions: the first signal runs each (after the drop) and says the outcome; the
 * second prints each one not yet done with the command to run by hand. `nothing` says what the first signal found
 * to undo when there was nothing (check: "no scratch database was written").
 */
export function onInterrupt(io: Io, opts: { nothing?: string } = {}): Interrupt {
  const controller = new AbortController();
  let scratch: Scratch | null = null;
  const actions: RestoreAction[] = [];
  const done = new Set<RestoreAction>();
  let count = 0;
  // A closed terminal (SIGHUP) makes writes fail with EIO or EPIPE: they must not kill the process before its cleanup.
  const say = (line: string): void => {
    try {
      io.err(line);
    } catch {
      // nowhere to write: the cleanup still runs
    }
  };
  const quiet = (): void => undefined;
  const handler = (signal: Handled): void => {
    count++;
    if (count > 1)
      quitAtOnce(
        say,
        scratch,
        actions.filter((x) => !done.has(x)),
        signal,
      );
    process.stdout.on('error', quiet);
    process.stderr.on('error', quiet);
    say(firstSignalLine(signal, scratch, actions, opts.nothing));
    controller.abort();
    const dropped = scratch ? scratch.cleanup() : Promise.resolve(null);
    const exit = async (): Promise<void> => {
      for (const a of actions) {
        const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));
        say(await a.run().catch((err: unknown) => `Could not finish ${a.what}: ${why(err)}; by hand: ${a.byHand}`));
        done.add(a);
      }
      process.exit(EXIT_FOR[signal]);
    };
    void dropped.then(
      (problem) => {
        if (scratch)
          say(
            problem
              ? `NOT dropped: ${problem}; or run: mongo-advisor cleanup <uri> --yes`
              : `Dropped the scratch database ${scratch.db} (listDatabases no longer lists it).`,
          );
        return exit();
      },
      (err: unknown) => {
        if (scratch) say(`NOT dropped: ${String(err)}; ${howToDrop(scratch)}`);
        return exit();
      },
    );
  };
  const handlers = (Object.keys(EXIT_FOR) as Handled[]).map((sig) => [sig, () => handler(sig)] as const);
  for (const [sig, h] of handlers) process.on(sig, h);
  return {
    signal: controller.signal,
    track: (s) => {
      scratch = s;
      s.marker.via = 'cli'; // before the first write: the marker says who to look for
      if (s.plan) {
        const p = s.plan;
        say(
          `Confirming ${p.experiments} finding${p.experiments === 1 ? '' : 's'}: writes up ` +
            `to ${p.maxDocs.toLocaleString('en-US')} copied documents (${formatBytes(p.maxBytes)}) per ` +
            `experiment to the ${s.where}, dropped afterwards (Ctrl-C stops and drops it; --no-confirm skips; ` +
            `--scratch-uri writes elsewhere).`,
        );
      }
    },
    restore: (a) => {
      actions.push(a);
    },
    dispose: () => {
      for (const [sig, h] of handlers) process.off(sig, h);
    },
  };
}
