import { terminalLine } from '../core/format';
import { Presets, SingleBar } from 'cli-progress';
import { type Heartbeat, heartbeat } from '../lib/heartbeat';
import type { Io } from './io';

/** A progress bar on stderr for long runs; does nothing when stderr is not a terminal (CI logs, pipes). */
export interface Progress {
  /** Starts (or restarts) a stage with a known number of steps. */
  stage(label: string, total: number): void;
  tick(detail?: string): void;
  stop(): void;
}

const silent: Progress = { stage: () => undefined, tick: () => undefined, stop: () => undefined };

export function createProgress(opts: { enabled: boolean; stream?: NodeJS.WriteStream }): Progress {
  const stream = opts.stream ?? process.stderr;
  if (!opts.enabled || stream.isTTY !== true) return silent;
  let bar: SingleBar | null = null;
  let value = 0;
  return {
    stage(label, total) {
      bar?.stop();
      value = 0;
      bar = new SingleBar(
        {
          stream,
          format: `${label.padEnd(12)} {bar} {value}/{total} · {duration_formatted} · {detail}`,
          hideCursor: true,
          clearOnComplete: true,
          etaBuffer: 20,
        },
        Presets.shades_classic,
      );
      bar.start(Math.max(total, 1), 0, { detail: '' });
    },
    tick(detail = '') {
      value++;
      // Details name databases and collections: escaped before they reach the terminal.
      const safe = terminalLine(detail);
      bar?.update(value, { detail: safe.length > 48 ? `${safe.slice(0, 47)}…` : safe });
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}

/**
 * Progress as lines on stderr (dimmed on a terminal), each name escaped, with a beat while a step runs long
 * (src/lib/heartbeat.ts): a CI log or a pipe sees the run move. Null with --quiet, and where a bar is drawn instead
 * (`barOnTerminal`, for the commands with a progress bar) on a terminal.
 */
export function progressLines(
  io: Io,
  opts: { quiet?: boolean; barOnTerminal?: boolean; stream?: { isTTY?: boolean } },
): Heartbeat | null {
  const tty = (opts.stream ?? process.stderr).isTTY === true;
  if (opts.quiet || (opts.barOnTerminal && tty)) return null;
  return heartbeat((line) => io.err(tty ? `\x1b[2m${terminalLine(line)}\x1b[0m` : terminalLine(line)));
}
