/** The Node API: check (collect -> analyze -> confirm), collect, analyze, and the adapters. */
export { check, analyzeAndConfirm, type CheckOptions } from './check';
export { collectSnapshot, type CollectOptions } from './collect';
export { analyze, type AnalyzeSettings } from './core/runner';
export { rules } from './core/registry';
export { DriverAdapter } from './adapters/driver';
export type { Adapter } from './adapters/types';
export type { CheckResult, Finding, Snapshot, Confirmation } from './core/types';
export { formatText } from './report/text';
export { formatJson } from './report/json';
export { loadSnapshot, saveSnapshot, parseSnapshot, SNAPSHOT_JSON_SCHEMA } from './core/snapshot-file';
export { formatSarif } from './report/sarif';
export { formatJunit } from './report/junit';
export { loadConfig, settingsOf } from './core/config';
