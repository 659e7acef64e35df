/**
 * The Node API: check (collect -> analyze -> confirm), collect, analyze, your own rules with defineRule, the
 * adapters and the reporters. Types are in dist/types (package.json "types").
 */
export { check, analyzeAndConfirm, rulesWith, type CheckOptions } from './check';
export { collectSnapshot, collectSnapshot as collect, type CollectOptions } from './collect';
export { analyze, type AnalyzeSettings, type RuleSetting } from './core/runner';
export { rules } from './core/registry';
export { defineRule, type Rule, type RuleMeta, type RuleConfirm, type FindingInput, type Report, type NoteFn, type OptionsSchema } from './core/rule';
export type { ConfirmContext } from './confirm/context';
export { DriverAdapter } from './adapters/driver';
export type { Adapter } from './adapters/types';
export type { CheckResult, CollectionSnapshot, Confirmation, Finding, Note, Severity, Snapshot, Target } from './core/types';
export { formatText } from './report/text';
export { formatJson } from './report/json';
export { formatMarkdown } from './report/markdown';
export { formatSarif } from './report/sarif';
export { formatJunit } from './report/junit';
export { loadSnapshot, saveSnapshot, parseSnapshot, SNAPSHOT_JSON_SCHEMA } from './core/snapshot-file';
export { loadConfig, settingsOf } from './core/config';
