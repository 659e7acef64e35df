import { PathFolder } from '../../src/core/fold';
import type { Doc } from '../../src/core/adapter';
import { asServerError, describeServerError } from '../../src/lib/server-error';
import { isDate } from '../../src/lib/bson-types';
import { type CollectionContext, defineCollector, optionsOf } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';
import { resolveOptions } from '../../src/core/options';
import { compileJsonSchema } from './json-schema';
import { type ValidatorOptions, validatorOptionsSchema } from './options';
import { plainSchema, proposeSchema, schemaFingerprint } from './propose';
import { ownValue, setOwn } from '../../src/lib/names-as-data';

/** The options when the run gives the collector none (collectors run without a resolved list): the defaults. */
// resolved on first use, not at import (an ajv compile every CLI start would pay)
let defaults: ValidatorOptions | undefined;
const DEFAULTS = (): ValidatorOptions =>
  (defaults ??= resolveOptions<ValidatorOptions>('validator', validatorOptionsSchema, {}));

/**
 * The options the proposal is made with: the run's resolved ones for the validator rule (`ctx.options`), so the
 * collector counts the very schema the rule will propose. Those that shape it: requiredShare, minSample,
 * maxProperties, maxDepth, maxFields. Enums are left out (read with distinct() only when the user runs the proposal).
 */
function proposalOptions(ctx: CollectionContext): ValidatorOptions {
  return { ...optionsOf(ctx, 'validator', DEFAULTS()), proposeEnums: false };
}

/** Distinct string values are counted up to this many; one more means "more than that". */
export const CARDINALITY_CAP = 64;

const count = { type: 'integer', minimum: 0 } as const;
const countOrNull = { type: ['integer', 'null'], minimum: 0 } as const;
/** Field paths as the census names them, each with a count: never a value. */
const countsByPath = { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } } as const;
const reason = { type: 'string', maxLength: 2000 } as const;

/** The stored validator run over the sampled documents in-process (ajv) and counted on the server. */
const DRY_RUN_SCHEMA = {
  type: 'object',
  required: [
    'checked',
    'violations',
    'byPath',
    'unsupportedKeywords',
    'undecided',
    'serverViolators',
    'serverDocuments',
  ],
  additionalProperties: false,
  properties: {
    /** Sampled documents checked in-process against the $jsonSchema (0 when it could not run). */
    checked: count,
    /** Checked documents failing the $jsonSchema. */
    violations: count,
    /** Failing documents per field path (`a.b`, array elements `a.$[]`). */
    byPath: countsByPath,
    /** Schema parts the in-process check could not evaluate, as "keyword at path"; those parts were not checked. */
    unsupportedKeywords: { type: 'array', items: reason },
    /** Checks decided in the document's favour because the host hides the BSON type, as "path: what". */
    undecided: { type: 'array', items: reason },
    /** Why the in-process check did not run (query-operator validator, schema that does not compile). */
    skippedReason: reason,
    /** Documents failing the whole validator by a server-side count of {$nor: [validator]}; null when not counted. */
    serverViolators: countOrNull,
    /**
     * Documents in the collection the server count ran over (its storage statistics' count, or a count of its own
     * when those are missing); null exactly when `serverViolators` is.
     */
    serverDocuments: countOrNull,
    /** Why the server-side count is missing. */
    serverReason: reason,
  },
} as const;
export type ValidatorDryRun = FromSchema<typeof DRY_RUN_SCHEMA>;

/**
 * No validator: the proposal made with the run's options (enums left out), checked in-process over the sampled
 * documents and counted on the server. Counts and a fingerprint of the schema only: the rule proposes again from the
 * census with its options and uses these counts only when its schema has the same fingerprint (a snapshot collected
 * with other options, recorded in snapshot.collectors, counted another schema).
 */
const PROPOSAL_SCHEMA = {
  type: 'object',
  required: ['fingerprint', 'checked', 'violations', 'serverViolators', 'serverDocuments'],
  additionalProperties: false,
  properties: {
    /** schemaFingerprint (propose.ts) of the schema counted. */
    fingerprint: { type: 'string', pattern: '^[0-9a-f]{14}$' },
    /** Sampled documents checked in-process against it. */
    checked: count,
    /** Of them, those failing it. */
    violations: count,
    /** Documents failing it by a server-side count of {$nor: [{$jsonSchema: schema}]}; null when not counted. */
    serverViolators: countOrNull,
    /** Documents in the collection the count ran over; null exactly when `serverViolators` is. */
    serverDocuments: countOrNull,
    /** Why the server-side count is missing. */
    serverReason: reason,
  },
} as const;
export type ProposalCount = FromSchema<typeof PROPOSAL_SCHEMA>;

/** What the validator rule reads of a collection, beyond the core: by whether it has a validator. */
const VALIDATOR_DATA_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /**
     * No validator: distinct string values per path in the sample, counted up to 65 (65 means more); counts only,
     * never values.
     */
    stringCardinality: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 1, maximum: CARDINALITY_CAP + 1 },
    },
    /** No validator: the default proposal's violators, in the sample and on the server. */
    proposal: PROPOSAL_SCHEMA,
    /** A validator: the stored validator checked against the sample (counts per path, never values) and counted on
     * the server. */
    dryRun: DRY_RUN_SCHEMA,
  },
} as const;
export type ValidatorData = FromSchema<typeof VALIDATOR_DATA_SCHEMA>;

/* ------------------------------------------------------------------------------------------------ */
/* String cardinality (collections without a validator, for enum proposals)                         */
/* ------------------------------------------------------------------------------------------------ */

function isPlainObject(v: object): boolean {
  return (
    (v as { _bsontype?: unknown })._bsontype === undefined &&
    !isDate(v) &&
    !(v instanceof RegExp) &&
    !(v instanceof Uint8Array)
  );
}

/**
 * Distinct string values per path over the documents, counted up to CARDINALITY_CAP (CARDINALITY_CAP + 1 means
 * more). Paths follow the census (src/collect/profile.ts): `a.b` for subdocuments and for fields of objects in
 * arrays, `a.$[]` for scalar array elements. Returns counts only; the values are dropped when it returns.
 */
export function stringCardinality(
  docs: readonly Doc[],
  folder: PathFolder = new PathFolder([]),
): Record<string, number> {
  const sets = new Map<string, Set<string>>();
  const note = (path: string, s: string): void => {
    let set = sets.get(path);
    if (!set) sets.set(path, (set = new Set()));
    if (set.size <= CARDINALITY_CAP) set.add(s);
  };
  const visit = (v: unknown, path: string): void => {
    if (typeof v === 'string') note(path, v);
    else if (Array.isArray(v)) {
      for (const el of v as unknown[]) {
        if (el !== null && typeof el === 'object' && !Array.isArray(el) && isPlainObject(el)) object(el as Doc, path);
        else visit(el, `${path}.$[]`);
      }
    } else if (v !== null && typeof v === 'object' && isPlainObject(v)) object(v as Doc, path);
  };
  const object = (o: Doc, path: string): void => {
    // a map's keys fold to `<key>` as the profiler folded them: no key is kept, its values still counted
    for (const key in o) visit(o[key], folder.child(path, key));
  };
  for (const d of docs) object(d, '');
  const out: Record<string, number> = {};
  // paths are field names: `__proto__` is one (setOwn, where `out[path] =` would set the prototype)
  for (const [path, set] of sets) setOwn(out, path, Math.min(set.size, CARDINALITY_CAP + 1));
  return out;
}

/* ------------------------------------------------------------------------------------------------ */
/* The dry run (collections with a validator)                                                       */
/* ------------------------------------------------------------------------------------------------ */

const operatorNames = (keys: readonly string[]): string[] => [
  ...new Set(keys.map((k) => (k.startsWith('$') ? k : 'field match'))),
];

/**
 * Runs a $jsonSchema over documents in-process and keeps counts only: documents checked, documents failing,
 * failures per path, and what could not be evaluated. `otherOperators` are the validator's keys besides
 * $jsonSchema (query operators), which only the server can evaluate. The server count is left to the caller.
 */
export function dryRunSample(
  jsonSchema: Doc | undefined,
  otherOperators: readonly string[],
  docs: readonly Doc[],
): ValidatorDryRun {
  const out: ValidatorDryRun = {
    checked: 0,
    violations: 0,
    byPath: {},
    unsupportedKeywords: [],
    undecided: [],
    serverViolators: null,
    serverDocuments: null,
  };
  const ops = operatorNames(otherOperators);
  if (!jsonSchema || typeof jsonSchema !== 'object') {
    out.skippedReason =
      `the validator is written with query operators (${ops.join(', ') || 'none'}), not $jsonSchema; the ` +
      `advisor evaluates only $jsonSchema in-process`;
    return out;
  }
  if (ops.length) out.unsupportedKeywords.push(`query operators beside $jsonSchema (${ops.join(', ')})`);
  let compiled: ReturnType<typeof compileJsonSchema>;
  try {
    compiled = compileJsonSchema(jsonSchema);
  } catch (err) {
    out.skippedReason =
      `the $jsonSchema could not be compiled for an in-process ` +
      `check: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`;
    return out;
  }
  try {
    out.unsupportedKeywords.push(...compiled.unsupported);
    for (const d of docs) {
      const paths = compiled.check(d);
      out.checked++;
      if (paths.length === 0) continue;
      out.violations++;
      for (const p of paths) setOwn(out.byPath, p, (ownValue(out.byPath, p) ?? 0) + 1);
    }
    out.undecided = compiled.undecided();
  } finally {
    compiled.dispose();
  }
  return out;
}

/**
 * A read-only `count` of the documents failing `validator` ({$nor: [validator]}), bounded by maxTimeMS, and the total
 * it is out of (the storage statistics' count, or a plain `count` when those are missing); or why there is none.
 */
async function countFailing(
  ctx: CollectionContext,
  validator: Doc,
): Promise<{ failing: number; total: number } | string> {
  const { adapter, collection: c, maxTimeMS } = ctx;
  const stopped = (err: unknown, what: string): string => {
    const e = asServerError(err);
    return e.code === 50 || e.codeName === 'MaxTimeMSExpired'
      ? `${what} stopped at maxTimeMS (${maxTimeMS} ms); raise it (--max-time-ms on the CLI, { maxTimeMS } in ` +
          `mongosh) to count every document`
      : `${what} failed: ${describeServerError(err)}`;
  };
  // a count reply's n, or why there is none
  const n = (reply: Doc): number => {
    const v = Number(reply.n);
    if (!Number.isSafeInteger(v) || v < 0) throw new Error('its reply has no count (n)');
    return v;
  };
  let failing: number;
  try {
    failing = n(await adapter.command(c.db, { count: c.name, query: { $nor: [validator] }, maxTimeMS }));
  } catch (err) {
    return stopped(err, 'the server-side count');
  }
  let total = c.stats?.count ?? null;
  if (total === null) {
    try {
      total = n(await adapter.command(c.db, { count: c.name, maxTimeMS }));
    } catch (err) {
      return stopped(err, "the count of the collection's documents (its storage statistics are missing too)");
    }
  }
  return { failing, total };
}

/**
 * No validator: the proposal with the run's options (enums left out, since they are read with distinct() only when
 * the user runs it), checked over the sampled documents in-process and counted on the server. Counts only.
 */
async function countProposal(
  ctx: CollectionContext,
  stringCardinality: Record<string, number>,
): Promise<ProposalCount | null> {
  const p = proposeSchema(ctx.collection, proposalOptions(ctx), stringCardinality);
  if (!p) return null;
  const schema = plainSchema(p.schema) as Doc;
  const local = dryRunSample(schema, [], ctx.docs);
  const out: ProposalCount = {
    fingerprint: schemaFingerprint(schema),
    checked: local.checked,
    violations: local.violations,
    serverViolators: null,
    serverDocuments: null,
  };
  const counted = await countFailing(ctx, { $jsonSchema: schema });
  if (typeof counted === 'string') out.serverReason = counted;
  else {
    out.serverViolators = counted.failing;
    out.serverDocuments = counted.total;
  }
  return out;
}

/**
 * The stored validator checked against the sample in-process, then counted on the server: the validator as the core's
 * listCollections read it (`ctx.listed`; the snapshot keeps only its $jsonSchema and the names of its other
 * operators), and a read-only `count` of {$nor: [validator]} bounded by maxTimeMS counts the documents failing it.
 * When the collection's storage statistics are missing, a plain `count` gives the total the failing ones are out of.
 */
async function dryRun(ctx: CollectionContext): Promise<ValidatorDryRun> {
  const { collection: c, docs } = ctx;
  const validator = (ctx.listed.options.validator as Doc | undefined) ?? null;
  const readError = validator ? null : 'listCollections showed no validator document for this collection';
  const jsonSchema = (validator ? validator.$jsonSchema : c.validator.jsonSchema) as Doc | undefined;
  const others = validator
    ? Object.keys(validator).filter((k) => k !== '$jsonSchema')
    : (c.validator.queryOperators ?? []);
  const run = dryRunSample(jsonSchema, others, docs);
  if (!validator) {
    run.serverReason = `the validator could not be read back to count on the server (${readError ?? 'unknown'})`;
    return run;
  }
  const counted = await countFailing(ctx, validator);
  if (typeof counted === 'string') {
    run.serverReason = counted;
    return run;
  }
  const { failing, total } = counted;
  run.serverViolators = failing;
  run.serverDocuments = total;
  return run;
}

/**
 * A collection with a validator: the dry run (1 command, the count; 2 when its storage statistics are missing). A
 * collection without one: the number of distinct strings per path in the sample (for enums), and the proposal made
 * with the run's options checked over the sample in-process and counted on the server (1 command, the count; 2
 * when its storage statistics are missing). Each count is bounded by maxTimeMS. Counts, paths and a fingerprint only,
 * never a value.
 */
export const validatorCollector = defineCollector<ValidatorData, 'collection'>({
  id: 'validator',
  version: 2,
  scope: 'collection',
  description:
    'with a validator: the sample checked against it in process, and a count of {$nor: [validator]}; ' +
    'without one: distinct strings per path in the sample, and the proposed validator checked over the ' +
    'sample in process and counted on the server ({$nor: [{$jsonSchema}]}); one count per collection, ' +
    'bounded by maxTimeMS',
  schema: VALIDATOR_DATA_SCHEMA,
  async collect(ctx) {
    if (ctx.collection.validator.present) return { dryRun: await dryRun(ctx) };
    if (ctx.docs.length === 0) return null;
    // only paths the census names: keys of maps the profiler folded are data, never kept
    const census = ctx.collection.sample.fields;
    const cardinality = Object.fromEntries(
      Object.entries(stringCardinality(ctx.docs, new PathFolder(ctx.collection.sample.dynamicKeys))).filter(([path]) =>
        Object.hasOwn(census, path),
      ),
    );
    const proposal = await countProposal(ctx, cardinality);
    return { stringCardinality: cardinality, ...(proposal ? { proposal } : {}) };
  },
});
