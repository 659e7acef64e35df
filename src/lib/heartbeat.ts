/**
 * Progress as plain lines, for where a bar cannot be drawn (mongosh, a CI log, a pipe): each step is one line as it
 * starts, and while a step runs past `everyMs` without another line, one short line says how long it has run, so a
 * run is never silent for more than a few seconds.
 */
export interface Heartbeat {
  /** Writes a step's line; the next beats count from now. */
  say(line: string): void;
  /** Stops the beats (call it when the run ends, or its timer keeps nothing alive but still fires). */
  stop(): void;
}

export const HEARTBEAT_MS = 5_000;

export function heartbeat(write: (line: string) => void, everyMs = HEARTBEAT_MS): Heartbeat {
  let since = Date.now();
  let last = since;
  let current = '';
  // Ticks often, beats only after `everyMs` of silence: the longest gap stays near everyMs, not twice it.
  const timer = setInterval(
    () => {
      if (!current || Date.now() - last < everyMs) return;
      last = Date.now();
      write(`  … ${Math.round((last - since) / 1000)} s into: ${current}`);
    },
    Math.max(100, Math.floor(everyMs / 5)),
  );
  // Never the reason a process stays up.
  timer.unref();
  return {
    say(line) {
      since = Date.now();
      last = since;
      current = line.length > 100 ? `${line.slice(0, 99)}…` : line;
      write(line);
    },
    stop() {
      clearInterval(timer);
      current = '';
    },
  };
}
