/**
 * The kinds of command the project prints, as the paste test (test/paste-safe.e2e.test.ts) knows them, and the guard's
 * reading of the source (test/paste-kinds.test.ts): a rule that starts printing a method the paste test never pasted
 * fails the guard until the method is pasted and judged on the server, or listed below with the reason it is not.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Methods (and runCommand's command names) the paste test pastes into a real mongosh and judges on the server: each
 * must do exactly its own action on exactly its object. `aggregate $merge` is aggregate with a $merge stage.
 */
export const PASTED_KINDS = [
  'aggregate $merge',
  'collMod',
  'countDocuments',
  'createCollection',
  'createIndex',
  'dropIndex',
  'getIndexes',
  'hideIndex',
  'renameCollection',
  'unhideIndex',
  'updateMany',
] as const;

/**
 * Kinds the paste test cannot print on SecantusDB in a format, with why: compression's advice (createCollection with
 * zstd, aggregate $merge, getIndexes, the later renameCollection) needs WiredTiger's creationString, which SecantusDB's
 * $collStats lacks; the test plants it in check's saved snapshot, which `analyze` and `lint` read, while `audit` and
 * mongosh's `advisor.check()` read only the server (neither takes a snapshot). getIndexes and renameCollection stay
 * unprinted there; aggregate with $merge does not: embed-reference prints it in every report, its pairs read from the
 * queries file (the CLI) and from system.profile (advisor.check()).
 */
export const LIVE_ONLY_REPORTS: Readonly<Record<string, readonly string[]>> = {
  getIndexes: ['audit html', 'advisor.check() value'],
  renameCollection: ['audit html', 'advisor.check() value'],
};

/** Methods named in the source that the paste test does not run as their own command, and why. */
export const NOT_PASTED: Readonly<Record<string, string>> = {
  aggregate:
    'pasted with $merge (embed-reference, compression); the $out of id-pattern needs $toUUID (MongoDB 8.0, absent ' +
    "on SecantusDB) and index-usage's $indexStats read needs more than 10 indexes on one collection: " +
    'test/shell-syntax.test.ts covers their text',
  distinct:
    "printed inside the validator's `var schema` line when it proposes an enum (proposeEnums, off by default): a " +
    'read, which the paste test would judge with that line',
  find:
    "a read (a cursor mongosh opens only when printed): document-size's projection for a large binary field, the " +
    "validator's list of failing documents for a moderate proposal; the paste seed makes neither (a 2 MB document " +
    'slows every run); test/shell-syntax.test.ts covers their text',
  bulkWrite:
    'clustered-trap prints it only as a template (a // comment line), which the paste test judges to do nothing',
  concat: "part of the validator's `var schema` line (distinct(…).concat([null])), pasted with it",
  getCollectionInfos: "part of the validator's collMod argument (the stored validator), pasted with it",
  insertOne: 'array-growth prints it only as a template (a // comment line), which the paste test judges to do nothing',
  updateOne: 'array-growth prints it only as a template (a // comment line), which the paste test judges to do nothing',
  setProfilingLevel:
    "the restore line of `profile` after a killed run, not a finding's command: test/profile-optin.e2e.test.ts runs it",
  dropDatabase: "the scratch database's manual cleanup when a run could not drop it, not a finding's command",
};

/** The top-level arguments of a call whose `(` ends at `at`, as source text (strings and brackets skipped). */
function argsAt(src: string, at: number, n: number): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let quote: string | null = null;
  for (let i = at; i < src.length && out.length < n; i++) {
    const c = src[i] ?? '';
    if (quote) {
      cur += c;
      if (c === '\\') cur += src[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) {
        out.push(cur.trim());
        break;
      }
      depth--;
    } else if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  return out;
}

/**
 * The methods printed commands call, read from the source of the rules and the engine: the method of every
 * `shellCall`/`shellDbCall`, the command of every `shellRunCommand`, and `${…}.method(` in template literals of files
 * that build commands. Returns each method with the files naming it.
 */
export function printedMethods(root: string, planted: Record<string, string> = {}): Map<string, Set<string>> {
  const files = execFileSync('git', ['ls-files', 'rules/*.ts', 'src/*.ts'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !f.endsWith('.test.ts') && f !== 'src/lib/shell.ts');
  const found = new Map<string, Set<string>>();
  const add = (method: string, file: string) => found.set(method, (found.get(method) ?? new Set()).add(file));
  for (const file of [...files, ...Object.keys(planted)]) {
    const src = planted[file] ?? readFileSync(join(root, file), 'utf8');
    if (!/from '[./]*(?:src\/)?lib\/shell'|from '\.\/shell'/.test(src)) continue;
    const calls: [RegExp, number, RegExp][] = [
      [/\bshellCall\(/g, 2, /^'(\w+)'$/],
      [/\bshellDbCall\(/g, 1, /^'(\w+)'$/],
      [/\bshellRunCommand\(/g, 1, /^\{\s*(\w+)\s*:/],
    ];
    for (const [re, index, name] of calls)
      for (const m of src.matchAll(re)) {
        const arg = argsAt(src, (m.index ?? 0) + m[0].length, index + 1)[index] ?? '';
        add(name.exec(arg)?.[1] ?? `<not a literal: ${arg}>`, file);
      }
    for (const m of src.matchAll(/\}\.(\w+)\(/g)) add(m[1] ?? '', file);
  }
  return found;
}
