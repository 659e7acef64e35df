import { isDeepStrictEqual } from 'node:util';
import { describe, it } from 'vitest';
import { fillTemplate } from '../../src/core/format';
import type { AnyRule as Rule } from '../../src/core/rule';
import { analyze, type AnalyzeOutput, type ResolvedRule, type RuleSetting } from '../../src/core/runner';
import type { AnyCollector } from '../../src/core/collector';
import { parseSnapshot } from '../../src/core/snapshot-file';
import type { CollectionSnapshot, Finding, Note, Severity, Snapshot, Target } from '../../src/core/types';
import { ObjectId, Long, UUID } from 'mongodb';
import type { Adapter, Doc } from '../../src/adapters/types';
import { readOnly } from '../../src/adapters/read-only';
import { type FoldOptions, PathFolder } from '../../src/core/fold';
import { Profiler } from '../../src/collect/profile';
import { CollectorRunner } from '../../src/collect/run-collectors';
import type { Collector } from '../../src/core/collector';
import { DYNAMIC_KEY } from '../../src/core/types';
import { collectionOf, sampleOf, snapshotOf } from './fixtures';

/*
 * The strict rule tester, after ESLint's RuleTester.
 *
 * - A valid case must produce no finding at all, of any severity (an info line is a finding: such a case is an
 *   invalid case that lists it).
 * - An invalid case lists every finding the rule reports, at least one. Expected and reported findings are matched
 *   one to one and in any order: the runner sorts findings by severity and target, not in the order the rule
 *   reported them, so order carries nothing a test should pin. The largest one-to-one matching is found; every
 *   expected finding left without a partner ("missing") and every reported finding left without one ("unexpected",
 *   a duplicate included) fails the case, and the failure lists both sides.
 * - Every expected finding names its messageId (one of the rule's messages), severity and target (compared whole: db,
 *   collection, path and index exactly as reported, no key more or less). It may pin the text with `data` (the
 *   message must equal the rule's template filled with it, as ESLint's `data`), `message` (exact) or
 *   `messageIncludes`, and `evidence` fields and the `recommendation` (or its absence, `null`).
 * - Every reported finding's text (message, recommendation action, reason and commands) must hold no leftover
 *   {{placeholder}} and no "undefined", "NaN", "Infinity", "[object …]" or bare "null" where a value should be; its
 *   evidence must be flat JSON values (finite numbers, strings, booleans, null), its ruleId the rule's, its docsUrl a
 *   link. Notes get the same text checks (they may quote a server's "null"); a case that lists `notes` must match
 *   the rule's notes one to one too.
 * - A rule that throws (the runner's internalError finding) fails the case, whatever it expected.
 * - Each case's snapshot must pass the snapshot file's schema (parseSnapshot, src/core/snapshot-file.ts) and survive
 *   a JSON round trip unchanged, so fixtures are snapshots `collect` could write and `analyze` could load. The rule
 *   runs on a deep-frozen JSON copy, so a rule that writes to its input throws and fails the case.
 * - No map key (a key of an object the profiler folded as a map, src/core/fold.ts) may appear where a name
 *   goes: in a collection's fixture data of the rule's collectors (keys their schema does not fix), in a finding's
 *   target path, evidence, or a `backticked` span of its message. Such a key is user data (mapKeyProblems).
 * - `collectFromDocs(collector, docs)` runs a collection collector's `collect(ctx)` over raw documents the way
 *   collect does (the real Profiler folds the sample first, the real CollectorRunner calls it) with no server, and
 *   fails naming every map key of those documents its data holds: the collector walked them without folding.
 */

/** A note the rule must leave: the exact text (with the runner's `<rule id>: ` prefix), or parts it must include. */
export type ExpectedNote = string | { includes: string | string[] };

export interface RuleCase {
  name: string;
  snapshot: Snapshot;
  options?: Record<string, unknown>;
  /**
   * Every note ("could not check") the rule leaves, matched one to one in any order; `[]` means none. Notes are not
   * checked when absent.
   */
  notes?: ExpectedNote[];
}

export interface ExpectedFinding {
  messageId: string;
  severity: Severity;
  /** Compared whole with the reported target: every key it has, and no other. */
  target: Target;
  /** The message must equal the rule's template for messageId filled with these values (ESLint's `data`). */
  data?: Record<string, string | number>;
  /** The message must equal this text. */
  message?: string;
  /** The message must contain each of these. */
  messageIncludes?: string | string[];
  /** Each listed evidence field must equal the reported one. */
  evidence?: Finding['evidence'];
  /**
   * The listed recommendation fields must equal the reported ones; `commands` lists every command (a RegExp matches
   * the command it stands for), `reasonIncludes` parts the reason must contain. `null`: no recommendation.
   */
  recommendation?: {
    action?: string;
    reason?: string;
    reasonIncludes?: string | string[];
    commands?: (string | RegExp)[];
    /** The later step's commands (a RegExp matches the command it stands for); `null`: no later step. */
    later?: (string | RegExp)[] | null;
  } | null;
}

export interface InvalidCase extends RuleCase {
  /** Every finding the rule reports for this snapshot, in any order; at least one. */
  findings: ExpectedFinding[];
}

export interface RuleCases {
  valid: RuleCase[];
  invalid: InvalidCase[];
}

/** Runs one rule over a snapshot with the given options, as `analyze` does: its findings and notes; no checks. */
export function runRuleWithNotes(rule: Rule, snapshot: Snapshot, options: Record<string, unknown> = {}): AnalyzeOutput {
  const setting: RuleSetting = { options };
  return analyze(snapshot, { rules: { [rule.id]: setting }, only: [rule.id] }, [rule]);
}

/** Runs one rule over a snapshot with the given options, as `analyze` does; its findings, no checks. */
export function runRule(rule: Rule, snapshot: Snapshot, options: Record<string, unknown> = {}): Finding[] {
  return runRuleWithNotes(rule, snapshot, options).findings;
}

// ---------------------------------------------------------------------------------------------------------------
// Pure checks: exported so test/rule-tester.test.ts can prove they fail on wrong expectations.

const PLACEHOLDER = /\{\{\s*\w+\s*\}\}/;
/** Words that mean a value was missing when the text was built. */
const BAD_WORDS: [RegExp, string][] = [
  [/\bundefined\b/, '"undefined"'],
  [/\bNaN\b/, '"NaN"'],
  [/-?\bInfinity\b/, '"Infinity"'],
  [/\[object \w+\]/, '"[object …]"'],
];
/**
 * "null" in prose is a value that went missing (`null` in backticks is the BSON value, named on purpose). In mongosh
 * commands `null` is also a literal (`[true, null]`,
 * `bsonType: ["null", "string"]`, `.concat([null])`), so there only a null where a name belongs is flagged: quoted
 * as a whole string argument of a call, or after a dot (`db.null`).
 */
const NULL_IN_PROSE = /(?<!`)\bnull\b(?!`)/;
const NULL_IN_COMMAND = /\(\s*"null"\s*[,)]|\.null\b|<null>/;

function textProblems(where: string, text: unknown, nullCheck: RegExp | null): string[] {
  if (typeof text !== 'string' || text.trim() === '') return [`${where} is empty`];
  const problems: string[] = [];
  const placeholder = PLACEHOLDER.exec(text);
  if (placeholder) problems.push(`${where} has a leftover placeholder ${placeholder[0]}: ${JSON.stringify(text)}`);
  for (const [re, word] of BAD_WORDS)
    if (re.test(text)) problems.push(`${where} has ${word} where a value should be: ${JSON.stringify(text)}`);
  if (nullCheck?.test(text)) problems.push(`${where} has "null" where a value should be: ${JSON.stringify(text)}`);
  return problems;
}

/**
 * What is wrong with one reported finding whatever the case expects: leftover placeholders and missing values in
 * its text, evidence that is not a flat JSON value, another rule's id, no docs link. Empty when clean.
 */
export function findingTextProblems(f: Finding, ruleId?: string): string[] {
  const problems: string[] = [];
  if (ruleId !== undefined && f.ruleId !== ruleId)
    problems.push(`ruleId is ${JSON.stringify(f.ruleId)}, not ${JSON.stringify(ruleId)}`);
  if (typeof f.docsUrl !== 'string' || !/^https:\/\//.test(f.docsUrl))
    problems.push(`docsUrl is not a link: ${JSON.stringify(f.docsUrl)}`);
  for (const [k, v] of Object.entries(f.evidence ?? {})) {
    const flat =
      v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
    if (!flat)
      problems.push(
        `evidence.${k} ` +
          `is ${typeof v === 'number' ? String(v) : `a${typeof v === 'object' ? 'n object' : ` ${typeof v}`}`}, ` +
          `not a string, finite number, boolean or null`,
      );
  }
  const texts: [string, string, boolean][] = [['message', f.message, false]];
  if (f.recommendation) {
    texts.push(
      ['recommendation.action', f.recommendation.action, false],
      ['recommendation.reason', f.recommendation.reason, false],
    );
    (f.recommendation.commands ?? []).forEach((c, i) => texts.push([`recommendation.commands[${i}]`, c, true]));
    if (f.recommendation.later) texts.push(['recommendation.later.when', f.recommendation.later.when, false]);
    (f.recommendation.later?.commands ?? []).forEach((c, i) =>
      texts.push([`recommendation.later.commands[${i}]`, c, true]),
    );
  }
  for (const [where, text, command] of texts)
    problems.push(...textProblems(where, text, command ? NULL_IN_COMMAND : NULL_IN_PROSE));
  return problems;
}

/**
 * What is wrong with the text of a note. Notes may quote what a server answered ("accesses.since null"), so "null"
 * is allowed there; the other checks hold.
 */
export function noteTextProblems(n: Note): string[] {
  return textProblems('note', n.message, null);
}

function targetText(t: Target | undefined): string {
  if (t === undefined) return 'no target';
  const collection = t.collection !== undefined ? `.${t.collection}` : '';
  const path = t.path !== undefined ? ` › ${t.path}` : '';
  const index = t.index !== undefined ? ` [index ${t.index}]` : '';
  return `${t.db}${collection}${path}${index}`;
}

/** One line per reported finding, as failures print them. */
export function describeFinding(f: Finding): string {
  return `${f.severity} ${f.messageId} ${JSON.stringify(f.target)}: ${JSON.stringify(f.message)}`;
}

function describeExpected(e: ExpectedFinding): string {
  const text = e.message !== undefined ? ` message ${JSON.stringify(e.message)}` : '';
  const data = e.data !== undefined ? ` data ${JSON.stringify(e.data)}` : '';
  const inc = e.messageIncludes !== undefined ? ` including ${JSON.stringify(e.messageIncludes)}` : '';
  const ev = e.evidence !== undefined ? ` evidence ${JSON.stringify(e.evidence)}` : '';
  const commands = e.recommendation?.commands ? { commands: showCommands(e.recommendation.commands) } : {};
  const rec =
    e.recommendation === null
      ? ' no recommendation'
      : e.recommendation !== undefined
        ? ` recommendation ${JSON.stringify({ ...e.recommendation, ...commands })}`
        : '';
  return `${e.severity} ${e.messageId} ${JSON.stringify(e.target)}:${text}${data}${inc}${ev}${rec}`;
}

const showCommands = (list: readonly (string | RegExp)[]): string =>
  `[${list.map((c) => (typeof c === 'string' ? JSON.stringify(c) : String(c))).join(', ')}]`;

/** Why reported finding `f` does not satisfy expectation `e`; empty when it does. */
export function mismatches(e: ExpectedFinding, f: Finding, messages?: Record<string, string>): string[] {
  const why: string[] = [];
  if (f.messageId !== e.messageId) why.push(`messageId: expected ${e.messageId}, got ${f.messageId}`);
  if (f.severity !== e.severity) why.push(`severity: expected ${e.severity}, got ${f.severity}`);
  if (!isDeepStrictEqual({ ...f.target }, { ...e.target }))
    why.push(`target: expected ${JSON.stringify(e.target)} (${targetText(e.target)}), got ${JSON.stringify(f.target)}`);
  if (e.data !== undefined) {
    const template = messages?.[e.messageId];
    if (template === undefined) why.push(`data: the rule has no message ${e.messageId} to fill`);
    else {
      const want = fillTemplate(template, e.data);
      if (f.message !== want)
        why.push(`message (from data): expected ${JSON.stringify(want)}, got ${JSON.stringify(f.message)}`);
    }
  }
  if (e.message !== undefined && f.message !== e.message)
    why.push(`message: expected ${JSON.stringify(e.message)}, got ${JSON.stringify(f.message)}`);
  for (const part of e.messageIncludes === undefined
    ? []
    : Array.isArray(e.messageIncludes)
      ? e.messageIncludes
      : [e.messageIncludes]) {
    if (!f.message.includes(part))
      why.push(`message does not include ${JSON.stringify(part)}: ${JSON.stringify(f.message)}`);
  }
  for (const [k, v] of Object.entries(e.evidence ?? {})) {
    if (!(k in f.evidence)) why.push(`evidence.${k}: expected ${JSON.stringify(v)}, not reported`);
    else if (!isDeepStrictEqual(f.evidence[k], v))
      why.push(`evidence.${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(f.evidence[k])}`);
  }
  const er = e.recommendation;
  if (er === null && f.recommendation !== undefined)
    why.push(`recommendation: expected none, got ${JSON.stringify(f.recommendation)}`);
  if (er) {
    const r = f.recommendation;
    if (!r) why.push('recommendation: expected one, none reported');
    else {
      if (er.action !== undefined && r.action !== er.action)
        why.push(`recommendation.action: expected ${JSON.stringify(er.action)}, got ${JSON.stringify(r.action)}`);
      if (er.reason !== undefined && r.reason !== er.reason)
        why.push(`recommendation.reason: expected ${JSON.stringify(er.reason)}, got ${JSON.stringify(r.reason)}`);
      for (const part of er.reasonIncludes === undefined
        ? []
        : Array.isArray(er.reasonIncludes)
          ? er.reasonIncludes
          : [er.reasonIncludes]) {
        if (!r.reason.includes(part))
          why.push(`recommendation.reason does not include ${JSON.stringify(part)}: ${JSON.stringify(r.reason)}`);
      }
      if (er.commands !== undefined) {
        const got = r.commands ?? [];
        const fitsAll =
          got.length === er.commands.length &&
          er.commands.every((want, i) => (typeof want === 'string' ? got[i] === want : want.test(got[i] ?? '')));
        if (!fitsAll)
          why.push(
            `recommendation.commands: expected ${showCommands(er.commands)}, got ${JSON.stringify(r.commands ?? [])}`,
          );
      }
      if (er.later !== undefined) {
        const got = r.later?.commands ?? null;
        const fits =
          er.later === null
            ? got === null
            : got !== null &&
              got.length === er.later.length &&
              er.later.every((want, i) => (typeof want === 'string' ? got[i] === want : want.test(got[i] ?? '')));
        if (!fits)
          why.push(
            `recommendation.later: expected ${er.later === null ? 'none' : showCommands(er.later)}, ` +
              `got ${JSON.stringify(r.later ?? null)}`,
          );
      }
    }
  }
  return why;
}

/** What is wrong with an expectation itself (before any finding is looked at). */
export function expectationProblems(expected: readonly ExpectedFinding[], messages: Record<string, string>): string[] {
  const problems: string[] = [];
  if (expected.length === 0)
    problems.push('an invalid case must list at least one finding (a case with none is a valid case)');
  expected.forEach((e, i) => {
    if (!Object.hasOwn(messages, e.messageId))
      problems.push(
        `expected finding #${i + 1}: messageId ${JSON.stringify(e.messageId)} is not one of the rule's ` +
          `messages (${Object.keys(messages).join(', ')})`,
      );
    else if (e.data !== undefined) {
      const left = PLACEHOLDER.exec(fillTemplate(messages[e.messageId] as string, e.data));
      if (left) problems.push(`expected finding #${i + 1}: data leaves ${left[0]} unfilled in ${e.messageId}`);
    }
    if (typeof e.target?.db !== 'string') problems.push(`expected finding #${i + 1}: target needs a db`);
  });
  return problems;
}

/**
 * The largest one-to-one matching of `left` to `right` items where `fits(l, r)` (Kuhn's augmenting paths), so an
 * expectation loose enough to fit two items cannot take the one a stricter expectation needs. Returns, for each
 * right item, the index of its left partner or null.
 */
export function matchOneToOne(left: number, right: number, fits: (l: number, r: number) => boolean): (number | null)[] {
  const ownerOf: (number | null)[] = Array.from({ length: right }, () => null);
  const tryAssign = (l: number, seen: boolean[]): boolean => {
    for (let r = 0; r < right; r++) {
      if (seen[r] || !fits(l, r)) continue;
      seen[r] = true;
      const owner = ownerOf[r];
      if (owner === null || owner === undefined || tryAssign(owner, seen)) {
        ownerOf[r] = l;
        return true;
      }
    }
    return false;
  };
  for (let l = 0; l < left; l++)
    tryAssign(
      l,
      Array.from({ length: right }, () => false),
    );
  return ownerOf;
}

export interface Comparison {
  pass: boolean;
  /** Pairs [expected index, reported index] of the one-to-one matching. */
  matched: [number, number][];
  missing: ExpectedFinding[];
  unexpected: Finding[];
  /** Empty when pass; else the failure text, both sides listed. */
  report: string;
}

/**
 * Matches expected findings to reported ones, one to one and in any order (the largest matching). Passes only when
 * every expected and every reported finding has a partner; the report lists what is missing (with the closest
 * reported finding and how it differs), what is unexpected, and both whole lists.
 */
export function compareFindings(
  expected: readonly ExpectedFinding[],
  reported: readonly Finding[],
  messages?: Record<string, string>,
): Comparison {
  const fits = expected.map((e) => reported.map((f) => mismatches(e, f, messages)));
  const ownerOf = matchOneToOne(expected.length, reported.length, (ei, ri) => fits[ei]?.[ri]?.length === 0);
  const matched: [number, number][] = [];
  ownerOf.forEach((ei, ri) => {
    if (ei !== null && ei !== undefined) matched.push([ei, ri]);
  });
  const matchedExpected = new Set(matched.map(([ei]) => ei));
  const missingIdx = expected.map((_, i) => i).filter((i) => !matchedExpected.has(i));
  const unexpectedIdx = reported.map((_, i) => i).filter((i) => ownerOf[i] === null);
  const missing = missingIdx.map((i) => expected[i] as ExpectedFinding);
  const unexpected = unexpectedIdx.map((i) => reported[i] as Finding);
  const pass = missing.length === 0 && unexpected.length === 0;
  if (pass) return { pass, matched, missing, unexpected, report: '' };
  const lines = [
    `expected ${expected.length} finding(s), the rule reported ${reported.length}; matched one to one in ` +
      `any order: ${matched.length}.`,
  ];
  if (missing.length) {
    lines.push(`missing (expected, not reported): ${missing.length}`);
    for (const ei of missingIdx) {
      lines.push(`  - ${describeExpected(expected[ei] as ExpectedFinding)}`);
      // the closest reported finding, preferring one left unmatched, and why it does not fit
      const best = reported
        .map((f, ri) => ({ f, ri, why: fits[ei]?.[ri] ?? [] }))
        .sort(
          (a, b) => a.why.length - b.why.length || Number(ownerOf[a.ri] !== null) - Number(ownerOf[b.ri] !== null),
        )[0];
      if (!best) continue;
      const owner = ownerOf[best.ri];
      const matched = owner !== null && owner !== undefined ? ` (matched to expected #${owner + 1})` : '';
      lines.push(`      closest reported${matched}: ${describeFinding(best.f)}`);
      for (const w of best.why.length
        ? best.why
        : [
            'fits, but each finding it fits is matched to another expectation: the rule reported fewer of ' +
              'these than expected',
          ])
        lines.push(`        ${w}`);
    }
  }
  if (unexpected.length) {
    lines.push(`unexpected (reported, not expected): ${unexpected.length}`);
    for (const f of unexpected) lines.push(`  - ${describeFinding(f)}`);
  }
  lines.push('expected (all):');
  expected.forEach((e, i) => lines.push(`  ${i + 1}. ${describeExpected(e)}`));
  lines.push('reported (all):');
  if (reported.length === 0) lines.push('  (none)');
  reported.forEach((f, i) => lines.push(`  ${i + 1}. ${describeFinding(f)}`));
  return { pass, matched, missing, unexpected, report: lines.join('\n') };
}

const noteFits = (e: ExpectedNote, n: Note): boolean =>
  typeof e === 'string'
    ? n.message === e
    : (Array.isArray(e.includes) ? e.includes : [e.includes]).every((part) => n.message.includes(part));

/** Matches expected notes to the rule's notes, one to one in any order; the failure text, or '' when they match. */
export function compareNotes(expected: readonly ExpectedNote[], notes: readonly Note[]): string {
  const ownerOf = matchOneToOne(expected.length, notes.length, (ei, ni) =>
    noteFits(expected[ei] as ExpectedNote, notes[ni] as Note),
  );
  const matched = new Set(ownerOf.filter((o): o is number => o !== null));
  const missing = expected.filter((_, i) => !matched.has(i));
  const unexpected = notes.filter((_, i) => ownerOf[i] === null);
  if (missing.length === 0 && unexpected.length === 0) return '';
  return [
    `expected ${expected.length} note(s), the rule left ${notes.length}.`,
    ...(missing.length ? [`missing notes: ${missing.length}`, ...missing.map((e) => `  - ${JSON.stringify(e)}`)] : []),
    ...(unexpected.length
      ? [`unexpected notes: ${unexpected.length}`, ...unexpected.map((n) => `  - ${JSON.stringify(n.message)}`)]
      : []),
    'notes left (all):',
    ...(notes.length ? notes.map((n, i) => `  ${i + 1}. ${JSON.stringify(n.message)}`) : ['  (none)']),
  ].join('\n');
}

/** Why a fixture is not a snapshot a file could hold: schema errors, values a JSON round trip changes. Empty when
 * fine. */
export function snapshotProblems(snapshot: Snapshot, collectors: readonly AnyCollector[] = []): string[] {
  let clone: unknown;
  try {
    clone = JSON.parse(JSON.stringify(snapshot)) as unknown;
  } catch (err) {
    return [`the snapshot fixture is not JSON: ${(err as Error).message}`];
  }
  const problems: string[] = [];
  try {
    parseSnapshot(clone, 'the snapshot fixture', collectors);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (!isDeepStrictEqual(clone, snapshot))
    problems.push(
      'the snapshot fixture changes in a JSON round trip (undefined, NaN, Infinity, a Date or a class ' +
        'instance in it): a snapshot file could not hold it',
    );
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// Map keys: keys of objects used as maps are user data (SKUs, customer ids, dates) and never become a name.

type JsonSchema = Record<string, unknown>;

/** The names a schema fixes at this level: `properties`, those of its allOf/anyOf/oneOf members included. */
function fixedProperties(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!schema) return {};
  const out: Record<string, JsonSchema> = { ...(schema.properties as Record<string, JsonSchema> | undefined) };
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    for (const member of (schema[k] as JsonSchema[] | undefined) ?? []) Object.assign(out, fixedProperties(member));
  }
  return out;
}

/**
 * Every key of `value` its JSON Schema does not name (keys under `additionalProperties` or `patternProperties`,
 * or anywhere without a schema): the keys a collector chose from what it read, with where each sits.
 */
export function freeKeys(value: unknown, schema: JsonSchema | undefined, where: string): [string, string][] {
  const out: [string, string][] = [];
  const walk = (v: unknown, s: JsonSchema | undefined, at: string): void => {
    if (Array.isArray(v)) {
      const items = s?.items as JsonSchema | undefined;
      v.forEach((x, i) => walk(x, items, `${at}[${i}]`));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const fixed = fixedProperties(s);
    const extra = typeof s?.additionalProperties === 'object' ? (s.additionalProperties as JsonSchema) : undefined;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (!Object.hasOwn(fixed, k)) out.push([at, k]);
      walk(x, Object.hasOwn(fixed, k) ? fixed[k] : extra, `${at}[${JSON.stringify(k)}]`);
    }
  };
  walk(value, schema, where);
  return out;
}

const FOLD_HINT = 'map keys are user data: fold paths with PathFolder (src/core/fold.ts, see CONTRIBUTING.md)';
/** Path-like text: no space, not a number or a version ("7.0.12" is no path). */
const pathLike = (s: string): boolean => s !== '' && !/\s/.test(s) && !/^[\d.]+$/.test(s);

/** Where `name` holds a map key of the collection: it changes when folded. Null when it is a folded name. */
function leak(folder: PathFolder, name: string, where: string): string | null {
  const folded = folder.fold(name);
  if (folded === name) return null;
  return `${where} holds ${JSON.stringify(name)}, a map key (folded: ${JSON.stringify(folded)}): ${FOLD_HINT}`;
}

/** Map keys in one finding: its target path, path-like evidence with a dot, `backticked` spans of its message. */
function findingLeaks(f: Finding, folder: PathFolder): string[] {
  const where = `${f.severity} ${f.messageId} ${JSON.stringify(f.target)}:`;
  const found: (string | null)[] = [];
  if (f.target.path !== undefined) found.push(leak(folder, f.target.path, `${where} target.path`));
  for (const [k, v] of Object.entries(f.evidence ?? {})) {
    if (typeof v === 'string' && v.includes('.') && pathLike(v)) found.push(leak(folder, v, `${where} evidence.${k}`));
  }
  for (const m of f.message.matchAll(/`([^`]+)`/g)) {
    const span = m[1] as string;
    if (pathLike(span)) found.push(leak(folder, span, `${where} message`));
  }
  return found.filter((p): p is string => p !== null);
}

/**
 * Map keys where names go, read against each collection's folded maps (`sample.dynamicKeys`): in the fixture data of
 * the given collectors (keys their schemas do not fix) and in the findings. A snapshot holds no map key: the profiler
 * folds them before anything sees a path, so one here was planted by a fixture, or a rule invented it.
 */
export function mapKeyProblems(
  snapshot: Snapshot,
  findings: readonly Finding[],
  collectors: readonly AnyCollector[],
): string[] {
  const problems: string[] = [];
  const folders = new Map<string, PathFolder>();
  const schemas = new Map(collectors.map((c) => [c.id, c.schema]));
  for (const db of snapshot.databases) {
    for (const c of db.collections) {
      const folder = new PathFolder(c.sample.dynamicKeys);
      folders.set(`${c.db}.${c.name}`, folder);
      if (folder.empty) continue;
      for (const [id, data] of Object.entries(c.data ?? {})) {
        if (!schemas.has(id)) continue;
        for (const [at, key] of freeKeys(data, schemas.get(id), `${c.db}.${c.name} data[${JSON.stringify(id)}]`)) {
          const p = leak(folder, key, `${at} key`);
          if (p) problems.push(p);
        }
      }
    }
  }
  for (const f of findings) {
    const folder = folders.get(`${f.target.db}.${f.target.collection ?? ''}`);
    if (folder && !folder.empty) problems.push(...findingLeaks(f, folder));
  }
  return problems;
}

/**
 * The raw keys of the documents that sit directly under a map (the keys `folder` turns into `<key>`), walked with
 * the census' paths: `a.b` for fields of subdocuments and of objects in arrays, `a.$[]` for other array elements.
 */
export function mapKeysOf(docs: readonly Doc[], folder: PathFolder): Set<string> {
  const keys = new Set<string>();
  const plain = (v: unknown): v is Doc =>
    v !== null && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object);
  const visit = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      for (const el of v as unknown[]) {
        if (plain(el)) object(el, path);
        else visit(el, `${path}.$[]`);
      }
    } else if (plain(v)) object(v, path);
  };
  const object = (o: Doc, path: string): void => {
    for (const [key, v] of Object.entries(o)) {
      const child = folder.child(path, key);
      if (key !== DYNAMIC_KEY && (child === DYNAMIC_KEY || child.endsWith(`.${DYNAMIC_KEY}`))) keys.add(key);
      visit(v, child);
    }
  };
  for (const d of docs) object(d, '');
  return keys;
}

/**
 * Every key and string of `value` that holds one of `mapKeys` as a segment (split at dots, spaces, quotes and
 * brackets), unless the census names a field so too. Each problem names the key and where it sits.
 */
export function leakedMapKeys(
  value: unknown,
  mapKeys: ReadonlySet<string>,
  fieldNames: ReadonlySet<string>,
  where: string,
): string[] {
  const problems: string[] = [];
  const check = (text: string, at: string, what: string): void => {
    const hits = [...new Set(text.split(/[.\s`'"(),:;[\]{}=/]+/))].filter((t) => mapKeys.has(t) && !fieldNames.has(t));
    for (const key of hits) {
      const found = `the ${what} ${JSON.stringify(text)} holds the map key ${JSON.stringify(key)}`;
      problems.push(`${at}: ${found}: ${FOLD_HINT}`);
    }
  };
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string') check(v, at, 'value');
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        check(k, at, 'key');
        walk(x, `${at}[${JSON.stringify(k)}]`);
      }
    }
  };
  walk(value, where);
  return problems;
}

/** An adapter with no server behind it: every command fails, so a collector notes it as it would a refusal. */
const noServer: Adapter = {
  kind: 'driver',
  source: 'no server (the rule tester)',
  bson: {
    objectId: (hex) => (hex === undefined ? new ObjectId() : new ObjectId(hex)),
    uuid: (hex) => new UUID(hex),
    long: (v) => Long.fromString(String(v)),
  },
  roundTrips: 0,
  command: (_db, cmd) => {
    const what = Object.keys(cmd)[0] ?? 'a command';
    const why = `no server in the rule tester: ${what} was not sent; test what it sends in live.test.ts`;
    return Promise.reject(new Error(why));
  },
  close: () => Promise.resolve(),
};

export interface CollectedFromDocs<D> {
  /** The collector's data, or undefined when it returned none. */
  data: D | undefined;
  /** The collection as collect would store it: the sample profiled and folded, the data under the collector's id. */
  collection: CollectionSnapshot;
  /** A snapshot holding that collection, ready for a rule-tester case. */
  snapshot: Snapshot;
  /** What the collector noted (a command it tried fails: there is no server). */
  notes: Note[];
}

/**
 * Runs a collection collector over raw documents as collect does, with no server: the real Profiler profiles and
 * folds them (`maps`: the folding thresholds, FOLD_DEFAULTS otherwise), the real CollectorRunner calls `collect(ctx)`
 * with `ctx.docs` and `ctx.collection` set, through the read-only gate. Throws, naming each leaked key, when the data
 * holds a map key of those documents, or when the snapshot schema composed with the collector refuses it.
 * `resolved` (a run's list, `resolveRules`) gives the collector its rules' options in `ctx.options`.
 */
export async function collectFromDocs<D>(
  collector: Collector<D, 'collection'>,
  docs: readonly Doc[],
  opts: { name?: string; maps?: Partial<FoldOptions>; resolved?: readonly ResolvedRule[] } = {},
): Promise<CollectedFromDocs<D>> {
  const profiler = new Profiler(null, opts.maps);
  const folded = profiler.finish(docs.map((d) => profiler.profile(d)));
  const sample = sampleOf(folded.docs, { fields: Object.fromEntries(folded.fields), dynamicKeys: folded.dynamicKeys });
  const base = collectionOf(opts.name ?? 'docs', { sample });
  const collection: CollectionSnapshot = { ...base, stats: base.stats && { ...base.stats, count: docs.length } };
  const base0 = { adapter: readOnly(noServer), server: snapshotOf([]).server, maxTimeMS: 1000, serverStatus: null };
  // `resolved`: the run's rules with their options, as check hands them over (the collector reads its rules' ones)
  const runner = new CollectorRunner([collector], { ...base0, runNotes: [], resolved: opts.resolved ?? [] });
  const listed = { name: collection.name, type: 'collection', options: {} };
  await runner.collection(
    collection,
    listed,
    docs,
    docs.map((d) => d._id),
  );
  const data = collection.data?.[collector.id] as D | undefined;
  const fieldNames = new Set(Object.keys(sample.fields).flatMap((p) => p.split('.')));
  const mapKeys = mapKeysOf(docs, new PathFolder(folded.dynamicKeys));
  const problems = [
    ...leakedMapKeys(data, mapKeys, fieldNames, `data[${JSON.stringify(collector.id)}]`),
    ...collection.notes.filter((n) => n.level === 'error').map((n) => `the collector failed: ${n.message}`),
  ];
  const snapshot = snapshotOf([collection]);
  problems.push(...snapshotProblems(snapshot, [collector]).map((p) => `snapshot: ${p}`));
  if (problems.length) {
    throw new Error(`collector ${collector.id} over ${docs.length} document(s):\n${problems.join('\n')}`);
  }
  return { data, collection, snapshot, notes: collection.notes };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}

/** Runs the rule on a frozen JSON copy of the case's snapshot (what a loaded snapshot file gives it). */
function runCase(rule: Rule, c: RuleCase): AnalyzeOutput {
  const frozen = deepFreeze(JSON.parse(JSON.stringify(c.snapshot)) as Snapshot);
  return runRuleWithNotes(rule, frozen, c.options);
}

/** Every problem of one case; empty when it passes. `findings` absent: a valid case. */
export function checkCase(rule: Rule, c: RuleCase & { findings?: ExpectedFinding[] }): string[] {
  // Checked against the schemas of the rule's collectors too: fixture data must be data its collectors could write.
  const problems = snapshotProblems(c.snapshot, rule.needs ?? []).map((p) => `snapshot: ${p}`);
  if (c.findings) problems.push(...expectationProblems(c.findings, rule.meta.messages as Record<string, string>));
  let out: AnalyzeOutput;
  try {
    out = runCase(rule, c);
  } catch (err) {
    // resolveOptions throws for options the rule's schema refuses
    return [...problems, `the run threw: ${err instanceof Error ? err.message : String(err)}`];
  }
  const reported = out.findings;
  for (const f of reported.filter((x) => x.messageId === 'internalError'))
    problems.push(`the rule threw: ${f.message}`);
  for (const f of reported)
    for (const p of findingTextProblems(f, rule.id))
      problems.push(`${f.severity} ${f.messageId} ${JSON.stringify(f.target)}: ${p}`);
  for (const n of out.notes) for (const p of noteTextProblems(n)) problems.push(p);
  problems.push(...mapKeyProblems(c.snapshot, reported, rule.needs ?? []));
  if (c.notes) {
    const notes = compareNotes(c.notes, out.notes);
    if (notes) problems.push(notes);
  } else if (!c.findings) {
    // A valid case passes because the rule judged and found nothing, not because it gave up: a rule that could not
    // check leaves a skipped or error note, which the case must then list under `notes`.
    const gaveUp = out.notes.filter((n) => n.level !== 'info');
    if (gaveUp.length)
      problems.push(
        `a valid case without \`notes\` must leave no skipped or error note (the rule may have given up); ` +
          `it left ${gaveUp.length}:\n${gaveUp.map((n) => `  - ${n.level}: ${JSON.stringify(n.message)}`).join('\n')}`,
      );
  }
  if (!c.findings) {
    if (reported.length)
      problems.push(
        `a valid case must produce no finding at all; the rule ` +
          `reported ${reported.length}:\n${reported.map((f) => `  - ${describeFinding(f)}`).join('\n')}`,
      );
    return problems;
  }
  const cmp = compareFindings(c.findings, reported, rule.meta.messages as Record<string, string>);
  if (!cmp.pass) problems.push(cmp.report);
  return problems;
}

/** Names used twice (ESLint's RuleTester refuses duplicate cases too). */
function duplicateNames(cases: RuleCases): string[] {
  const seen = new Set<string>();
  const dup: string[] = [];
  for (const c of [...cases.valid.map((v) => `valid: ${v.name}`), ...cases.invalid.map((v) => `invalid: ${v.name}`)]) {
    if (seen.has(c)) dup.push(c);
    seen.add(c);
  }
  return dup;
}

function fail(rule: Rule, name: string, problems: string[]): void {
  if (problems.length) throw new Error(`rule ${rule.id}, ${name}:\n${problems.join('\n')}`);
}

/** Registers one vitest test per case under `rule <id>`. */
export function ruleTester(rule: Rule, cases: RuleCases): void {
  describe(`rule ${rule.id}`, () => {
    it('has uniquely named cases, valid and invalid ones', () => {
      fail(rule, 'cases', [
        ...duplicateNames(cases).map((n) => `case named twice: ${n}`),
        ...(cases.valid.length === 0 ? ['no valid case'] : []),
        ...(cases.invalid.length === 0 ? ['no invalid case'] : []),
      ]);
    });
    for (const c of cases.valid) it(`valid: ${c.name}`, () => fail(rule, `valid case "${c.name}"`, checkCase(rule, c)));
    for (const c of cases.invalid)
      it(`invalid: ${c.name}`, () => fail(rule, `invalid case "${c.name}"`, checkCase(rule, c)));
  });
}
