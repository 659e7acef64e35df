import * as path from 'node:path';
import { type AdvisorConfig, specRuleSeverity } from '../core/config';
import { SPEC_RULES } from '../core/spec-rules';
import type { CheckResult, Finding, Note, Snapshot } from '../core/types';
import type { Locate } from '../report/catalog';
import { specDrift } from './drift';
import { dbOf, defaultIndexName, loadSpec, type LoadedSpec, type Spec } from './format';
import { clusteredProblems, redundantIndexes, type SpecFindingInput, validatorProblems } from './static';

export { loadSpec, type Spec } from './format';

export interface SpecLint {
  findings: Finding[];
  notes: Note[];
  scope: CheckResult['scope'];
  /** Points each finding on a declared collection at its declaration in the spec file. */
  locate: Locate;
}

/** The checks that need no database: validators, redundant indexes, clustered key choice. */
export function staticSpecFindings(spec: Spec): SpecFindingInput[] {
  const out: SpecFindingInput[] = [];
  for (const c of spec.collections) {
    const problems = validatorProblems(c);
    if (problems.length) {
      out.push({
        ruleId: 'spec-invalid-validator',
        messageId: 'invalid',
        target: { db: dbOf(c, spec), collection: c.name },
        message:
          `The declared validator of ${c.name} would be refused by the server: ` +
          `${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}.`,
        evidence: { problems: problems.length },
      });
    }
    out.push(...redundantIndexes(c, spec), ...clusteredProblems(c, spec));
  }
  return out;
}

/** A spec or query check's finding at the severity the configuration gives it; null when the check is off. */
export function toFinding(f: SpecFindingInput, config: AdvisorConfig): Finding | null {
  const meta = SPEC_RULES.find((r) => r.id === f.ruleId);
  const configured = specRuleSeverity(f.ruleId, config);
  if (configured === null) return null;
  // A severity set in the configuration applies to the whole check; otherwise the finding's own, else the check's.
  const userSet = config.rules?.[f.ruleId] !== undefined;
  return {
    ruleId: f.ruleId,
    messageId: f.messageId,
    severity: userSet ? configured : (f.severity ?? meta?.severity ?? 'warn'),
    target: f.target,
    message: f.message,
    evidence: f.evidence,
    ...(f.recommendation ? { recommendation: f.recommendation } : {}),
    docsUrl: meta?.docsUrl ?? '',
  };
}

// `name: "posts"`, `"name": 'posts'` or name: `posts`, the name's quotes kept apart so a JSON escape can be read.
const NAME_ENTRY = /(?<![\w$])["']?name["']?\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`]*)`)/g;

function unquote(m: RegExpExecArray): string {
  if (m[1] === undefined) return m[2] ?? m[3] ?? '';
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return m[1];
  }
}

/**
 * The 1-based line of the first `name: …` entry for each name in the spec's text, read in one pass: looking each
 * finding's collection up in the whole text made SARIF with --spec quadratic (4,000 collections: a minute).
 */
export function declarationLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let line = 1;
  let from = 0;
  for (const m of text.matchAll(NAME_ENTRY)) {
    for (let i = text.indexOf('\n', from); i !== -1 && i < m.index; i = text.indexOf('\n', i + 1)) line++;
    from = m.index;
    const name = unquote(m);
    if (!lines.has(name)) lines.set(name, line);
  }
  return lines;
}

/** The 1-based line of a character offset, by binary search over the offsets where lines start. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const INDEXES_ENTRY = /(?<![\w$])["']?indexes["']?\s*:\s*\[/g;
const KEY_ENTRY = /(?<![\w$])["']?key["']?\s*:/g;

/**
 * The line of a declared index, after its collection's declaration (at `from`): its own `name: …` entry when it has
 * one, else the `key:` entry of its place in the collection's `indexes` list. null when the text does not show it.
 */
function indexLine(
  text: string,
  starts: readonly number[],
  from: number,
  c: Spec['collections'][number],
  index: string,
) {
  const declared = c.indexes ?? [];
  const i = declared.findIndex((d) => (d.name ?? defaultIndexName(d.key)) === index);
  const d = declared[i];
  if (d === undefined) return null;
  if (d.name !== undefined) {
    for (const m of text.slice(from).matchAll(NAME_ENTRY))
      if (unquote(m) === d.name) return lineAt(starts, from + m.index);
    return null;
  }
  INDEXES_ENTRY.lastIndex = from;
  const list = INDEXES_ENTRY.exec(text);
  if (!list) return null;
  KEY_ENTRY.lastIndex = list.index + list[0].length;
  // each index entry has exactly one `key:` at its top level; a key inside one (a partial filter's field) is rare
  for (let n = 0, m = KEY_ENTRY.exec(text); m; n++, m = KEY_ENTRY.exec(text))
    if (n === i) return lineAt(starts, m.index);
  return null;
}

function locator(loaded: LoadedSpec): Locate {
  const rel = path.relative(process.cwd(), loaded.file).split(path.sep).join('/');
  const uri = rel.startsWith('..') ? loaded.file : rel;
  const key = (db: string, name: string | undefined): string => `${db}\u0000${name ?? ''}`;
  const declared = new Map(loaded.spec.collections.map((c) => [key(dbOf(c, loaded.spec), c.name), c] as const));
  const lines = declarationLines(loaded.text);
  let starts: number[] | null = null;
  return (f) => {
    const found = declared.get(key(f.target.db, f.target.collection));
    if (!found && !f.ruleId.startsWith('spec-')) return null;
    const line = found ? lines.get(found.name) : undefined;
    if (line && found && f.target.index !== undefined) {
      // An index's finding points at the index's entry, not its collection's (GitHub shows the line annotated).
      starts ??= [0, ...[...loaded.text.matchAll(/\n/g)].map((m) => m.index + 1)];
      const at = indexLine(loaded.text, starts, starts[line - 1] ?? 0, found, f.target.index);
      if (at) return { uri, line: at };
    }
    return line ? { uri, line } : { uri };
  };
}

/** Checks a spec file; with a snapshot (live or from a file) it also reports drift. */
export function lintSpec(file: string, snapshot: Snapshot | null, config: AdvisorConfig): SpecLint {
  const loaded = loadSpec(file);
  const { spec } = loaded;
  const inputs = staticSpecFindings(spec);
  const notes: Note[] = [];
  if (snapshot) {
    const drift = specDrift(spec, snapshot);
    inputs.push(...drift.findings);
    notes.push(...drift.notes);
  }
  const findings = inputs.map((f) => toFinding(f, config)).filter((f): f is Finding => f !== null);
  const dbs = [...new Set(spec.collections.map((c) => dbOf(c, spec)))];
  const scope =
    dbs.length === 1
      ? { db: dbs[0] as string, collections: spec.collections.map((c) => c.name) }
      : { db: dbs.join(', '), collections: spec.collections.map((c) => `${dbOf(c, spec)}.${c.name}`) };
  return { findings, notes, scope, locate: locator(loaded) };
}
