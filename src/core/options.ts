import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { AnyRule, OptionsSchema } from './rule';
import type { Severity } from './types';

const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: true });
ajv.addKeyword('x-source');
const compiled = new WeakMap<OptionsSchema, ValidateFunction>();

/** Raised for options a user set wrongly; the message names the key and what is allowed. */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

function describe(ruleId: string, e: ErrorObject): string {
  const key =
    e.instancePath.replace(/^\//, '').replace(/\//g, '.') ||
    (e.params as { additionalProperty?: string }).additionalProperty ||
    '(options)';
  if (e.keyword === 'additionalProperties') {
    return `unknown option "${(e.params as { additionalProperty: string }).additionalProperty}" for rule ${ruleId}`;
  }
  return `option "${key}" of rule ${ruleId} ${e.message ?? 'is invalid'}`;
}

/** Returns the options with defaults filled in, or throws OptionsError listing every problem. */
export function resolveOptions<O>(ruleId: string, schema: OptionsSchema, given: Record<string, unknown> = {}): O {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const copy: Record<string, unknown> = { ...given };
  if (!validate(copy)) {
    const names = Object.keys(schema.properties).join(', ');
    const problems = (validate.errors ?? []).map((e) => describe(ruleId, e));
    throw new OptionsError(`${problems.join('; ')}. Options of ${ruleId}: ${names}.`);
  }
  return copy as O;
}

export type RuleSetting =
  | 'off'
  | Severity
  | { severity?: Severity; options?: Record<string, unknown>; enabled?: boolean };
export interface AnalyzeSettings {
  rules?: Record<string, RuleSetting>;
  /** Only these rules (by id); all when absent. */
  only?: string[];
}

interface Setting {
  enabled: boolean;
  severity?: Severity;
  options: Record<string, unknown>;
}

/** What the settings say of one rule: on or off, the severity the user set, the options given (not yet resolved). */
export function settingFor(id: string, settings: AnalyzeSettings): Setting {
  const s = settings.rules?.[id];
  if (settings.only && !settings.only.includes(id)) return { enabled: false, options: {} };
  if (s === undefined) return { enabled: true, options: {} };
  if (s === 'off') return { enabled: false, options: {} };
  if (typeof s === 'string') return { enabled: true, severity: s, options: {} };
  return { enabled: s.enabled !== false, ...(s.severity ? { severity: s.severity } : {}), options: s.options ?? {} };
}

/**
 * One enabled rule of a run with its options resolved: validated against the rule's JSON Schema, defaults filled in,
 * frozen. Collect, analyze and confirm all read these very values.
 */
export interface ResolvedRule<R extends AnyRule = AnyRule> {
  readonly rule: R;
  readonly options: Readonly<Record<string, unknown>>;
  /** The severity the user set for the whole rule; absent: each finding's own, else the rule's. */
  readonly severity?: Severity;
}

/** Options that their rules' schemas refuse: one problem per rule, each naming the key and what is allowed. */
export class RuleOptionsError extends OptionsError {
  constructor(readonly problems: readonly { ruleId: string; message: string }[]) {
    super(problems.map((p) => p.message).join('; '));
  }
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}

/**
 * The run's rules: the enabled ones of `rules` in order, each with its options resolved once. Every rule's given
 * options are checked, a disabled rule's too (a typo there is still a typo); throws RuleOptionsError listing them all.
 */
export function resolveRules(rules: readonly AnyRule[], settings: AnalyzeSettings = {}): ResolvedRule[] {
  const out: ResolvedRule[] = [];
  const problems: { ruleId: string; message: string }[] = [];
  for (const rule of rules) {
    const s = settingFor(rule.id, settings);
    try {
      const options = deepFreeze(resolveOptions<Record<string, unknown>>(rule.id, rule.meta.options, s.options));
      if (s.enabled) out.push({ rule, options, ...(s.severity ? { severity: s.severity } : {}) });
    } catch (err) {
      if (!(err instanceof OptionsError)) throw err;
      problems.push({ ruleId: rule.id, message: err.message });
    }
  }
  if (problems.length > 0) throw new RuleOptionsError(problems);
  return out;
}

/** Whether a rule list is already resolved (a run's list) rather than bare rules. */
export function isResolved(list: readonly (AnyRule | ResolvedRule)[]): list is readonly ResolvedRule[] {
  return list.every((r) => 'rule' in r);
}

/** The run's list from either form: a resolved list as it is, bare rules resolved under `settings`. */
export function asResolved(
  list: readonly AnyRule[] | readonly ResolvedRule[],
  settings?: AnalyzeSettings,
): readonly ResolvedRule[] {
  return isResolved(list) ? list : resolveRules(list, settings);
}
