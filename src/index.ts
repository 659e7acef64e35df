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
