import type { Scratch } from '../confirm/scratch';
import type { Io } from './io';

export interface Interrupt {
  /** Aborted on the first Ctrl-C (or SIGTERM): experiments stop at their next step. */
  signal: AbortSignal;
  /** The scratch database to drop if interrupted (confirm hands it over as soon as it exists). */
  track: (s: Scratch) => void;
  dispose: () => void;
}

/**
 * The one interrupt handler of the CLI's confirming commands (check, lint, audit): the first Ctrl-C or SIGTERM stops
 * the experiments, drops the scratch database and exits 130 once the drop is done (it says whether it was); a second
 * Ctrl-C exits at once. Installed only while a command could write.
 */
export function onInterrupt(io: Io): Interrupt {
  const controller = new AbortController();
  let scratch: Scratch | null = null;
  let count = 0;
  const handler = (): void => {
    count++;
    if (count > 1) process.exit(130);
    io.err(scratch ? `Interrupted: stopping and dropping the scratch database ${scratch.db} (Ctrl-C again to quit at once)…` : 'Interrupted (no scratch database was written).');
    controller.abort();
    const done = scratch ? scratch.cleanup() : Promise.resolve(null);
    void done.then((problem) => {
      if (problem) io.err(problem);
      process.exit(130);
    });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    track: (s) => {
      scratch = s;
    },
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
