/**
 * `--log <file|->` and `--queries <file>` of check, collect and audit: the workload a run is given instead of the
 * profiler. The readers' counts are said on stderr (lines, slow queries, what was skipped), never a value: the
 * records' commands are user data and stay in memory (src/workload/record.ts). Records fold into per-shape sums as
 * they are read (src/workload/tally.ts): no record is held, so a log of any length costs the memory of its shapes.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { GivenWorkload, PendingWorkload } from '../core/collector';
import { formatBytes, terminalLine, terminalSafe } from '../core/format';
import { UserError } from '../core/errors';
import { MAX_SPEC_BYTES } from '../core/input-limits';
import {
  DEFAULT_MAX_LOG_BYTES,
  DEFAULT_MAX_LOG_LINES,
  LogCapReached,
  type LogProgress,
  type LogReadResult,
  readSlowQueryLog,
  unusableLog,
} from '../workload/log-reader';
import { DEFAULT_MAX_QUERY_LINES, foldQueriesText, readQueriesFileText } from '../workload/queries-file';
import { WorkloadTally } from '../workload/tally';
import type { Io } from './io';
import type { Heartbeat } from '../lib/heartbeat';
import type { Progress } from './progress';

export interface WorkloadFlags {
  log?: string;
  queries?: string;
  workloadComplete?: boolean;
  maxLogBytes?: number;
  maxLogLines?: number;
  maxQueriesBytes?: number;
  maxQueriesLines?: number;
  /** No progress line while reading. */
  quiet?: boolean;
}

/** `--log <file|->`: the slow queries of the server's JSON log as the workload. */
export function logOption(): Option {
  return new Option(
    '--log <file>',
    "the server's JSON log (4.4+, plain or gzip; - for stdin): its slow queries replace the profiler as the " +
      'workload the query-indexes rule judges',
  );
}

/** `--queries <file>`: the queries the application sends as the workload. */
export function queriesOption(): Option {
  return new Option(
    '--queries <file>',
    'the queries the application sends (Extended JSON): the workload the query-indexes rule judges',
  );
}

/**
 * `--workload-complete`: the given log or queries file holds every operation, so an index no shape of it uses can be
 * called unused (index-usage). A slow-query log cannot say so itself: mongod logs an operation that runs longer than
 * slowms (db.setProfilingLevel in MongoDB's manual: "Operations that run for longer than this threshold are
 * considered slow"), so slowms -1 logs every one, and at profiling level 2 "full logging is enabled on the profiler
 * and the diagnostic log" (the profile command's page); sampleRate below 1 logs a sample either way.
 */
export function workloadCompleteOption(): Option {
  return new Option(
    '--workload-complete',
    'the given log/queries file holds every operation: mongod wrote the log with slowms -1 (or at profiling ' +
      'level 2) and sampleRate 1, or the queries file lists every query the application sends; only then does ' +
      'index-usage call an index that no query of it uses unused',
  );
}

/** "32g", "500m", "64k" or a number of bytes; binary units (1k = 1,024 bytes). */
export function byteSize(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(v.trim());
  const unit = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }[(m?.[2] ?? '').toLowerCase() as 'k'];
  const n = m ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a size such as 500m, 32g or 1048576');
  return n;
}

function count(v: string): number {
  const n = Number(v.replace(/[_,]/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number, 1 or more');
  return n;
}

/* The caps on what --log and --queries read, each with its default and why (the constants' comments say more): a
 * log or a gzip that expands without end stops at the cap with a line saying which and how to raise it. */

/** `--max-log-bytes <size>`. */
export function maxLogBytesOption(): Option {
  return new Option(
    '--max-log-bytes <size>',
    `most bytes of --log read, after gzip (default ${formatBytes(DEFAULT_MAX_LOG_BYTES)}: minutes of reading at ` +
      'about 100-170 MB/s; a gzip that expands past it is more likely a bomb than a log)',
  ).argParser(byteSize);
}

/** `--max-log-lines <n>`. */
export function maxLogLinesOption(): Option {
  return new Option(
    '--max-log-lines <n>',
    `most lines of --log read (default ${DEFAULT_MAX_LOG_LINES.toLocaleString('en-US')}: mongod's lines are ` +
      '200 B to a few KB, so a real log reaches --max-log-bytes first)',
  ).argParser(count);
}

/** `--max-queries-bytes <size>`. */
export function maxQueriesBytesOption(): Option {
  return new Option(
    '--max-queries-bytes <size>',
    `largest --queries file read (default ${formatBytes(MAX_SPEC_BYTES)}, as a spec)`,
  ).argParser(byteSize);
}

/** `--max-queries-lines <n>`. */
export function maxQueriesLinesOption(): Option {
  return new Option(
    '--max-queries-lines <n>',
    `most lines of a --queries file (default ${DEFAULT_MAX_QUERY_LINES.toLocaleString('en-US')}: an ` +
      "application's queries number in the thousands)",
  ).argParser(count);
}

/**
 * The workload's options as check, collect and audit list them, in this order: the sources (--log, --queries), the
 * vouch (--workload-complete), then the caps on each.
 */
export function workloadOptions(): Option[] {
  return [
    logOption(),
    queriesOption(),
    workloadCompleteOption(),
    maxLogBytesOption(),
    maxLogLinesOption(),
    maxQueriesBytesOption(),
    maxQueriesLinesOption(),
  ];
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const num = (n: number): string => n.toLocaleString('en-US');

/**
 * A progress line while a log is read (counts, never a value): rewritten in place on a terminal, one line every
 * 5 s elsewhere (a CI log sees the read move); nothing with --quiet.
 */
function logProgress(
  name: string,
  io: Io,
  quiet: boolean,
): { onProgress?: (p: LogProgress) => void; done: () => void } {
  if (quiet) return { done: () => undefined };
  const stderr = process.stderr;
  const tty = stderr.isTTY === true;
  const started = Date.now();
  let last = started;
  let drawn = false;
  const text = (p: LogProgress): string =>
    `reading ${name}: ${formatBytes(p.bytes)}, ${num(p.lines)} lines, ${num(p.slowQueries)} slow queries, ` +
    `${Math.round((Date.now() - started) / 1000)} s`;
  return {
    onProgress(p) {
      if (tty) {
        stderr.write(`\r\x1b[2K\x1b[2m${terminalLine(text(p))}\x1b[0m`);
        drawn = true;
      } else if (Date.now() - last >= 5_000) {
        last = Date.now();
        io.err(text(p));
      }
    },
    done() {
      if (drawn) stderr.write('\r\x1b[2K');
    },
  };
}

/** The cap a read stopped at, as the user reads it: what, why, how to raise it. */
function capMessage(what: string, err: LogCapReached): UserError {
  const p = err.progress;
  const read = `${formatBytes(p.bytes)} in ${num(p.lines)} lines (${num(p.slowQueries)} slow queries)`;
  const how =
    err.cap === 'bytes' ? `--max-log-bytes (now ${formatBytes(err.limit)})` : `--max-log-lines (now ${num(err.limit)})`;
  const why =
    err.cap === 'bytes'
      ? 'a log this large takes many minutes to read, and a gzip that expands this far may be a decompression bomb'
      : 'lines this many take minutes to read, and a log of short or empty lines (a gzip of newlines) is no log';
  return new UserError(
    `${what} was read up to its cap and not further: ${read} read, and it goes on. Stopped because ${why}. ` +
      `Give a shorter log (a day's, or the lines of the hours to judge), or raise the cap with ${how}.`,
  );
}

/** A flag that vouches for nothing: said before anything is read or connected. */
function checkWorkloadFlags(flags: WorkloadFlags): void {
  if (flags.workloadComplete && flags.log === undefined && flags.queries === undefined)
    throw new UserError(
      '--workload-complete vouches for a --log or --queries file, and none was given (the profiler says its own ' +
        'level: at level 2 it records every operation).',
    );
}

/** The workload the flags name, read, folded as it is read and counted on stderr; undefined without either flag. */
export async function readWorkload(flags: WorkloadFlags, io: Io): Promise<GivenWorkload | undefined> {
  checkWorkloadFlags(flags);
  const tally = new WorkloadTally();
  const from: string[] = [];
  if (flags.log !== undefined) {
    const name = flags.log === '-' ? 'the log on stdin' : `the log ${terminalSafe(flags.log)}`;
    const progress = logProgress(name, io, flags.quiet === true);
    let read: LogReadResult;
    try {
      read = await readSlowQueryLog(flags.log === '-' ? process.stdin : flags.log, {
        onRecord: (r) => tally.add(r),
        ...(flags.maxLogBytes !== undefined ? { maxBytes: flags.maxLogBytes } : {}),
        ...(flags.maxLogLines !== undefined ? { maxLines: flags.maxLogLines } : {}),
        ...(progress.onProgress ? { onProgress: progress.onProgress } : {}),
      });
    } catch (err) {
      if (err instanceof LogCapReached) throw capMessage(name.replace(/^the/, 'The'), err);
      throw err;
    } finally {
      progress.done();
    }
    const c = read.counts;
    const skipped = c.malformed + c.truncated + c.tooLong;
    // the counts are progress (left out by -q); the notes after them are warnings about the input, always said
    if (flags.quiet !== true)
      io.err(
        `${name}: ${plural(c.lines, 'line')} read, ` +
          `${plural(c.slowQueries, 'slow query', 'slow queries')}, ${plural(c.records, 'operation')} kept, ` +
          `${skipped} malformed, truncated or too long skipped, ${c.own + c.scratch} of the advisor's own left out.`,
      );
    const unusable = unusableLog(read);
    if (unusable) throw new UserError(`The log ${flags.log === '-' ? 'on stdin' : flags.log} ${unusable}`);
    for (const n of read.notes) io.err(n);
    from.push(name);
  }
  if (flags.queries !== undefined) {
    const text = readQueriesFileText(flags.queries, flags.maxQueriesBytes);
    const n = foldQueriesText(text, (r) => tally.add(r), flags.queries, flags.maxQueriesLines);
    const name = `the queries file ${terminalSafe(flags.queries)}`;
    if (flags.quiet !== true) io.err(`${name}: ${plural(n, 'query', 'queries')} read.`);
    from.push(name);
  }
  if (!from.length) return undefined;
  return { from: from.join(' and '), folded: tally, ...(flags.workloadComplete ? { complete: true } : {}) };
}

/**
 * What a command's server work gets while the log is read beside it (`alongsideWorkload`). Until the log is read, the
 * log's own progress line is the only thing drawn on stderr: what the server work says waits, then follows the log's
 * summary in the order it was said; when the log fails, it is dropped, as it was never said when the log was read
 * first.
 */
export interface WorkloadRun {
  /** For collect (`workload` of collectDatabases, check, runLive): undefined, the workload, or the log being read. */
  workload: PendingWorkload | undefined;
  /** stderr of the server work (leftover scratch databases, killed-profile lines), held until the log is read. */
  io: Io;
  /** A progress bar (createProgress) drawn from where it stands once the log is read, and never if it fails. */
  progress: (bar: Progress) => Progress;
  /** Progress lines (progressLines) said once the log is read, in order; beats only from then. */
  lines: (lines: Heartbeat | null) => Heartbeat | null;
  /**
   * A connection the server work opened: closed at once when the log fails (a run whose log failed stops there), and
   * refused (closed, then this throws) when it was opened after the log failed.
   */
  own: <A extends { close(): Promise<void> }>(adapter: A) => A;
}

/** Thrown into server work the run no longer waits for: its log failed and was reported. */
class Abandoned extends Error {
  override name = 'Abandoned';
}

/** Holds the server work's output while the log is read; passes it on once read, drops it when the log failed. */
class Hold {
  private state: 'reading' | 'read' | 'failed' = 'reading';
  private readonly waiting: (() => void)[] = [];

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** Runs `say` now when the log is read, later (once it is) while reading, never once it failed. */
  when(say: () => void): void {
    if (this.state === 'read') say();
    else if (this.state === 'reading') this.waiting.push(say);
  }

  settle(read: boolean): void {
    if (this.state !== 'reading') return;
    this.state = read ? 'read' : 'failed';
    const waiting = this.waiting.splice(0);
    if (read) for (const say of waiting) say();
  }
}

function heldProgress(hold: Hold, bar: Progress): Progress {
  return {
    stage: (label, total) => hold.when(() => bar.stage(label, total)),
    tick: (detail) => hold.when(() => bar.tick(detail)),
    stop: () => hold.when(() => bar.stop()),
  };
}

function heldLines(hold: Hold, lines: Heartbeat | null): Heartbeat | null {
  if (!lines) return null;
  return { say: (line) => hold.when(() => lines.say(line)), stop: () => lines.stop() };
}

/** Nothing to hold: the workload was read before the server work started. */
const noHold: Pick<WorkloadRun, 'progress' | 'lines' | 'own'> = {
  progress: (bar) => bar,
  lines: (lines) => lines,
  own: (adapter) => adapter,
};

/**
 * Runs a command's server work (connect, probe, list, sample: `work`) while its `--log` is read. The reading is CPU
 * in this process and the collect mostly waits on the server, so the two overlap: the run takes about the longer of
 * them instead of their sum (bench/README.md, workload-log). The collect waits for the log only before the collector
 * that reads it, and returns only once it is read.
 *
 * What the user sees is what reading the log first showed: a bad or unusable log, or one past a cap, is reported with
 * the same message and exit code, and wins over a failed connection or any other error of the server work (the log
 * is read to its end to know); when the log fails while the server work runs, the run stops at once, its
 * connections closed, nothing more of it said. Without --log (a --queries file is read at once, or no workload) the
 * workload is read first, as before.
 */
export async function alongsideWorkload<T>(
  flags: WorkloadFlags,
  io: Io,
  work: (run: WorkloadRun) => Promise<T>,
): Promise<T> {
  checkWorkloadFlags(flags);
  if (flags.log === undefined) return await work({ ...noHold, io, workload: await readWorkload(flags, io) });
  const hold = new Hold();
  const reading = readWorkload(flags, io).then(
    (workload) => {
      hold.settle(true);
      return workload;
    },
    (err: unknown) => {
      hold.settle(false);
      throw err;
    },
  );
  const owned = new Set<{ close(): Promise<void> }>();
  const closeAll = (): Promise<unknown> => Promise.all([...owned].map((a) => a.close().catch(() => undefined)));
  const run: WorkloadRun = {
    workload: reading,
    io: { ...io, err: (line) => hold.when(() => io.err(line)) },
    progress: (bar) => heldProgress(hold, bar),
    lines: (lines) => heldLines(hold, lines),
    own(adapter) {
      if (hold.failed) {
        void adapter.close().catch(() => undefined);
        throw new Abandoned('the log failed');
      }
      owned.add(adapter);
      return adapter;
    },
  };
  const working = work(run);
  // Whichever comes first: the server work's end, or the log's failure (which stops the run there).
  const first = await Promise.race([
    working.then(
      (value) => ({ value }) as const,
      (error: unknown) => ({ error }) as const,
    ),
    reading.then(
      () => new Promise<never>(() => undefined),
      (logError: unknown) => ({ logError }) as const,
    ),
  ]);
  if ('logError' in first) {
    // The server work is abandoned: its connections closed (its pending commands fail), its end awaited by no one.
    working.catch(() => undefined);
    await closeAll();
    throw first.logError;
  }
  // The log's failure wins over the server work's (it was read first before); a read log lets the work's result stand.
  await reading;
  if ('error' in first) throw first.error;
  return first.value;
}
