import { commandCursor } from '../adapters/cursor';
import { type Doc, asServerError, describeServerError } from '../adapters/types';
import type { ValidatorDryRun } from '../core/types';
import type { CollectionCollectorContext } from './extras';
import { compileJsonSchema } from './validator-schema';

const operatorNames = (keys: readonly string[]): string[] => [...new Set(keys.map((k) => (k.startsWith('$') ? k : 'field match')))];

/**
 * Runs a $jsonSchema over documents in-process and keeps counts only: documents checked, documents failing,
 * failures per path, and what could not be evaluated. `otherOperators` are the validator's keys besides
 * $jsonSchema (query operators), which only the server can evaluate.
 */
export function dryRunSample(jsonSchema: Doc | undefined, otherOperators: readonly string[], docs: readonly Doc[]): ValidatorDryRun {
  const out: ValidatorDryRun = { checked: 0, violations: 0, byPath: {}, unsupportedKeywords: [], undecided: [], serverViolators: null };
  const ops = operatorNames(otherOperators);
  if (!jsonSchema || typeof jsonSchema !== 'object') {
    out.skippedReason = `the validator is written with query operators (${ops.join(', ') || 'none'}), not $jsonSchema; the advisor evaluates only $jsonSchema in-process`;
    return out;
  }
  if (ops.length) out.unsupportedKeywords.push(`query operators beside $jsonSchema (${ops.join(', ')})`);
  let compiled: ReturnType<typeof compileJsonSchema>;
  try {
    compiled = compileJsonSchema(jsonSchema);
  } catch (err) {
    out.skippedReason = `the $jsonSchema could not be compiled for an in-process check: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`;
    return out;
  }
  try {
    out.unsupportedKeywords.push(...compiled.unsupported);
    for (const d of docs) {
      const paths = compiled.check(d);
      out.checked++;
      if (paths.length === 0) continue;
      out.violations++;
      for (const p of paths) out.byPath[p] = (out.byPath[p] ?? 0) + 1;
    }
    out.undecided = compiled.undecided();
  } finally {
    compiled.dispose();
  }
  return out;
}

/**
 * validator: for a collection with a validator, checks the sampled documents against its $jsonSchema in-process
 * (counts per path, never values) and counts the documents failing the whole validator on the server with a
 * read-only `count` of {$nor: [validator]}, bounded by maxTimeMS. Two round trips per collection with a validator.
 */
export async function collectValidatorDryRun(ctx: CollectionCollectorContext): Promise<void> {
  const { adapter, collection: c, rawDocs, maxTimeMS } = ctx;
  if (!c.validator.present) return;
  let validator: Doc | null = null;
  let readError: string | null = null;
  try {
    const rows = await commandCursor(adapter, c.db, { listCollections: 1, filter: { name: c.name }, cursor: {}, maxTimeMS }, { maxTimeMS });
    validator = ((rows[0]?.options as Doc | undefined)?.validator as Doc | undefined) ?? null;
    if (!validator) readError = 'listCollections no longer shows a validator on this collection';
  } catch (err) {
    readError = `listCollections failed: ${describeServerError(err)}`;
  }
  const jsonSchema = (validator ? validator.$jsonSchema : c.validator.jsonSchema) as Doc | undefined;
  const others = validator ? Object.keys(validator).filter((k) => k !== '$jsonSchema') : (c.validator.queryOperators ?? []);
  const run = dryRunSample(jsonSchema, others, rawDocs);
  if (!validator) {
    run.serverReason = `the validator could not be read back to count on the server (${readError ?? 'unknown'})`;
  } else {
    try {
      const r = await adapter.command(c.db, { count: c.name, query: { $nor: [validator] }, maxTimeMS });
      run.serverViolators = Number(r.n);
    } catch (err) {
      const e = asServerError(err);
      run.serverReason = e.code === 50 || e.codeName === 'MaxTimeMSExpired'
        ? `the server-side count stopped at maxTimeMS (${maxTimeMS} ms); raise it (--max-time-ms on the CLI, { maxTimeMS } in mongosh) to count every document`
        : `the server-side count failed: ${describeServerError(err)}`;
    }
  }
  c.validatorDryRun = run;
}
