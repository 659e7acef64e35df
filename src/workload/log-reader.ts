/**
 * Reads the slow queries of a MongoDB 4.4+ JSON log: lines with `"id":51803` ("Slow query", written by
 * `OpDebug::report`, src/mongo/db/curop.cpp of mongodb/mongo). The log is streamed (a path or stdin, plain or gzip),
 * never held: only the lines that hold `"id":51803,` are decoded and parsed, the rest are counted and passed by as
 * bytes. A command the server cut (`{"$truncated": …}`) cannot be replayed and is counted, as are malformed lines,
 * lines over the length limit, the advisor's own operations and those on its scratch databases.
 *
 * Notes and errors never quote a line: they give line numbers and counts (the commands hold user data).
 */
import type { Readable } from 'node:stream';
import { UserError } from '../core/errors';
import { ownValue } from '../lib/names-as-data';
import { reviveExtendedJson } from './ejson';
import { inputChunks, LineSplitter } from './lines';
import { fileErrorReason } from './read-error';
import {
  type CommandDocument,
  type OpKind,
  type WorkloadRecord,
  commandOfStatement,
  executionFacts,
  exclusionOf,
  recordOf,
  type RecordFacts,
  opKindOf,
  parseNamespace,
} from './record';

export const SLOW_QUERY_LOG_ID = 51803;
const MARKER = Buffer.from(`"id":${SLOW_QUERY_LOG_ID},`);

/**
 * Longest line read: 4 MiB. mongod cuts each attribute at `maxLogSizeKB` (10 KB by default) and a slow-query line
 * has a few dozen attributes, so a line this long comes from a raised limit or is not a log line at all.
 */
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface LogCounts {
  lines: number;
  /** Bytes read (after gzip). */
  bytes: number;
  slowQueries: number;
  records: number;
  malformed: number;
  truncated: number;
  own: number;
  scratch: number;
  tooLong: number;
  /** Update and delete commands whose statements were logged (and counted) on their own. */
  statementsLogged: number;
}

/**
 * Most bytes read from a log, after gzip: 32 GiB. The reader runs at about 100-170 MB/s on a shared machine
 * (bench/README.md, workload-log), so this is 3 to 6 minutes of reading; a day's log of a busy mongod is a few GB. A
 * gzip that expands past it is more likely a decompression bomb than a log. `--max-log-bytes` raises it.
 */
export const DEFAULT_MAX_LOG_BYTES = 32 * 2 ** 30;
/**
 * Most lines read from a log: 100 million. mongod's JSON lines run from about 200 bytes to a few KB, so a real log
 * reaches 32 GiB (above) before this; lines much shorter than that (a gzip of newlines: 2 MB held 2^31 of them and
 * kept a run busy for minutes) reach this first. `--max-log-lines` raises it.
 */
export const DEFAULT_MAX_LOG_LINES = 100_000_000;

/** How far a read has come, for a progress line (no value: counts only). */
export interface LogProgress {
  bytes: number;
  lines: number;
  slowQueries: number;
}

/** A read stopped at a cap: what was read, and which cap. */
export class LogCapReached extends UserError {
  constructor(
    readonly cap: 'bytes' | 'lines',
    readonly limit: number,
    readonly progress: LogProgress,
  ) {
    super(`the ${cap} cap (${limit}) was reached`);
  }
}

export interface LogReadOptions {
  maxLineBytes?: number;
  /** Decompressed bytes to read at most (DEFAULT_MAX_LOG_BYTES). */
  maxBytes?: number;
  /** Lines to read at most (DEFAULT_MAX_LOG_LINES). */
  maxLines?: number;
  /** Called about once a second while reading, and once at the end. */
  onProgress?: (p: LogProgress) => void;
  /** Called for each record instead of collecting them (for logs with more records than fit in memory). */
  onRecord?: (record: WorkloadRecord) => void;
}

export interface LogReadResult {
  /** Empty when `onRecord` was given. */
  records: WorkloadRecord[];
  counts: LogCounts;
  notes: string[];
  /** How the input looked: its first lines tried as JSON log entries, and whether gzip data broke off. */
  sniff: LogSniff;
}

/** The first few non-blank lines are parsed whatever they hold: a log with none that is a JSON entry is no log. */
export interface LogSniff {
  /** Lines tried (at most SNIFF_LINES). */
  probed: number;
  /** Of those, JSON objects with a `t` or an `id`, as every line of mongod's JSON log is. */
  entries: number;
  /** The line gzip data broke off after, when it did. */
  gzipBrokeAfter?: number;
  /** The longest line read; longer ones were skipped unread. */
  maxLineBytes: number;
}

/** Lines tried for the sniff: a log cut mid-line (tail -c) still has whole entries among them. */
const SNIFF_LINES = 20;

type Outcome = WorkloadRecord | 'notSlow' | 'malformed' | 'truncated' | 'own' | 'scratch' | 'statementsLogged';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The log's `type` for operations logged without a command kind of their own (4.4 legacy writes). */
const LEGACY_TYPES: Readonly<Record<string, OpKind>> = {
  query: 'find',
  update: 'update',
  remove: 'delete',
  getmore: 'getMore',
};

function wasTruncated(entry: Record<string, unknown>, command: Record<string, unknown>): boolean {
  return '$truncated' in command || (isObject(entry.truncated) && 'command' in entry.truncated);
}

/**
 * Write commands whose statements were logged on their own, by connection: mongod logs each slow statement of an
 * update or delete (`"c":"WRITE"`, the statement as `command`), then the command that carried them (`"c":"COMMAND"`,
 * `update`/`delete` with its `updates`/`deletes`) when it too ran past slowms, which it does whenever one of its
 * statements did. Counting both would count the statements twice: the command is left out when the same connection
 * just logged one of its statements (the same `q` and `u` as logged) on the same namespace. Keyed on the statements,
 * not only the connection: at a sampleRate below 1 a statement's line and its command's line are sampled apart, so a
 * connection's next command may follow a statement it does not hold, and is then a distinct operation, counted.
 * Bounded: a connection's entry goes with its command, and at most MAX_PENDING statements wait per connection.
 */
export class StatementsSeen {
  private readonly byCtx = new Map<string, { ns: string; statements: Set<string> }>();

  /** Whether this record only repeats statements already counted; `raw` is the logged `command`, as parsed. */
  repeats(ctx: unknown, record: WorkloadRecord, statementForm: boolean, raw: Record<string, unknown>): boolean {
    if (typeof ctx !== 'string' || (record.op !== 'update' && record.op !== 'delete')) return false;
    const ns = `${record.ns.db}.${record.ns.coll}`;
    if (statementForm) {
      if (this.byCtx.size > 100_000) this.byCtx.clear();
      let pending = this.byCtx.get(ctx);
      if (pending?.ns !== ns) this.byCtx.set(ctx, (pending = { ns, statements: new Set() }));
      if (pending.statements.size < MAX_PENDING) pending.statements.add(statementKey(raw));
      return false;
    }
    const pending = this.byCtx.get(ctx);
    if (pending?.ns !== ns) return false;
    this.byCtx.delete(ctx);
    const list = raw[record.op === 'update' ? 'updates' : 'deletes'];
    return Array.isArray(list) && list.some((s) => isObject(s) && pending.statements.has(statementKey(s)));
  }
}

/** Statements of one write command waiting for its line, per connection (a command holds up to 100,000). */
const MAX_PENDING = 1000;

/** A statement as the log wrote it, its filter and update: the same text in its own line and in its command's. */
const statementKey = (s: Record<string, unknown>): string => JSON.stringify([s.q ?? null, s.u ?? null]);

/** One slow-query line, parsed, to a record or the reason it is not one. */
export function recordOfLogLine(text: string, seen?: StatementsSeen): Outcome {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return 'malformed';
  }
  if (!isObject(entry) || entry.id !== SLOW_QUERY_LOG_ID) return 'notSlow';
  const attr = entry.attr;
  if (!isObject(attr) || !isObject(attr.command)) return 'malformed';
  if (wasTruncated(entry, attr.command)) return 'truncated';
  const ns = parseNamespace(attr.ns);
  if (ns === null) return 'malformed';
  const excluded = exclusionOf(attr.appName, ns, attr.command, attr.originatingCommand);
  if (excluded !== null) return excluded;
  let command: CommandDocument;
  let originating: CommandDocument | undefined;
  try {
    command = reviveExtendedJson(attr.command) as CommandDocument;
    if (isObject(attr.originatingCommand)) {
      originating = reviveExtendedJson(attr.originatingCommand) as CommandDocument;
    }
  } catch {
    return 'malformed';
  }
  let op = opKindOf(command);
  if (op === 'other' && typeof attr.type === 'string') op = ownValue(LEGACY_TYPES, attr.type) ?? 'other';
  const statement = commandOfStatement(op, ns, command);
  // the facts made in one fresh object, which becomes the record (no copy)
  const facts: RecordFacts = executionFacts(attr, { source: 'log', ns, op });
  const record = recordOf(facts, statement, originating);
  if (seen?.repeats(entry.ctx, record, statement !== command, attr.command)) return 'statementsLogged';
  return record;
}

interface Tally {
  counts: LogCounts;
  firstMalformed: number;
  firstTooLong: number;
  firstTruncated: number;
}

function newTally(): Tally {
  const counts: LogCounts = {
    lines: 0,
    bytes: 0,
    slowQueries: 0,
    records: 0,
    malformed: 0,
    truncated: 0,
    own: 0,
    scratch: 0,
    tooLong: 0,
    statementsLogged: 0,
  };
  return { counts, firstMalformed: 0, firstTooLong: 0, firstTruncated: 0 };
}

function tallyOutcome(t: Tally, outcome: Outcome, emit: (r: WorkloadRecord) => void): void {
  const c = t.counts;
  if (outcome === 'notSlow') return;
  c.slowQueries++;
  if (outcome === 'malformed') {
    c.malformed++;
    t.firstMalformed ||= c.lines;
  } else if (outcome === 'truncated') {
    c.truncated++;
    t.firstTruncated ||= c.lines;
  } else if (outcome === 'own' || outcome === 'scratch' || outcome === 'statementsLogged') {
    c[outcome]++;
  } else {
    c.records++;
    emit(outcome);
  }
}

function notesOf(t: Tally, maxLineBytes: number): string[] {
  const c = t.counts;
  const notes: string[] = [];
  if (c.malformed) {
    notes.push(
      `${c.malformed} slow-query line(s) could not be read as JSON log entries and were skipped ` +
        `(first: line ${t.firstMalformed}).`,
    );
  }
  if (c.truncated) {
    notes.push(
      `${c.truncated} slow query(ies) had a command the server truncated ($truncated, over ` +
        `maxLogSizeKB) and were skipped (first: line ${t.firstTruncated}).`,
    );
  }
  if (c.tooLong) {
    notes.push(`${c.tooLong} line(s) longer than ${maxLineBytes} bytes were skipped (first: line ${t.firstTooLong}).`);
  }
  if (c.lines > c.tooLong && c.slowQueries === 0)
    notes.push(
      'It holds no slow query (no line with "id":51803): mongod logs only operations slower than slowms (100 ms by ' +
        'default). Lower it for a while (db.setProfilingLevel(0, { slowms: 20 })) and give the log again, or ' +
        'run mongo-advisor profile.',
    );
  if (c.own) notes.push(`${c.own} slow query(ies) of the advisor itself (appName mongo-advisor) were left out.`);
  if (c.scratch) notes.push(`${c.scratch} slow query(ies) on the advisor's scratch databases were left out.`);
  if (c.statementsLogged)
    notes.push(
      `${c.statementsLogged} update or delete command(s) whose statements mongod also logged one by one were ` +
        'counted once, by statement.',
    );
  return notes;
}

function describeReadError(err: unknown, input: string | Readable): Error {
  const where = typeof input === 'string' ? input : 'the input stream';
  const reason = fileErrorReason(err);
  if (reason !== null) return new UserError(`Cannot read the log ${where}: ${reason}.`);
  return err instanceof Error ? err : new Error(String(err));
}

/** Tries one of the first lines as a JSON log entry (blank lines are not tried). */
function sniffLine(sniff: LogSniff, buf: Buffer, start: number, end: number): void {
  if (sniff.probed >= SNIFF_LINES || end === start || buf.subarray(start, end).toString('latin1').trim() === '') return;
  sniff.probed++;
  try {
    const v: unknown = JSON.parse(buf.toString('utf8', start, end));
    if (isObject(v) && ('t' in v || 'id' in v)) sniff.entries++;
  } catch {
    // not JSON: counted as probed only
  }
}

/**
 * Why a log that was read cannot be the workload, or null: nothing in it, gzip that broke off before its first line,
 * or no JSON log entry among its first lines (a binary file, a text log of MongoDB 4.2 or before). Each says what to
 * give instead; the caller names the file.
 */
export function unusableLog(read: LogReadResult): string | null {
  const { counts: c, sniff } = read;
  const give = "give mongod's log file (systemLog.path), plain or gzip, or leave --log out to read the profiler";
  if (c.lines === 0 && sniff.gzipBrokeAfter !== undefined)
    return `starts as gzip but ends early or is damaged before its first line: nothing could be read; ${give}.`;
  if (c.lines === 0) return `is empty: it holds no slow query to judge the indexes by; ${give}.`;
  if (c.tooLong === c.lines)
    return (
      `holds only lines longer than ${sniff.maxLineBytes} bytes, which mongod does not write (it cuts each ` +
      `attribute at maxLogSizeKB): nothing was read; ${give}.`
    );
  if (sniff.probed > 0 && sniff.entries === 0)
    return (
      `is not MongoDB's JSON log: none of its first ${sniff.probed} lines is a JSON log entry (MongoDB 4.4 and ` +
      `later write one per line; the text logs of 4.2 and before are not read); ${give}.`
    );
  return null;
}

/** Reads the slow queries of a JSON log file or stream. See the file's header. */
export async function readSlowQueryLog(input: string | Readable, opts: LogReadOptions = {}): Promise<LogReadResult> {
  const maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_LOG_BYTES;
  const maxLines = opts.maxLines ?? DEFAULT_MAX_LOG_LINES;
  const records: WorkloadRecord[] = [];
  const emit = opts.onRecord ?? ((r: WorkloadRecord) => void records.push(r));
  const t = newTally();
  const seen = new StatementsSeen();
  const sniff: LogSniff = { probed: 0, entries: 0, maxLineBytes };
  const splitter = new LineSplitter(MARKER, maxLineBytes, {
    line(buf, start, end, marked) {
      t.counts.lines++;
      if (sniff.probed < SNIFF_LINES) sniffLine(sniff, buf, start, end);
      if (marked) tallyOutcome(t, recordOfLogLine(buf.toString('utf8', start, end), seen), emit);
    },
    tooLong() {
      t.counts.lines++;
      t.counts.tooLong++;
      t.firstTooLong ||= t.counts.lines;
    },
  });
  const notes: string[] = [];
  const c = t.counts;
  const progress = (): LogProgress => ({ bytes: c.bytes, lines: c.lines, slowQueries: c.slowQueries });
  let nextBeat = Date.now() + 1000;
  try {
    for await (const chunk of inputChunks(input)) {
      // A chunk past the byte cap is cut to it: the read ends at the cap, not a chunk later.
      const room = maxBytes - c.bytes;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      c.bytes += part.length;
      splitter.push(part);
      if (c.lines > maxLines) throw new LogCapReached('lines', maxLines, progress());
      if (chunk.length > room) throw new LogCapReached('bytes', maxBytes, progress());
      if (opts.onProgress && Date.now() >= nextBeat) {
        nextBeat = Date.now() + 1000;
        opts.onProgress(progress());
      }
    }
  } catch (err) {
    if (err instanceof LogCapReached) throw err;
    if (!String((err as NodeJS.ErrnoException).code ?? '').startsWith('Z_')) throw describeReadError(err, input);
    notes.push(`The gzip data ends early or is damaged after line ${t.counts.lines}: what follows could not be read.`);
    sniff.gzipBrokeAfter = t.counts.lines;
  }
  splitter.end();
  opts.onProgress?.(progress());
  return { records, counts: t.counts, notes: [...notesOf(t, maxLineBytes), ...notes], sniff };
}
