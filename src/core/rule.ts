import type { CapabilityName, CollectPart, CollectionSnapshot, Confirmation, Finding, Recommendation, Severity, Snapshot, Target } from './types';
import type { ConfirmContext } from '../confirm/context';

/** JSON Schema for a rule's options: every property carries a default and a description citing its source. */
export interface OptionsSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown> & { default: unknown; description: string }>;
  additionalProperties: false;
}

export interface FindingInput {
  messageId: string;
  /** Defaults to the rule's severity. */
  severity?: Severity;
  target: Target;
  /** Values for the message template's {{placeholders}}. */
  data?: Record<string, string | number>;
  evidence: Finding['evidence'];
  recommendation?: Recommendation;
}

export type Report = (finding: FindingInput) => void;

/** Says what the rule could not check, and why: printed under "Could not check", never as a finding. */
export type NoteFn = (message: string, target?: Target) => void;

export interface RuleMeta {
  description: string;
  /** The MongoDB manual page behind the rule; the rule's own README is rules/<id>/README.md. */
  docsUrl: string;
  severity: Severity;
  /** Message templates with {{name}} placeholders. */
  messages: Record<string, string>;
  options: OptionsSchema;
  /** What the server must support; a collection on a server lacking one gets a "could not check" note. */
  requires: { capabilities: CapabilityName[] };
}

export interface RuleConfirm<O> {
  /** One line: what the experiment measures. */
  describe: string;
  /** Which findings the experiment can test; all of the rule's findings when absent. Others get no confirmation line. */
  appliesTo?: (finding: Finding) => boolean;
  run(ctx: ConfirmContext, finding: Finding, options: O): Promise<Omit<Confirmation, 'durationMs' | 'where'>>;
}

export interface Rule<O extends Record<string, unknown> = Record<string, unknown>> {
  id: string;
  meta: RuleMeta;
  /** The optional parts of collection this rule reads (src/core/types.ts COLLECT_PARTS); collect runs only those the enabled rules need. */
  needs?: readonly CollectPart[];
  /**
   * Pure: reads the snapshot, calls report() for each finding. Per-collection rules
   * receive one collection at a time; `scope: 'snapshot'` rules see all of it once.
   */
  scope: 'collection' | 'snapshot';
  analyze(input: { snapshot: Snapshot; collection: CollectionSnapshot | null; options: O; report: Report; note: NoteFn }): void;
  confirm?: RuleConfirm<O>;
}

export function defineRule<O extends Record<string, unknown>>(rule: Rule<O>): Rule<O> {
  return rule;
}
