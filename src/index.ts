/**
 * The Node API: check (collect -> analyze -> confirm), collect, analyze, your own rules with defineRule, the
 * adapters and the reporters. Types are in dist/types (package.json "types").
 */
import { rules } from '../rules';
import type { Adapter } from './adapters/types';
import * as engine from './check';
import { loadConfig as loadConfigFrom, type LoadedConfig } from './core/config';
import type { AnyRule } from './core/rule';
import { collectSnapshot, type CollectOptions } from './collect';
import { collectPlan, type ResolvedRule, resolveRules } from './core/runner';
import { analyze as analyzeWith, type AnalyzeOutput, type AnalyzeSettings } from './core/runner';
import type { CheckResult, Snapshot } from './core/types';
import { ruleCatalog } from './report/catalog';
import { formatJunit as junitOf, type JunitOptions } from './report/junit';
import { formatSarif as sarifOf, type SarifOptions } from './report/sarif';

// The engine names no rule: this front door hands it the built-in list (rules/index.ts) wherever one is needed.

/** Options of check(): the built-in rules always run, plus `extraRules`. */
export type CheckOptions = Omit<engine.CheckOptions, 'rules'>;

/** collect -> analyze -> confirm, with the built-in rules and your `extraRules`. */
export function check(adapter: Adapter, opts: CheckOptions): Promise<CheckResult> {
  return engine.check(adapter, { ...opts, rules });
}

/** analyze -> confirm over a snapshot already collected, with the built-in rules and your `extraRules`. */
export function analyzeAndConfirm(
  snapshot: Snapshot,
  adapter: Adapter | null,
  opts: CheckOptions,
  started?: number,
  t0?: number,
): Promise<CheckResult> {
  return engine.analyzeAndConfirm(snapshot, adapter, { ...opts, rules }, started, t0);
}

/** The built-in rules plus a caller's own, checked for clashing ids. */
export function rulesWith(extra: readonly AnyRule[] = []): readonly AnyRule[] {
  return engine.rulesWith(rules, extra);
}

/**
 * Runs the enabled rules (default: the built-in ones) over a snapshot. Pure: no I/O. Pass a run's list (`runRules`,
 * or `loadConfig(...).resolved`) instead of settings to read options resolved once.
 */
export function analyze(
  snapshot: Snapshot,
  settings: AnalyzeSettings | readonly ResolvedRule[] = {},
  list: readonly AnyRule[] = rules,
): AnalyzeOutput {
  if (Array.isArray(settings)) return analyzeWith(snapshot, settings as readonly ResolvedRule[]);
  return analyzeWith(snapshot, settings as AnalyzeSettings, list);
}

/**
 * The run's rules: the built-in ones plus `extraRules` (ids checked), the enabled ones under `settings`, each with its
 * options validated and defaulted once. Hand it to check, collect and analyze as `resolved`.
 */
export function runRules(
  opts: { extraRules?: readonly AnyRule[]; settings?: AnalyzeSettings } = {},
): readonly ResolvedRule[] {
  return resolveRules(engine.rulesWith(rules, opts.extraRules), opts.settings);
}

/** Finds and checks the configuration against the built-in rules (or the ones given). */
export function loadConfig(opts: { cwd?: string; file?: string; rules?: readonly AnyRule[] } = {}): LoadedConfig {
  return loadConfigFrom({ ...opts, rules: opts.rules ?? rules });
}

/** SARIF 2.1.0, describing the built-in rules unless `rules` is given. */
export function formatSarif(result: Parameters<typeof sarifOf>[0], opts: Partial<SarifOptions> = {}): string {
  return sarifOf(result, { ...opts, rules: opts.rules ?? ruleCatalog(rules) });
}

/** JUnit XML, one test case per rule and collection, over the built-in rules unless `rules` is given. */
export function formatJunit(result: Parameters<typeof junitOf>[0], opts: Partial<JunitOptions> = {}): string {
  return junitOf(result, { ...opts, rules: opts.rules ?? ruleCatalog(rules) });
}

/**
 * Reads one database into a snapshot (read-only). Runs the collectors of the built-in rules plus `extraRules` (or of
 * `resolved`, a run's list), or exactly `collectors` when given; each collector reads its rules' resolved options.
 */
export function collect(
  adapter: Adapter,
  opts: CollectOptions & { extraRules?: readonly AnyRule[]; settings?: AnalyzeSettings },
): Promise<Snapshot> {
  const { extraRules, settings, ...rest } = opts;
  const given = { ...(extraRules ? { extraRules } : {}), ...(settings ? { settings } : {}) };
  const resolved = rest.resolved ?? runRules(given);
  return collectSnapshot(adapter, { ...rest, resolved, collectors: rest.collectors ?? collectPlan(resolved) });
}

export { rules };
export { collectSnapshot, type CollectOptions } from './collect';
export {
  defineCollector,
  dataOf,
  optionsOf,
  type Collector,
  type CollectorScope,
  type CollectionContext,
  type DatabaseContext,
  type DeploymentContext,
} from './core/collector';
export { serverStatus as serverStatusCollector, type ServerStatusData } from './collect/server-status';
export type { AnalyzeSettings, ResolvedRule, RuleSetting } from './core/runner';
export {
  defineRule,
  type Rule,
  type AnyRule,
  type RuleMeta,
  type RuleConfirm,
  type FindingInput,
  type Report,
  type NoteFn,
  type OptionsSchema,
  type OptionsOf,
  type RuleTable,
  type TablesInput,
} from './core/rule';
export type { ConfirmContext } from './confirm/context';
export { DriverAdapter } from './adapters/driver';
export type { Adapter } from './adapters/types';
export type {
  CheckResult,
  CollectionSnapshot,
  Confirmation,
  Finding,
  Note,
  ReportTable,
  Severity,
  Snapshot,
  TableCell,
  TableColumn,
  TableColumnKind,
  Target,
} from './core/types';
export { formatText } from './report/text';
export { formatJson } from './report/json';
export { formatMarkdown } from './report/markdown';
export {
  loadSnapshot,
  saveSnapshot,
  parseSnapshot,
  snapshotJsonSchema,
  SNAPSHOT_JSON_SCHEMA,
} from './core/snapshot-file';
export { settingsOf } from './core/config';
