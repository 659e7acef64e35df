/**
 * The data that flows through the advisor: collect -> Snapshot -> analyze -> Finding[] -> confirm -> report.
 * Everything here is plain JSON: no driver objects, no document values. The snapshot's types are derived from its
 * JSON Schema (src/core/snapshot-schema.ts) and re-exported here; what follows is what a snapshot file does not hold.
 */

export {
  type ArrayProfile,
  type Capability,
  type CapabilityName,
  type CollectionGroup,
  type CollectionSnapshot,
  type CollectionStats,
  type CollectorRun,
  type DatabaseSnapshot,
  type DocProfile,
  type DynamicKeyProfile,
  type FieldProfile,
  type Gap,
  type IndexSnapshot,
  type KeyShape,
  type Note,
  type PrivilegeSummary,
  type SampleMethod,
  type SampleSnapshot,
  type ServerInfo,
  type Snapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type Target,
} from './snapshot-schema';
import type { Note, PrivilegeSummary, ServerInfo, Target } from './snapshot-schema';

export type Severity = 'info' | 'warn' | 'error';
export const SEVERITIES: readonly Severity[] = ['info', 'warn', 'error'];
export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s);

/**
 * Whether a finding's advice was withdrawn: its experiment refuted the claim, and the recommendation reads
 * "Withdrawn" (src/confirm). It stays in the report as evidence but never counts toward warnings, a summary's counts
 * or the exit code.
 */
export const isWithdrawn = (f: { confirmation?: { status: string } | undefined }): boolean =>
  f.confirmation?.status === 'refuted';

export const ELEMENT_KIND = {
  object: 1,
  array: 2,
  string: 4,
  number: 8,
  objectId: 16,
  other: 32,
} as const;

export type IdType =
  | 'objectId'
  | 'uuid'
  | 'binary'
  | 'string'
  | 'int'
  | 'long'
  | 'double'
  | 'decimal'
  | 'date'
  | 'object'
  | 'other';

/** The placeholder that stands for every key of an object used as a map: `itemsBySku.<key>.qty`. */
export const DYNAMIC_KEY = '<key>';

export interface Recommendation {
  action: string;
  reason: string;
  /**
   * Ready-to-run commands (mongosh syntax), no document values: the step to take now, safe to paste as a block. Each
   * names its database; lines starting with `//` are comments (how to undo, a template to fill in). Built by
   * src/lib/shell.ts only.
   */
  commands?: string[];
  /**
   * A step to take only later, once `when` holds (a dropIndex after the index has been hidden for a business cycle).
   * Reports print it after `commands`, each line commented out (`// `), so pasting the first block cannot run it;
   * JSON keeps the runnable text here.
   */
  later?: LaterStep;
}

/** A later step of a recommendation: the condition to wait for, and the commands to run then. */
export interface LaterStep {
  when: string;
  commands: string[];
}

export interface Measurement {
  label: string;
  unit: 'ms' | 'bytes' | 'ops/s';
  median: number;
  low: number;
  high: number;
  trials: number;
  /** Probability that low..high holds the true median (order statistics of the trials: exact, distribution-free);
   * absent for a single reading. */
  coverage?: number;
}

/** A ratio of two timed arms: the median of the paired ratios and an interval of them (src/confirm/harness.ts
 * ratioOf). */
export interface RatioInterval {
  median: number;
  low: number;
  high: number;
  /**
   * The interval's real coverage (at least 0.95 when it was reached: labelled "95% interval"; below, "range of what was
   * timed"); absent for an exact figure (a size).
   */
  coverage?: number;
  /** Pairs (rounds) timed; the interval is over `blocks` block-level ratios of them. */
  pairs?: number;
  /** Blocks of alternated rounds the interval was computed over (src/confirm/harness.ts `blockRatios`). */
  blocks?: number;
  /** true when the arms were timed in alternation, round by round (each ratio shares that moment's load). */
  paired?: boolean;
}

/**
 * What an experiment tests, stated as a direction and a size before it runs: "the ratio with / without the validator
 * lies below 2" (`direction: 'below', size: 2`). The verdict is the interval against it (src/confirm/harness.ts
 * `judge`): supported when the whole interval lies on the claim's side of `size`, refuted when the whole interval lies
 * on the other side, inconclusive otherwise.
 */
export interface RatioClaim {
  kind: 'ratio';
  direction: 'above' | 'below';
  size: number;
  /** The claim in words, e.g. "the validator adds less than 100% to insert time". */
  text: string;
}

/**
 * A yes/no check that is not a cost (the planner still picks the longer index; a query by one type misses the other):
 * reported as a check that passed (`supported`) or failed (`refuted`), never as a confirmed cost.
 */
export interface CheckClaim {
  kind: 'check';
  text: string;
}

export type Claim = RatioClaim | CheckClaim;

/** The three verdicts of an experiment that ran; `not-run` and `error` say it did not. */
export type Verdict = 'supported' | 'refuted' | 'inconclusive';

export interface Confirmation {
  /** Machine names, stable in JSON, SARIF and JUnit; a `check` claim reads them as "check passed" / "check failed". */
  status: Verdict | 'not-run' | 'error';
  /** What was tested (absent for not-run and error): the verdict is this claim's, and the words follow it. */
  claim?: Claim;
  summary: string;
  /** Ratio alternative/current or current/alternative as the summary says, with its interval and that interval's real
   * `coverage`. */
  ratio?: RatioInterval & { label: string };
  measurements: Measurement[];
  /** Where it ran: scratch database and server, never the user's collections. */
  where: string;
  /** For not-run: what the server lacked or ignored. */
  reason?: string;
  /**
   * What the experiment showed, in a few words, for a collapsed report line ("every copy passes; inserts 1.42x
   * (95% interval 1.36–1.54)"); the ratio's label and figure stand in when absent.
   */
  brief?: string;
  durationMs: number;
}

export interface Finding {
  ruleId: string;
  messageId: string;
  severity: Severity;
  target: Target;
  message: string;
  evidence: Record<string, string | number | boolean | null>;
  recommendation?: Recommendation;
  docsUrl: string;
  confirmation?: Confirmation;
}

/**
 * How a table's column is shown: `name` a name from the database (a collection, an index) and `code` a shape, key or
 * command, both in monospace; `text` a few words; `count` a number and `ms` a duration, right-aligned and formatted by
 * each output (JSON keeps the number). A null cell is shown as "—": unknown or not applicable.
 */
export type TableColumnKind = 'name' | 'code' | 'text' | 'count' | 'ms';

export interface TableColumn {
  title: string;
  kind: TableColumnKind;
}

export type TableCell = string | number | null;

/**
 * A table a rule adds to the report (`tables` on the rule contract, src/core/rule.ts): figures that read best side by
 * side, such as the query shapes of a database with their calls, times and indexes. HTML and Markdown render it after
 * the findings, JSON holds it as is; text, SARIF and JUnit leave it out. Counts, times, names and shapes only, never a
 * document value.
 */
export interface ReportTable {
  /** The rule that made it. */
  ruleId: string;
  /** The heading, the rule's own words ("Query shapes, highest impact first"). */
  title: string;
  /** What it covers (a database, a collection), shown beside the heading as names. */
  target: Target;
  /** How to read it, one or two sentences, shown under the heading. */
  caption?: string;
  columns: TableColumn[];
  /** One cell per column, in the columns' order. */
  rows: TableCell[][];
}

export interface CheckResult {
  tool: { name: 'mongo-advisor'; version: string };
  startedAt: string;
  durationMs: number;
  source: string;
  server: Pick<ServerInfo, 'version' | 'flavor' | 'storageEngine' | 'topology' | 'imitator'>;
  scope: { db: string; collections: string[] };
  findings: Finding[];
  notes: Note[];
  roundTrips: number;
  confirm: { enabled: boolean; where: string | null; cleanedUp: boolean | null };
  /** What the user's roles allowed (absent when the snapshot did not record it). */
  privileges?: PrivilegeSummary;
  /** The rules' tables (`tables` on the rule contract), in the run's rule order; absent when no rule made one. */
  tables?: ReportTable[];
}
