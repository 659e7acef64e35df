import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { OptionsSchema } from './rule';

const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: true });
ajv.addKeyword('x-source');
const compiled = new WeakMap<OptionsSchema, ValidateFunction>();

/** Raised for options a user set wrongly; the message names the key and what is allowed. */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

function describe(ruleId: string, e: ErrorObject): string {
  const key = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || (e.params as { additionalProperty?: string }).additionalProperty || '(options)';
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
