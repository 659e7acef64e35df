/**
 * A queries file: the operations an application runs, written by hand or by a tool, in MongoDB Extended JSON
 * (canonical or relaxed: `{"$oid": …}`, `{"$date": …}` keep their types for replay). Either one JSON array, or one
 * document per line (blank lines and lines starting with `//` are skipped). Each entry is
 *
 * - a command as sent, with its database: `{"find": "orders", "filter": {…}, "$db": "shop"}`, or
 * - a wrapper: `{"ns": "shop.orders", "command": {"find": "orders", …}, "file": "src/orders.ts", "line": 42}`
 *   (`db` instead of `ns` takes the collection from the command).
 *
 * Commands: find, aggregate, update, delete, count, distinct, findAndModify. Errors name the line (or, in an
 * array, the entry) and what is wrong, never a value.
 */
import { EJSON } from 'bson';
import { UserError } from '../core/errors';
import { MAX_NESTING, MAX_SPEC_BYTES, TooLarge, readTextBounded } from '../core/input-limits';
import { fileErrorReason } from './read-error';
import { type CommandDocument, type OpKind, type WorkloadRecord, makeRecord, opKindOf, parseNamespace } from './record';

const KINDS: readonly OpKind[] = ['find', 'aggregate', 'update', 'delete', 'count', 'distinct', 'findAndModify'];
const MAX_ERRORS = 10;
/** What a queries file holds, said when a file holds none of it. */
const FORMAT =
  'Write one command per line in Extended JSON, e.g. {"find": "orders", "filter": {"status": "open"}, "$db": "shop"} ' +
  '(or one JSON array of them): find, aggregate, update, delete, count, distinct or findAndModify.';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function depthOver(v: unknown, limit: number): boolean {
  if (limit < 0) return true;
  if (v === null || typeof v !== 'object') return false;
  for (const x of Object.values(v)) if (depthOver(x, limit - 1)) return true;
  return false;
}

/** One entry to a record, or the reason (no values) it is not one. */
export function recordOfQueryEntry(entry: unknown, entryLine?: number): WorkloadRecord | string {
  if (!isObject(entry)) return 'is not a document';
  const wrapped = isObject(entry.command);
  const command = (wrapped ? entry.command : entry) as CommandDocument;
  const op = opKindOf(command);
  if (!KINDS.includes(op)) {
    return (
      `is not one of ${KINDS.join(', ')} (its first field names the command): inserts and admin commands ` +
      `have no query shape to judge; leave them out`
    );
  }
  const coll = command[Object.keys(command)[0] as string];
  if (typeof coll !== 'string' && !(op === 'aggregate' && coll === 1)) {
    return `names no collection (the value of "${op}" must be a string)`;
  }
  const db = wrapped && typeof entry.db === 'string' ? entry.db : command.$db;
  const ns =
    wrapped && entry.ns !== undefined
      ? parseNamespace(entry.ns)
      : typeof db === 'string' && db !== ''
        ? { db, coll: typeof coll === 'string' ? coll : '$cmd.aggregate' }
        : null;
  if (ns === null) return 'has no database: give "$db" in the command, or "ns": "db.collection" around it';
  let at: WorkloadRecord['at'];
  if (wrapped && entry.file !== undefined) {
    if (typeof entry.file !== 'string' || !Number.isInteger(entry.line) || (entry.line as number) < 1) {
      return '"file" must be a string with "line" a positive integer';
    }
    at = { file: entry.file, line: entry.line as number };
  }
  const facts = { source: 'file' as const, ns, op, ...(at ? { at } : {}), ...(entryLine ? { entryLine } : {}) };
  return makeRecord(facts, command);
}

function parseOne(text: string): unknown {
  return EJSON.parse(text, { relaxed: true });
}

/**
 * The 1-based line each element of a top-level JSON array starts on, in one pass (strings and their escapes skipped):
 * a finding on an entry points at its line.
 */
export function arrayEntryLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && expecting && c !== undefined && !/[\s,\]]/.test(c)) {
      lines.push(line);
      expecting = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expecting = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expecting = true;
  }
  return lines;
}

interface Entry {
  where: string;
  line: number | undefined;
  parse: () => unknown;
}

function entriesOf(text: string): Entry[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch {
      throw new UserError('The queries file starts with "[" but is not a valid JSON array.');
    }
    if (!Array.isArray(all)) throw new UserError('The queries file starts with "[" but is not a JSON array.');
    const lines = arrayEntryLines(text);
    return all.map((e, i) => ({
      where: `entry ${i + 1}${lines[i] ? ` (line ${lines[i]})` : ''}`,
      line: lines[i],
      parse: (): unknown => EJSON.deserialize(e as object) as unknown,
    }));
  }
  const out: Entry[] = [];
  text.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (t === '' || t.startsWith('//')) return;
    out.push({ where: `line ${i + 1}`, line: i + 1, parse: () => parseOne(t) });
  });
  return out;
}

/**
 * Most lines a queries file may hold: 1,000,000. One query per line, an application's queries written out (or
 * generated from its code) number in the hundreds to thousands; a million is a machine's dump, not a list to review,
 * and the 64 MiB byte cap (MAX_SPEC_BYTES) allows about that many short lines. `--max-queries-lines` raises it.
 */
export const DEFAULT_MAX_QUERY_LINES = 1_000_000;

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Reads the entries of a queries file's text and hands each record to `onRecord` as it is read (nothing is held);
 * returns how many. Throws one UserError for unreadable entries (up to 10 named, never a value) after the pass.
 */
export function foldQueriesText(
  text: string,
  onRecord: (r: WorkloadRecord) => void,
  name = 'the queries file',
  maxLines = DEFAULT_MAX_QUERY_LINES,
): number {
  const lines = lineCount(text);
  if (lines > maxLines)
    throw new UserError(
      `${name} has ${lines} lines, more than the ${maxLines} a queries file is read up to (an application's ` +
        'queries number in the thousands; more is likely a dump of a log): give the log itself with --log, or ' +
        'raise the cap with --max-queries-lines.',
    );
  const errors: string[] = [];
  let failed = 0;
  let read = 0;
  for (const { where, line, parse } of entriesOf(text)) {
    let entry: unknown;
    let problem: string | undefined;
    try {
      entry = parse();
      if (depthOver(entry, MAX_NESTING)) problem = `is nested deeper than ${MAX_NESTING} levels`;
    } catch {
      problem = 'is not valid Extended JSON';
    }
    const out = problem ?? recordOfQueryEntry(entry, line);
    if (typeof out === 'string') {
      failed++;
      if (errors.length < MAX_ERRORS) errors.push(`${where}: the entry ${out}`);
    } else {
      read++;
      onRecord(out);
    }
  }
  if (failed > 0) {
    // One line, whatever the count: a CI log shows it whole, and the terminal escapes no newline into it.
    const more = failed > errors.length ? `; … and ${failed - errors.length} more` : '';
    const entries = failed === 1 ? 'entry' : 'entries';
    if (read === 0)
      throw new UserError(
        `${name} is not a queries file: no entry of it could be read (${errors.join('; ')}${more}). ` + FORMAT,
      );
    throw new UserError(`${name} has ${failed} unreadable ${entries}: ${errors.join('; ')}${more}.`);
  }
  if (read === 0) throw new UserError(`${name} holds no queries. ${FORMAT}`);
  return read;
}

/** Reads the entries of a queries file's text; `name` is what error messages call the file. */
export function parseQueriesText(text: string, name = 'the queries file', maxLines?: number): WorkloadRecord[] {
  const records: WorkloadRecord[] = [];
  foldQueriesText(text, (r) => records.push(r), name, maxLines);
  return records;
}

/** The text of a queries file (at most `maxBytes`, 64 MiB by default, as a spec), or a UserError saying why not. */
export function readQueriesFileText(file: string, maxBytes = MAX_SPEC_BYTES): string {
  try {
    return readTextBounded(file, maxBytes);
  } catch (err) {
    if (err instanceof TooLarge)
      throw new UserError(
        `${file} is larger than ${maxBytes} bytes, more than a queries file is read up to (an application's ` +
          'queries fit in a few MB): give the log itself with --log, or raise the cap with --max-queries-bytes.',
      );
    const reason = fileErrorReason(err);
    if (reason !== null) throw new UserError(`Cannot read ${file}: ${reason}.`);
    throw err;
  }
}

/** Reads a queries file (at most 64 MiB, as a spec). */
export function readQueriesFile(file: string): WorkloadRecord[] {
  return parseQueriesText(readQueriesFileText(file), file);
}
