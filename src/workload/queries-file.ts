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

/** Reads the entries of a queries file's text; `name` is what error messages call the file. */
export function parseQueriesText(text: string, name = 'the queries file'): WorkloadRecord[] {
  const records: WorkloadRecord[] = [];
  const errors: string[] = [];
  let failed = 0;
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
    } else records.push(out);
  }
  if (failed > 0) {
    // One line, whatever the count: a CI log shows it whole, and the terminal escapes no newline into it.
    const more = failed > errors.length ? `; … and ${failed - errors.length} more` : '';
    const entries = failed === 1 ? 'entry' : 'entries';
    if (records.length === 0)
      throw new UserError(
        `${name} is not a queries file: no entry of it could be read (${errors.join('; ')}${more}). ` + FORMAT,
      );
    throw new UserError(`${name} has ${failed} unreadable ${entries}: ${errors.join('; ')}${more}.`);
  }
  if (records.length === 0) throw new UserError(`${name} holds no queries. ${FORMAT}`);
  return records;
}

/** Reads a queries file (at most 64 MiB, as a spec). */
export function readQueriesFile(file: string): WorkloadRecord[] {
  let text: string;
  try {
    text = readTextBounded(file, MAX_SPEC_BYTES);
  } catch (err) {
    if (err instanceof TooLarge) throw new UserError(`${file} is larger than ${MAX_SPEC_BYTES} bytes.`);
    const reason = fileErrorReason(err);
    if (reason !== null) throw new UserError(`Cannot read ${file}: ${reason}.`);
    throw err;
  }
  return parseQueriesText(text, file);
}
