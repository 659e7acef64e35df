import { rules } from '../../rules';
import { inspect } from 'node:util';
import { type ShellGlobals, ShellAdapter } from '../adapters/shell';
import { check } from '../check';
import { UserError } from '../core/errors';
import { OptionsError } from '../core/options';
import type { AnalyzeSettings } from '../core/runner';
import { formatText } from '../report/text';
import type { CheckResult } from '../core/types';
import { VERSION } from '../version';

export interface PluginCheckOptions {
  /** Run the scratch experiments (default true). */
  confirm?: boolean;
  sampleSize?: number;
  /** Database to check instead of the shell's current one. */
  db?: string;
  /** Seconds each confirmation may take (default 30). */
  confirmBudget?: number;
  maxTimeMS?: number;
  /** Rule settings as in .mongo-advisor.json: { 'array-growth': { options: { warnLength: 500 } }, 'id-pattern': 'off' }. */
  rules?: AnalyzeSettings['rules'];
}

const HELP = `mongo-advisor ${VERSION} — schema advice, each finding proved on a scratch copy

  advisor.check("posts")                         check one collection of the current database
  advisor.check("posts", { confirm: false })     skip the scratch experiments (read-only)
  advisor.check("posts", { sampleSize: 2000 })   sample size (default min(max(20, 4% of count), 10000))
  advisor.check()                                check every collection of the current database
  advisor.check("posts", { rules: { "array-growth": { options: { warnLength: 500 } } } })
  advisor.check("posts", { db: "blog" })         another database
  advisor.help()                                 this text

The value printed is the report; with mongosh --json you get its fields.
Confirmation writes only to a scratch database named mongo_advisor_scratch_<random>, dropped afterwards.`;

const OPTION_KEYS = ['confirm', 'sampleSize', 'db', 'confirmBudget', 'maxTimeMS', 'rules'];

/** A check result that prints as the readable report at the prompt and as its fields with --json. */
function asPrintable(result: CheckResult): CheckResult {
  const proto = {
    [inspect.custom](_depth: number, options: { colors?: boolean }): string {
      return formatText(this as unknown as CheckResult, { color: options.colors === true });
    },
    toString(): string {
      return formatText(this as unknown as CheckResult, { color: false });
    },
  };
  return Object.assign(Object.create(proto) as object, result);
}

function printableText(text: string): { [k: symbol]: () => string } {
  return { [inspect.custom]: () => text };
}

function validate(name: unknown, opts: unknown): PluginCheckOptions {
  if (name !== undefined && typeof name !== 'string') throw new UserError(`advisor.check expects a collection name (a string), got ${typeof name}. Example: advisor.check("posts")`);
  if (opts === undefined) return {};
  if (opts === null || typeof opts !== 'object') throw new UserError('advisor.check options must be an object, e.g. { confirm: false }');
  const unknown = Object.keys(opts).filter((k) => !OPTION_KEYS.includes(k));
  if (unknown.length) throw new UserError(`Unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}. Options: ${OPTION_KEYS.join(', ')}.`);
  const o = opts as PluginCheckOptions;
  if (o.sampleSize !== undefined && (!Number.isInteger(o.sampleSize) || o.sampleSize < 1)) throw new UserError('sampleSize must be a positive whole number, e.g. { sampleSize: 2000 }');
  return o;
}

/** Defines `advisor` on mongosh's global scope. Called by dist/advisor.js after load(). */
export function install(g: Record<string, unknown>): void {
  const shell = g as unknown as ShellGlobals;
  const advisor = {
    version: VERSION,
    help: () => printableText(HELP),
    async check(name?: string, opts?: PluginCheckOptions): Promise<CheckResult> {
      const o = validate(name, opts);
      const adapter = new ShellAdapter(shell);
      const db = o.db ?? shell.db.getName();
      try {
        const result = await check(adapter, {
          db,
          rules,
          ...(name ? { collections: [name] } : {}),
          ...(o.sampleSize ? { sampleSize: o.sampleSize } : {}),
          ...(o.maxTimeMS ? { maxTimeMS: o.maxTimeMS } : {}),
          ...(o.confirmBudget ? { budgetMs: o.confirmBudget * 1000 } : {}),
          confirm: o.confirm !== false,
          ...(o.rules ? { settings: { rules: o.rules } } : {}),
        });
        return asPrintable(result);
      } catch (err) {
        if (err instanceof UserError || err instanceof OptionsError) {
          const e = new Error(err.message);
          e.name = 'mongo-advisor';
          e.stack = `${e.name}: ${e.message}`;
          throw e;
        }
        throw err;
      }
    },
  };
  Object.defineProperty(advisor, inspect.custom, { value: () => HELP, enumerable: false });
  g.advisor = advisor;
}
