import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { type FoldOptions, MAPS_JSON_SCHEMA } from './fold';
import { closest } from '../lib/suggest';
import { SPEC_RULES } from './spec-rules';
import { UserError } from './errors';
import { type AnalyzeSettings, type ResolvedRule, resolveRules, RuleOptionsError, type RuleSetting } from './options';
import type { AnyRule as Rule } from './rule';
import { SEVERITIES, type Severity } from './types';

/** `.mongo-advisor.json`, or the `mongoAdvisor` key of package.json. */
export interface AdvisorConfig {
  $schema?: string;
  /** Per rule: "off", a severity, or { severity, enabled, options }. */
  rules?: Record<string, RuleSetting>;
  /** lint: lowest severity of a new finding that fails the run (default error). */
  failOn?: Severity;
  /** lint: most new warnings allowed before the run fails (default: no limit). */
  maxWarnings?: number;
  /** lint: baseline file, relative to the config file. */
  baseline?: string;
  /** lint and audit: declared spec file, relative to the config file. */
  spec?: string;
  /** Documents sampled per collection (default min(max(20, 4% of count), 10000)). */
  sampleSize?: number;
  /** When an object is a map whose keys are data, folded into `<key>` (src/collect/fold.ts FOLD_DEFAULTS). */
  maps?: Partial<FoldOptions>;
}

export interface LoadedConfig {
  config: AdvisorConfig;
  /** The file it came from (with `#mongoAdvisor` for package.json), or null when none was found. */
  file: string | null;
  /** Directory that relative paths in the config are resolved against. */
  dir: string;
  /**
   * The run's rules: the enabled ones of the rules given, options resolved once (`resolveRules`). Collect, analyze and
   * confirm take this list; nothing resolves options again.
   */
  resolved: ResolvedRule[];
}

export const CONFIG_FILE = '.mongo-advisor.json';
const TOP_KEYS = ['$schema', 'rules', 'failOn', 'maxWarnings', 'baseline', 'spec', 'sampleSize', 'maps'];
const SETTING_KEYS = ['severity', 'enabled', 'options'];

/** JSON Schema of the config file (for editors via "$schema", and checked with ajv on load). */
export const CONFIG_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'mongo-advisor configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    rules: {
      type: 'object',
      additionalProperties: {
        anyOf: [
          { enum: ['off', ...SEVERITIES] },
          {
            type: 'object',
            additionalProperties: false,
            properties: {
              severity: { enum: [...SEVERITIES] },
              enabled: { type: 'boolean' },
              options: { type: 'object' },
            },
          },
        ],
      },
    },
    failOn: { enum: [...SEVERITIES] },
    maxWarnings: { type: 'integer', minimum: 0 },
    baseline: { type: 'string', minLength: 1 },
    spec: { type: 'string', minLength: 1 },
    sampleSize: { type: 'integer', minimum: 1 },
    maps: MAPS_JSON_SCHEMA,
  },
} as const;

// Compiled on first use, not at import: every CLI start imports this module, not every one reads a config file.
let configValidator: ValidateFunction | undefined;
const validateConfig = (): ValidateFunction =>
  (configValidator ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(CONFIG_JSON_SCHEMA));

/** Every rule id a config may name: the snapshot rules and the spec checks. */
export function knownRuleIds(rules: readonly Rule[]): string[] {
  return [...rules.map((r) => r.id), ...SPEC_RULES.map((r) => r.id)].sort();
}

const quoteAll = (xs: readonly unknown[]): string => xs.map((x) => JSON.stringify(x)).join(', ');

function keyOf(e: ErrorObject): string {
  return e.instancePath
    .replace(/^\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** One message per problem, naming the key and what is allowed there. */
function describeErrors(errors: readonly ErrorObject[], data: unknown): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    const key = keyOf(e);
    if (/^rules\.[^.]+/.test(key) && (e.keyword === 'anyOf' || e.instancePath.split('/').length >= 3)) {
      const [, id] = key.split('.');
      const value = (data as { rules: Record<string, unknown> }).rules[id as string];
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const v = value as Record<string, unknown>;
        const bad = Object.keys(v).filter((k) => !SETTING_KEYS.includes(k));
        if (bad.length)
          out.add(`unknown key ${quoteAll(bad)} in rules.${id}; allowed keys: ${SETTING_KEYS.join(', ')}`);
        if (v.severity !== undefined && !SEVERITIES.includes(v.severity as Severity))
          out.add(`rules.${id}.severity is ${JSON.stringify(v.severity)}; allowed values: ${quoteAll(SEVERITIES)}`);
        if (v.enabled !== undefined && typeof v.enabled !== 'boolean')
          out.add(`rules.${id}.enabled is ${JSON.stringify(v.enabled)}; allowed values: true, false`);
        if (
          v.options !== undefined &&
          (v.options === null || typeof v.options !== 'object' || Array.isArray(v.options))
        )
          out.add(`rules.${id}.options must be an object of the rule's options`);
      } else {
        out.add(
          `rules.${id} is ${JSON.stringify(value)}; allowed values: ${quoteAll(['off', ...SEVERITIES])}, or ` +
            `an object with ${SETTING_KEYS.join(', ')}`,
        );
      }
      continue;
    }
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const allowed = key === 'maps' ? Object.keys(MAPS_JSON_SCHEMA.properties) : TOP_KEYS;
      const near = closest(extra, allowed);
      out.add(
        `unknown key "${key ? `${key}.` : ''}${extra}"${near ? ` (did you mean "${near}"?)` : ''}; allowed ` +
          `keys: ${allowed.join(', ')}`,
      );
    } else if (e.keyword === 'enum') {
      out.add(
        `${key} is ${JSON.stringify(valueAt(data, key))}; allowed ` +
          `values: ${quoteAll((e.params as { allowedValues: unknown[] }).allowedValues)}`,
      );
    } else if (e.keyword === 'anyOf') {
      continue;
    } else {
      out.add(`${key || 'the configuration'} ${e.message ?? 'is invalid'} (got ${JSON.stringify(valueAt(data, key))})`);
    }
  }
  return [...out];
}

function valueAt(data: unknown, key: string): unknown {
  let v: unknown = data;
  for (const k of key ? key.split('.') : [])
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The configuration checked (see parseConfig) and the run's rules resolved under it, by the one resolveRules call. */
function parseAndResolve(
  data: unknown,
  source: string,
  rules: readonly Rule[],
): { config: AdvisorConfig; resolved: ResolvedRule[] } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`${source} must hold a JSON object, e.g. { "rules": { "id-pattern": "off" } }`);
  }
  const problems: string[] = [];
  if (!validateConfig()(data)) problems.push(...describeErrors(validateConfig().errors ?? [], data));
  const config = data as AdvisorConfig;
  const known = knownRuleIds(rules);
  for (const id of Object.keys(config.rules ?? {})) {
    if (!known.includes(id)) problems.push(`unknown rule "${id}" in rules; known rules: ${known.join(', ')}`);
  }
  let resolved: ResolvedRule[] = [];
  if (problems.length === 0) {
    try {
      resolved = resolveRules(rules, settingsOf(config));
    } catch (err) {
      if (!(err instanceof RuleOptionsError)) throw err;
      problems.push(...err.problems.map((p) => `rules.${p.ruleId}.options: ${p.message}`));
    }
    problems.push(...specOptionProblems(config));
  }
  if (problems.length) throw new UserError(`Invalid configuration in ${source}: ${problems.join('; ')}.`);
  return { config, resolved };
}

/** The spec checks have no options: any given is a mistake. */
function specOptionProblems(config: AdvisorConfig): string[] {
  const problems: string[] = [];
  for (const spec of SPEC_RULES) {
    const s = config.rules?.[spec.id];
    if (s && typeof s === 'object' && s.options && Object.keys(s.options).length > 0) {
      problems.push(`rules.${spec.id}.options: ${spec.id} has no options (found ${quoteAll(Object.keys(s.options))})`);
    }
  }
  return problems;
}

/**
 * Checks a parsed configuration: its shape (ajv), the rule ids, and each rule's options against that rule's
 * own schema. Throws a UserError naming the file, the bad key and the allowed values.
 */
export function parseConfig(data: unknown, source: string, rules: readonly Rule[]): AdvisorConfig {
  return parseAndResolve(data, source, rules).config;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new UserError(`Configuration file ${file} does not exist. Check the path given to --config.`);
    throw new UserError(`Could not read the configuration file ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A folder the search for a configuration does not go above: a project root (package.json or .git), or home. */
function isBoundary(dir: string, home: string): boolean {
  return dir === home || existsSync(path.join(dir, 'package.json')) || existsSync(path.join(dir, '.git'));
}

/**
 * The folders searched for a configuration, nearest first: from `cwd` up to and including the project root (the
 * nearest folder with package.json or .git) or the home folder, whichever comes first; only `cwd` itself when neither
 * is above it. A configuration names a spec, and a JavaScript spec is run: one in a shared parent (a temp folder)
 * must not run its code for whoever works below it.
 */
export function configSearchPath(cwd: string, home: string = homedir()): string[] {
  const start = path.resolve(cwd);
  const dirs: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (isBoundary(dir, path.resolve(home))) return dirs;
    if (path.dirname(dir) === dir) return [start];
  }
}

/**
 * Finds the configuration: `--config <file>` when given; else the nearest `.mongo-advisor.json`, or a
 * package.json with a `mongoAdvisor` key, in the folders of {@link configSearchPath}.
 */
export function loadConfig(opts: { cwd?: string; file?: string; home?: string; rules: readonly Rule[] }): LoadedConfig {
  const rules = opts.rules;
  if (opts.file) {
    const file = path.resolve(opts.cwd ?? process.cwd(), opts.file);
    const data = readJson(file);
    const body = path.basename(file) === 'package.json' ? (data as { mongoAdvisor?: unknown }).mongoAdvisor : data;
    if (body === undefined) throw new UserError(`${file} has no "mongoAdvisor" key to read the configuration from.`);
    return { ...parseAndResolve(body, file, rules), file, dir: path.dirname(file) };
  }
  for (const dir of configSearchPath(opts.cwd ?? process.cwd(), opts.home)) {
    const own = path.join(dir, CONFIG_FILE);
    if (existsSync(own)) return { ...parseAndResolve(readJson(own), own, rules), file: own, dir };
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      const data = readJson(pkg) as { mongoAdvisor?: unknown } | null;
      if (data && typeof data === 'object' && data.mongoAdvisor !== undefined) {
        const parsed = parseAndResolve(data.mongoAdvisor, `${pkg} (mongoAdvisor)`, rules);
        return { ...parsed, file: `${pkg}#mongoAdvisor`, dir };
      }
    }
  }
  return { config: {}, file: null, dir: path.resolve(opts.cwd ?? process.cwd()), resolved: resolveRules(rules) };
}

/** The analysis settings of a configuration (rules on/off, severities, options). */
export function settingsOf(config: AdvisorConfig): AnalyzeSettings {
  return config.rules ? { rules: config.rules } : {};
}

/** The severity a spec check reports at, after the configuration; null when it is turned off. */
export function specRuleSeverity(id: string, config: AdvisorConfig): Severity | null {
  const meta = SPEC_RULES.find((r) => r.id === id);
  const s = config.rules?.[id];
  if (s === undefined) return meta?.severity ?? 'warn';
  if (s === 'off') return null;
  if (typeof s === 'string') return s;
  if (s.enabled === false) return null;
  return s.severity ?? meta?.severity ?? 'warn';
}
