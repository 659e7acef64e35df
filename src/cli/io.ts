import { closeSync, openSync, writeFileSync } from 'node:fs';
import { UserError } from '../core/errors';
import { terminalLine } from '../core/format';

/** Where the CLI writes; tests pass their own. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
  /**
   * Resolves once everything given to `out` has been written; rejects with an OutputError when some of it could not
   * be (a closed pipe, a full disk). Absent when there is nothing to wait for (an Io in memory).
   */
  flush?: (what?: string) => Promise<void>;
}

/** 0: nothing at or above the failing severity; 1: findings; 2: usage, input or connection errors. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** Output that could not be written: one line on stderr, exit 2, and no verdict after it. */
export class OutputError extends UserError {
  override name = 'OutputError';
}

const WHY: Record<string, string> = {
  EPIPE: 'the program reading it closed the pipe (EPIPE)',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EBADF: 'it is not open for writing (EBADF)',
  EIO: 'the device failed (EIO; a closed terminal does this)',
  EACCES: 'permission denied (EACCES)',
  EPERM: 'permission denied (EPERM)',
  ENOENT: 'its directory does not exist (ENOENT)',
  EISDIR: 'it is a directory (EISDIR)',
  EROFS: 'the file system is read-only (EROFS)',
  ERR_STREAM_DESTROYED: 'it was closed by an earlier failure',
};

/** "Could not write the report to stdout: no space left on the device (ENOSPC). …what to do". */
export function outputError(err: unknown, what: string, where: string): OutputError {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  const why = WHY[code] ?? (err instanceof Error ? err.message : String(err));
  const next =
    where !== 'stdout'
      ? 'Check the path, its permissions and the free space, or give another file with -o <file>.'
      : code === 'EPIPE'
        ? 'Keep the reading program open until mongo-advisor ends, or write to a file with -o <file>.'
        : 'Make stdout writable (free space where it goes), or write to a file with -o <file>.';
  return new OutputError(`Could not write the ${what} to ${terminalLine(where)}: ${terminalLine(why)}. ${next}`);
}

/**
 * Writes to a stream and remembers the first failure instead of crashing on an unhandled 'error' event; `flush`
 * waits for every write and says whether they all landed.
 */
export interface CheckedStream {
  write: (s: string) => void;
  flush: (what?: string) => Promise<void>;
}

export function checkedStream(stream: NodeJS.WritableStream, where = 'stdout'): CheckedStream {
  let failure: unknown = null;
  let pending = 0;
  let waiters: (() => void)[] = [];
  const settle = (): void => {
    if (pending > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  stream.on('error', (e: unknown) => {
    failure ??= e;
  });
  const write = (s: string): void => {
    if (failure !== null) return;
    pending++;
    try {
      stream.write(s, (e) => {
        if (e) failure ??= e;
        pending--;
        settle();
      });
    } catch (e) {
      failure ??= e;
      pending--;
    }
  };
  const flush = async (what = 'output'): Promise<void> => {
    if (pending > 0) await new Promise<void>((resolve) => waiters.push(resolve));
    if (failure !== null) throw outputError(failure, what, where);
  };
  return { write, flush };
}

const line = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);
const stdout = checkedStream(process.stdout);
// stderr is where a failure is said; if it fails too there is nowhere left to say it, and no reason to crash.
process.stderr.on('error', () => undefined);

export const defaultIo: Io = {
  out: (s) => stdout.write(line(s)),
  err: (s) => void process.stderr.write(line(s)),
  isTTY: process.stdout.isTTY === true,
  flush: stdout.flush,
};

/** A report: one string, or its lines (a report too large for one string is written a batch of lines at a time). */
export type Report = string | readonly string[];

const BATCH = 4096;

function* batches(report: Report): Generator<string> {
  if (typeof report === 'string') {
    yield report;
    return;
  }
  for (let i = 0; i < report.length; i += BATCH) yield report.slice(i, i + BATCH).join('\n');
}

function writeFile(file: string, report: Report, what: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'w');
    // writeFileSync on a descriptor writes the whole chunk (it loops over partial writes).
    for (const chunk of batches(report)) writeFileSync(fd, line(chunk));
    closeSync(fd);
    fd = null;
  } catch (err) {
    if (fd !== null) closeQuietly(fd);
    throw outputError(err, what, file);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // the write's failure is the one to report
  }
}

/**
 * Writes a report to a file (then one line on stderr says where) or to stdout (no file, or `-`), and resolves only
 * once it is written: a verdict printed after it never claims a report that was lost. A failure is an OutputError
 * (exit 2, one line, no stack).
 */
export async function writeOutput(io: Io, report: Report, file: string | undefined, what = 'report'): Promise<void> {
  if (!file || file === '-') {
    for (const chunk of batches(report)) io.out(chunk);
    await io.flush?.(what);
    return;
  }
  writeFile(file, report, what);
  io.err(`Wrote the ${what} to ${terminalLine(file)}`);
}

/**
 * The Io that informational lines on stderr go through: under `-q` they are left out ("Wrote the report to …", the
 * summary of a log read), while errors still reach stderr (they are thrown, and said by the caller's own Io).
 */
export function informing(io: Io, quiet: boolean | undefined): Io {
  if (quiet !== true) return io;
  return {
    out: (s) => io.out(s),
    err: () => undefined,
    isTTY: io.isTTY,
    ...(io.flush ? { flush: (what?: string) => (io.flush as (w?: string) => Promise<void>)(what) } : {}),
  };
}
