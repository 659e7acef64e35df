import type { AnyCollector } from './collector';
import type {
  CapabilityName,
  CollectionSnapshot,
  Confirmation,
  Finding,
  Gap,
  Recommendation,
  ReportTable,
  Severity,
  Snapshot,
  Target,
} from './types';

/** One option: a JSON Schema property with the default and a description citing where the default comes from. */
export type OptionSchema = (
  | { type: 'number' | 'integer'; minimum?: number; maximum?: number; exclusiveMinimum?: number }
  | { type: 'string'; enum?: readonly string[]; minLength?: number }
  | { type: 'boolean' }
  | { type: 'array'; items: { type: 'string' | 'number' | 'integer'; enum?: readonly string[] }; uniqueItems?: boolean }
) & { default: unknown; description: string };

/** JSON Schema for a rule's options: every property carries a default and a description citing its source. */
export interface OptionsSchema {
  type: 'object';
  properties: Readonly<Record<string, OptionSchema>>;
  additionalProperties: false;
}

type ValueOf<P> = P extends { type: 'string'; enum: readonly (infer E)[] }
  ? E
  : P extends { type: 'string' }
    ? string
    : P extends { type: 'number' | 'integer' }
      ? number
      : P extends { type: 'boolean' }
        ? boolean
        : P extends { type: 'array'; items: infer I }
          ? ValueOf<I>[]
          : never;

/** The options object a rule receives, derived from its schema (every option has a default, so none is optional). */
export type OptionsOf<S extends OptionsSchema> = {
  -readonly [K in keyof S['properties']]: ValueOf<S['properties'][K]>;
};

/** The `{{name}}` placeholders of a message template, as a union of names. */
export type Placeholders<T extends string> = T extends `${string}{{${infer P}}}${infer Rest}`
  ? P | Placeholders<Rest>
  : never;

export type MessageValue = string | number;

/** The concatenation of a tuple of string literal types. */
export type Joined<T extends readonly string[]> = T extends readonly [
  infer H extends string,
  ...infer R extends readonly string[],
]
  ? `${H}${Joined<R>}`
  : '';

/**
 * One message template written over several source lines: `sentence('Array {{path}} grows ', 'past {{max}}.')`.
 * The parts are joined as written (no separator), and the result keeps its literal type, so `report()` still checks
 * the template's placeholders (a `+` would widen it to `string`).
 */
export function sentence<const T extends readonly string[]>(...parts: T): Joined<T> {
  return parts.join('') as Joined<T>;
}

/** `data` for a message: exactly its placeholders (none for a template without any). */
type DataFor<T extends string> = [Placeholders<T>] extends [never]
  ? { data?: Record<string, never> }
  : { data: Record<Placeholders<T>, MessageValue> };

interface FindingBase {
  /** Defaults to the rule's severity. */
  severity?: Severity;
  target: Target;
  evidence: Finding['evidence'];
  recommendation?: Recommendation;
  /**
   * Where the finding stands, higher first (the documents a query reads for nothing, calls × time): the runner lists a
   * database's ranked findings of one severity before its unranked ones, highest rank first. Absent, a finding is
   * ordered by its address. Not part of the finding that is reported.
   */
  rank?: number;
}

/** A finding as a rule reports it: a message id of the rule and the values of that message's placeholders. */
export type FindingInput<M extends Record<string, string> = Record<string, string>> = string extends keyof M
  ? ReportedFinding // messages not known to the type system (a rule list, the runner)
  : { [K in keyof M & string]: FindingBase & { messageId: K } & DataFor<M[K]> }[keyof M & string];

export type Report<M extends Record<string, string> = Record<string, string>> = (finding: FindingInput<M>) => void;

/** A finding as the runner receives it, whatever the rule's messages (the rule's own types checked the call). */
export type ReportedFinding = FindingBase & { messageId: string; data?: Record<string, MessageValue> };

/**
 * Says what the rule could not check, and why: printed under "Could not check" (level `skipped`, the default), or a
 * plain remark under "Notes" (level `info`); never a finding.
 */
export type NoteFn = (message: string, target?: Target, level?: 'skipped' | 'info', gap?: Gap) => void;

export interface RuleMeta<
  M extends Record<string, string> = Record<string, string>,
  S extends OptionsSchema = OptionsSchema,
> {
  description: string;
  /** The MongoDB manual page behind the rule; the rule's own README is rules/<id>/README.md. */
  docsUrl: string;
  /**
   * The page that explains a particular finding, per message id, where it is not `docsUrl` (a redundant index links to
   * the indexes page, not to `$indexStats`). A finding's `docsUrl` is this, else the rule's.
   */
  docsUrls?: Partial<Record<keyof M & string, string>>;
  severity: Severity;
  /** Message templates with {{name}} placeholders: findings give the values, the template holds the words. */
  messages: M;
  options: S;
  /** What the server must support; a collection on a server lacking one gets a "could not check" note. */
  requires: { capabilities: CapabilityName[] };
}

/**
 * What a rule's experiment receives (`confirm.run`): the read-only source, the scratch handle, the budget. The core
 * only names it; src/confirm/context.ts declares its members by declaration merging, so the rule contract imports
 * nothing of confirm (docs/architecture.md, the layer table) and `run` is still typed in full.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- members declared in src/confirm/context.ts
export interface ConfirmContext {}

export interface RuleConfirm<O> {
  /** One line: what the experiment measures. */
  describe: string;
  /**
   * The experiment's sentences, one variant per verdict: each id starts with the verdict it is written for
   * (`supported…`, `refuted…`, `inconclusive…`; `notRun…`, `error…`; `measured…` for figures with no verdict word), so
   * the words follow the verdict (src/confirm/verdict.ts `say`); test/confirm-messages.test.ts scans them all.
   */
  messages?: Readonly<Record<string, string>>;
  /** Which findings the experiment can test; all of the rule's findings when absent. Others get no confirmation line.
   * */
  appliesTo?: (finding: Finding) => boolean;
  /**
   * Most documents the experiment copies past the run's default `maxDocs` (the index proof's `proofDocs`), so the
   * consent line before any write says it; absent: the run's `maxDocs` bounds it.
   */
  copyDocs?: (options: O) => number;
  run(ctx: ConfirmContext, finding: Finding, options: O): Promise<Omit<Confirmation, 'durationMs' | 'where'>>;
}

export interface AnalyzeInput<O, M extends Record<string, string>> {
  snapshot: Snapshot;
  collection: CollectionSnapshot | null;
  options: O;
  report: Report<M>;
  note: NoteFn;
}

/** What a rule's `tables` receives: the snapshot, its resolved options and its own findings of the run. */
export interface TablesInput<O> {
  snapshot: Snapshot;
  options: O;
  /** This rule's findings, in the run's order, with their confirmation when the run confirmed. */
  findings: readonly Finding[];
}

/** A table as a rule makes it; the runner adds the rule's id. */
export type RuleTable = Omit<ReportTable, 'ruleId'>;

export interface Rule<
  O = Record<string, unknown>,
  M extends Record<string, string> = Record<string, string>,
  S extends OptionsSchema = OptionsSchema,
> {
  id: string;
  meta: RuleMeta<M, S>;
  /**
   * The collectors whose data the rule reads (src/core/collector.ts): collect runs only those the enabled rules need,
   * and a rule whose collectors did not run (a snapshot taken with it off) is skipped with a note, never passed.
   */
  needs?: readonly AnyCollector[];
  /**
   * Pure: reads the snapshot, calls report() for each finding. Per-collection rules
   * receive one collection at a time; `scope: 'snapshot'` rules see all of it once.
   */
  scope: 'collection' | 'snapshot';
  analyze(input: AnalyzeInput<O, M>): void;
  confirm?: RuleConfirm<O>;
  /**
   * Tables for the report, made after analysis and confirmation (src/core/types.ts `ReportTable`): pure, like
   * `analyze`; each row holds one cell per column. Not called when the rule was skipped.
   */
  tables?(input: TablesInput<O>): RuleTable[];
}

/**
 * A rule, typed from what it declares (after typescript-eslint's `createRule`): its options' type comes from the
 * option schema, `report()` takes only its message ids, each with exactly the values its template's placeholders
 * name. Write messages and the options schema inline (or `as const`) so their literal types are kept.
 */
export function defineRule<const M extends Record<string, string>, const S extends OptionsSchema>(
  rule: Rule<OptionsOf<S>, M, S>,
): Rule<OptionsOf<S>, M, S> {
  return rule;
}

/** A rule of any options and messages, as lists hold them (the runner resolves options against the rule's schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRule = Rule<any, any, OptionsSchema>;
