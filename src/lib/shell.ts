/**
 * The one builder of mongosh command text. Every command a finding prints, and every sentence that quotes one, is
 * built here, so a name from the database is always data, never code (as a SQL driver quotes identifiers in one
 * function and never splices them into statements):
 * - names are string literals with every character that could end them, end a line or a `//` comment, or act on a
 *   terminal escaped (`shellString`): quotes, backslashes, all control characters, U+2028/U+2029 (JavaScript line
 *   terminators that JSON.stringify leaves raw), bidi marks;
 * - every command names its database and collection as literals, `db.getSiblingDB("shop").getCollection("orders")`,
 *   whatever the current database of the shell that runs it and whatever the names hold (`stats`, `orders-2024`);
 * - object keys are bare only when they are plain identifiers, quoted otherwise, and `__proto__` is a computed key
 *   (an object literal's `__proto__:` or `"__proto__":` sets the prototype instead of a field);
 * - a template with placeholders (`<id>`) is printed as a `//` comment, never as a line that fails when pasted;
 * - a command quoted in prose goes in a code span whose fence is longer than any backtick run it holds.
 * test/command-builder.test.ts greps the rules and the engine so that no other code builds command text.
 */

/** Characters escaped as `\uXXXX` beyond what JSON.stringify escapes: DEL, C1 controls, bidi marks, U+2028/U+2029. */
const RAW_AFTER_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * A string literal for mongosh: the value itself when parsed as JavaScript, on one line, with nothing a terminal acts
 * on. JSON.stringify escapes quotes, backslashes, C0 controls and lone surrogates; the rest are escaped here.
 */
export function shellString(value: string): string {
  return JSON.stringify(value).replace(
    RAW_AFTER_JSON,
    (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** An object key for mongosh: bare where it is an identifier, else quoted; `__proto__` computed, so it is a field. */
export function shellKey(name: string): string {
  if (name === '__proto__') return `[${shellString(name)}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : shellString(name);
}

/** Code put in a command as is (a variable such as `schema`, a placeholder): constants only, never a name. */
export class ShellCode {
  constructor(readonly code: string) {}
}

/** Text that `shellValue` writes as is: for constant code only (a variable name, `$$REMOVE`), never for a name. */
export const shellCode = (code: string): ShellCode => new ShellCode(code);

/** A plain value (objects, arrays, strings, numbers, booleans, null) as mongosh source: keys bare where they can be. */
export function shellValue(v: unknown): string {
  if (v instanceof ShellCode) return v.code;
  if (Array.isArray(v)) return `[${v.map(shellValue).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${shellKey(k)}: ${shellValue(x)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  if (typeof v === 'string') return shellString(v);
  return v === undefined ? 'undefined' : JSON.stringify(v);
}

/** A database by name, whatever the shell's current database: `db.getSiblingDB("shop")`. */
export function shellDb(db: string): string {
  return `db.getSiblingDB(${shellString(db)})`;
}

/** A collection by database and name: `db.getSiblingDB("shop").getCollection("orders")`, for any names. */
export function shellCollection(db: string, collection: string): string {
  return `${shellDb(db)}.getCollection(${shellString(collection)})`;
}

/** A method call on a collection: `shellCall("shop", "orders", "dropIndex", "status_1")`; arguments via shellValue. */
export function shellCall(db: string, collection: string, method: string, ...args: unknown[]): string {
  return `${shellCollection(db, collection)}.${method}(${args.map(shellValue).join(', ')})`;
}

/** A method call on a database: `shellDbCall("shop", "createCollection", "orders_v2")`. */
export function shellDbCall(db: string, method: string, ...args: unknown[]): string {
  return `${shellDb(db)}.${method}(${args.map(shellValue).join(', ')})`;
}

/** A database command: `db.getSiblingDB("shop").runCommand({ collMod: "orders", … })`. */
export function shellRunCommand(db: string, command: Record<string, unknown>): string {
  return shellDbCall(db, 'runCommand', command);
}

/**
 * A line with placeholders (`<id>`, `<item>`) to fill in before it can run, printed as a `//` comment so that pasting
 * it does nothing and fails nothing. The builder escapes every line terminator in names, so the comment cannot end
 * early.
 */
export function shellTemplate(line: string): string {
  return `// fill in the <…> first: ${line}`;
}

/** A line pasting cannot run: a later step, or how to undo. The line holds no raw line terminator (names escaped). */
export function shellCommentOut(line: string): string {
  return `// ${line}`;
}

/** A query shape for display (`db.orders.find({ status: ? })`): not a command, the short form reads best in a table. */
export function shapeCollection(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !SHELL_DB_MEMBERS.has(name)
    ? `db.${name}`
    : `db.getCollection(${shellString(name)})`;
}

const SHELL_DB_MEMBERS = new Set([
  'stats',
  'version',
  'help',
  'auth',
  'logout',
  'getName',
  'runCommand',
  'aggregate',
  'watch',
  'getMongo',
  'getSiblingDB',
  'createCollection',
  'dropDatabase',
]);

const longestBacktickRun = (s: string): number => {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === '`' ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
};

/**
 * A command quoted in a sentence, as a code span that holds it whole whatever backticks it contains (CommonMark: the
 * fence is a longer backtick run, with a space inside when the text starts or ends with a backtick).
 */
export function codeSpan(command: string): string {
  const fence = '`'.repeat(longestBacktickRun(command) + 1);
  const pad = command.startsWith('`') || command.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${command}${pad}${fence}`;
}

/**
 * A later step as every report prints it: a label line with the condition, then each command commented out, so a
 * block pasted whole (or the two blocks pasted together) runs none of it. Remove the `// ` to run a line.
 */
export function laterLines(later: { when: string; commands: readonly string[] }): string[] {
  return [`// later, ${later.when}, remove the "// " and run:`, ...later.commands.map(shellCommentOut)];
}
