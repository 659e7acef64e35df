import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/core/options';
import type { CollectionSnapshot, FieldProfile } from '../../src/core/types';
import { collectionOf, ran, sampleOf, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import { type ValidatorDryRun, validatorCollector } from './collect';
import { describeCost, withIds } from './confirm';
import rule, { type ValidatorOptions } from './index';
import { ShellCode, plainSchema, proposeSchema, shellLiteral } from './propose';

const N = 200;
const opts = resolveOptions<ValidatorOptions>('validator', rule.meta.options, {});

/** The field census as collect writes it (src/collect/profile.ts): present counts and types per path. */
const census: Record<string, FieldProfile> = {
  _id: { present: N, types: { objectId: N } },
  name: { present: N, types: { string: N } },
  status: { present: N, types: { string: N } },
  total: { present: N, types: { int: 150, double: 50 } },
  email: { present: 199, types: { string: 199 } },
  nickname: { present: 40, types: { string: 30, null: 10 } },
  address: { present: N, types: { object: N } },
  'address.city': { present: N, types: { string: N } },
  'address.zip': { present: 120, types: { string: 120 } },
  tags: { present: N, types: { array: N } },
  'tags.$[]': { present: 600, types: { string: 600 } },
  items: { present: N, types: { array: N } },
  'items.sku': { present: 500, types: { string: 500 } },
  'items.qty': { present: 500, types: { int: 500 } },
  createdAt: { present: N, types: { date: N } },
};

function orders(over: Partial<CollectionSnapshot> = {}, fields: Record<string, FieldProfile> = census): CollectionSnapshot {
  return collectionOf('orders', {
    stats: { count: 100_000, sizeBytes: 50_000_000, avgObjSize: 500, storageSizeBytes: 2e7, totalIndexSizeBytes: 1e6, nindexes: 1, blockCompressor: 'snappy' },
    sample: sampleOf([], { requested: N, size: N, fields, timeSource: '_id' }),
    ...over,
  });
}

// listCollections options of a collection with the manual's student validator
const studentSchema = { bsonType: 'object', required: ['name', 'year'], properties: { name: { bsonType: 'string' }, year: { bsonType: 'int', minimum: 2017 } } };
/** The dry run as the collector stores it: counted on the server (out of the collection's 100,000) unless `dry` says otherwise. */
function dryRunOf(dry: Partial<ValidatorDryRun>): ValidatorDryRun {
  const run: ValidatorDryRun = { checked: N, violations: 0, byPath: {}, unsupportedKeywords: [], undecided: [], serverViolators: 0, serverDocuments: 100_000, ...dry };
  return run.serverViolators === null ? { ...run, serverDocuments: null } : run;
}
function validated(level: string, action: string, dry: Partial<ValidatorDryRun> | null, over: Partial<CollectionSnapshot> = {}): CollectionSnapshot {
  const c = orders({ validator: { present: true, jsonSchema: studentSchema, validationLevel: level, validationAction: action }, ...over });
  return dry ? withData(c, validatorCollector, { dryRun: dryRunOf(dry) }) : c;
}
/** A collection without a validator, with the collector's count of distinct strings per path. */
const withCardinality = (stringCardinality: Record<string, number>, c: CollectionSnapshot = orders()): CollectionSnapshot => withData(c, validatorCollector, { stringCardinality });

const orders$ = { db: 'app', collection: 'orders' };
const listViolators = 'db.orders.find({ $nor: [db.getCollectionInfos({ name: "orders" })[0].options.validator] }, { _id: 1 })';
const collMod = (fields: string) => `db.runCommand({ collMod: "orders", ${fields} })`;
/** The census with every sampled document holding `email`: no gap, so the proposal is strict + error. */
const noGaps = { ...census, email: { present: N, types: { string: N } } };
const proposal = (level: string, action: string, ...more: string[]) => [
  /^var schema = \{ bsonType: "object", required: \["_id", "address", /,
  'db.orders.countDocuments({ $nor: [{ $jsonSchema: schema }] })',
  `db.runCommand({ collMod: "orders", validator: { $jsonSchema: schema }, validationLevel: "${level}", validationAction: "${action}" })`,
  ...more,
];

ruleTester(rule, {
  valid: [
    { name: 'strict/error validator, nothing fails (server count 0)', snapshot: snapshotOf([validated('strict', 'error', {})]) },
    { name: 'strict/error validator, no dry run in the snapshot', snapshot: snapshotOf([validated('strict', 'error', null)]) },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snapshotOf([validated('off', 'error', {})])),
      notes: ['validator: not checked: its data (collector validator) was not collected (the rule was off when this snapshot was taken); collect again with it on'],
    },
    { name: 'no validator, no sample: nothing to say', snapshot: snapshotOf([collectionOf('empty')]), notes: [] },
    {
      // a small collection is not a limit of the check
      name: 'no validator, too few documents to propose one: nothing to say, not even a note',
      snapshot: snapshotOf([orders({}, { _id: { present: 5, types: { objectId: 5 } }, a: { present: 5, types: { int: 5 } } })]),
      notes: [],
    },
  ],
  invalid: [
    {
      name: 'strict/error with failing documents: warn, moderate, with the paths',
      snapshot: snapshotOf([validated('strict', 'error', { serverViolators: 1204, violations: 3, byPath: { year: 2, 'address.city': 1 } })]),
      findings: [
        {
          messageId: 'violationsStrict',
          severity: 'warn',
          target: orders$,
          message: '1,204 of 100,000 documents (counted on the server) fail the validator, which is "strict" with action "error": any update to those documents is rejected unless it makes them valid.',
          data: { failing: 1204, documents: 100_000, level: 'strict', action: 'error' },
          evidence: { validationLevel: 'strict', validationAction: 'error', serverViolators: 1204, serverDocuments: 100_000, sampleViolations: 3 },
          // what the sample showed goes with what to do
          recommendation: { action: 'moderate while you fix them', reasonIncludes: 'Failing paths in the sample: `year` (2), `address.city` (1).', commands: [collMod('validationLevel: "moderate"'), listViolators] },
        },
      ],
    },
    {
      name: 'sample violations when the server could not count',
      snapshot: snapshotOf([validated('strict', 'error', { serverViolators: null, serverReason: 'the server-side count stopped at maxTimeMS (10000 ms)', violations: 4, byPath: { year: 4 } })]),
      findings: [
        {
          messageId: 'violationsStrictInSample',
          severity: 'warn',
          target: orders$,
          data: { failing: 4, checked: 200, level: 'strict', action: 'error' },
          messageIncludes: '4 of 200 sampled documents fail',
          recommendation: { action: 'moderate while you fix them', reasonIncludes: ['The count is from the sample: count the whole collection first.', 'Failing paths in the sample: `year` (4).'] },
        },
      ],
    },
    {
      name: 'validationLevel off: warn',
      snapshot: snapshotOf([validated('off', 'error', {})]),
      findings: [
        {
          messageId: 'levelOff',
          severity: 'warn',
          target: orders$,
          message: 'The validator is stored but validationLevel is "off": it checks no write. 0 of 100,000 documents (counted on the server) fail it.',
          recommendation: { action: 'turn it on (strict)', commands: [collMod('validationLevel: "strict"')] },
        },
      ],
    },
    {
      // warn action with nothing failing: an info line
      name: 'warn with nothing failing: switch to error',
      snapshot: snapshotOf([validated('strict', 'warn', {})]),
      findings: [
        {
          messageId: 'readyForError',
          severity: 'info',
          target: orders$,
          message: 'No document fails the validator (counted on the server), yet it runs with validationLevel "strict" and validationAction "warn".',
          recommendation: { action: 'validationAction "error"', commands: [collMod('validationAction: "error"')] },
        },
      ],
    },
    {
      name: 'moderate with nothing failing: switch to strict',
      snapshot: snapshotOf([validated('moderate', 'error', {})]),
      findings: [{ messageId: 'readyForError', severity: 'info', target: orders$, messageIncludes: 'yet it runs with validationLevel "moderate"', recommendation: { action: 'validationLevel "strict"', commands: [collMod('validationLevel: "strict"')] } }],
    },
    {
      // moderate with failing documents: an info line
      name: 'moderate + error with failing documents: fix them, then strict (the action is already error)',
      snapshot: snapshotOf([validated('moderate', 'error', { serverViolators: 12 })]),
      findings: [
        {
          messageId: 'violations',
          severity: 'info',
          target: orders$,
          message: '12 of 100,000 documents (counted on the server) fail the validator ("moderate", action "error").',
          // never "switch to error" when it already is
          recommendation: {
            action: 'fix the failing documents, then switch to validationLevel "strict"',
            reason: '"moderate" lets updates to these documents through without checking them; with "strict", any update to one of them is rejected unless it makes it valid. List them by _id:',
            commands: [listViolators],
          },
        },
      ],
    },
    {
      name: 'warn action and failing documents: info with paths',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: 7, violations: 1, byPath: { name: 1 } })]),
      findings: [
        {
          messageId: 'violations',
          severity: 'info',
          target: orders$,
          message: '7 of 100,000 documents (counted on the server) fail the validator ("strict", action "warn").',
          recommendation: {
            action: 'fix the failing documents, then switch to validationAction "error"',
            reason: '"warn" only logs invalid writes; with "error", any update to one of these documents is rejected unless it makes it valid. Failing paths in the sample: `name` (1). List them by _id:',
            commands: [listViolators],
          },
        },
      ],
    },
    {
      name: 'moderate + warn with failing documents counted in the sample: both switches, and count the whole collection',
      snapshot: snapshotOf([validated('moderate', 'warn', { serverViolators: null, violations: 3, byPath: { year: 3 } })]),
      findings: [
        {
          messageId: 'violationsInSample',
          severity: 'info',
          target: orders$,
          message: '3 of 200 sampled documents fail the validator ("moderate", action "warn").',
          recommendation: {
            action: 'fix the failing documents, then switch to validationAction "error" and validationLevel "strict"',
            reasonIncludes: 'The count is from the sample: count the whole collection first.',
            commands: [listViolators],
          },
        },
      ],
    },
    {
      name: 'query-operator validator: a clear line, server count used',
      snapshot: snapshotOf([
        withData(orders({ validator: { present: true, queryOperators: ['$or'], validationLevel: 'strict', validationAction: 'warn' } }), validatorCollector, {
          dryRun: dryRunOf({ checked: 0, skippedReason: 'the validator is written with query operators ($or), not $jsonSchema; the advisor evaluates only $jsonSchema in-process' }),
        }),
      ]),
      findings: [
        {
          messageId: 'notChecked',
          severity: 'info',
          target: orders$,
          message:
            'The sample was not checked against the validator in-process: the validator is written with query operators ($or), not $jsonSchema; the advisor evaluates only $jsonSchema in-process. On the server, 0 of 100,000 documents fail the whole validator.',
          evidence: { queryOperators: '$or', jsonSchema: false },
          recommendation: null,
        },
        { messageId: 'readyForError', severity: 'info', target: orders$, messageIncludes: 'counted on the server', recommendation: { action: 'validationAction "error"' } },
      ],
    },
    {
      name: 'keywords ajv lacks: a clear line',
      snapshot: snapshotOf([validated('strict', 'error', { unsupportedKeywords: ['encrypt at ssn (field-level encryption: the driver and server check it, not the advisor)'], undecided: ['year: bsonType int on whole numbers (the host returns int, long and double alike)'] })]),
      findings: [
        {
          messageId: 'partialCheck',
          severity: 'info',
          target: orders$,
          messageIncludes: ['encrypt at ssn', 'year: bsonType int on whole numbers', 'On the server, 0 of 100,000 documents fail the whole validator.'],
          evidence: { unsupported: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: 'the sample fails more documents than the server counts: the disagreement is named, the advice follows the server',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: 0, violations: 2, byPath: { year: 2 } })]),
      findings: [
        {
          messageId: 'countsDisagree',
          severity: 'info',
          target: orders$,
          messageIncludes: ['finds 2 of 200 sampled documents failing the validator, but the server counts only 0 of 100,000 documents failing it', 'Failing paths in the sample: `year` (2).'],
          recommendation: null,
        },
        { messageId: 'readyForError', severity: 'info', target: orders$, messageIncludes: 'counted on the server', recommendation: { action: 'validationAction "error"' } },
      ],
    },
    {
      // the proposal is an info line: a ready mongosh block, the schema, the count first, then collMod
      name: 'no validator: proposal with required fields and a gap (moderate + warn)',
      snapshot: snapshotOf([orders()]),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          message:
            'No validator: nothing stops a write from dropping a field or changing its type. Proposed from 200 sampled documents: `_id`, `address`, `createdAt`, `email`, `items`, `name`, `status`, `tags`, `total` required, 14 field paths typed.',
          evidence: { sampleSize: 200, required: 9, gaps: 1, enums: 0 },
          // a gap in the sample: start with moderate + warn, and name the gap
          recommendation: { action: 'add this validator (moderate, warn) and fix the gaps', reasonIncludes: 'Required but missing from some sampled documents: `email` (1).', commands: proposal('moderate', 'warn') },
        },
      ],
    },
    {
      name: 'no validator, no gaps, on 8.1: strict + error, then errorAndLog',
      snapshot: withServer(snapshotOf([orders({}, noGaps)]), { version: '8.1.0' }),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          messageIncludes: '`_id`, `address`, `createdAt`, `email`, `items`, `name`, `status`, `tags`, `total` required, 14 field paths typed.',
          recommendation: { action: 'add this validator (strict, error)', commands: proposal('strict', 'error', collMod('validationAction: "errorAndLog"')) },
        },
      ],
    },
    {
      name: 'no validator, no gaps, on 8.0: strict + error, no errorAndLog',
      snapshot: withServer(snapshotOf([orders({}, noGaps)]), { version: '8.0.4' }),
      findings: [{ messageId: 'missing', severity: 'info', target: orders$, messageIncludes: '14 field paths typed.', recommendation: { action: 'add this validator (strict, error)', commands: proposal('strict', 'error') } }],
    },
    {
      // the report holds no document values: enums are read with distinct() when the user runs the proposal
      name: 'no validator, enums opted in: named, read with distinct(), never printed',
      snapshot: snapshotOf([withCardinality({ status: 3 }, orders({}, { ...census, status: { present: N, types: { string: N } } }))]),
      options: { proposeEnums: true },
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          data: { documents: 200, required: '`_id`, `address`, `createdAt`, `email`, `items`, `name`, `status`, `tags`, `total`', fields: 14 },
          evidence: { enums: 1 },
          recommendation: { reasonIncludes: 'Enums read with distinct() when you run it: `status`.', commands: proposal('moderate', 'warn') },
        },
      ],
    },
    {
      name: 'validationLevel off, counted in the sample only',
      snapshot: snapshotOf([validated('off', 'error', { serverViolators: null, serverReason: 'the server-side count failed: Unauthorized', violations: 1, byPath: { year: 1 } })]),
      findings: [
        {
          messageId: 'levelOffInSample',
          severity: 'warn',
          target: orders$,
          message: 'The validator is stored but validationLevel is "off": it checks no write. 1 of 200 sampled documents fail it.',
          recommendation: { action: 'turn it on for new and valid documents (moderate)' },
        },
      ],
    },
    {
      name: 'validationLevel off, and no count at all',
      snapshot: snapshotOf([validated('off', 'error', null)]),
      findings: [{ messageId: 'levelOffUncounted', severity: 'warn', target: orders$, message: 'The validator is stored but validationLevel is "off": it checks no write. How many documents fail it is unknown.' }],
    },
    {
      name: 'warn with nothing failing in the sample, the server count stopped: switch to error after counting',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: null, serverReason: 'the server-side count stopped at maxTimeMS (10000 ms)' })]),
      findings: [
        {
          messageId: 'readyForErrorInSample',
          severity: 'info',
          target: orders$,
          message: 'No document fails the validator (checked on 200 sampled documents only), yet it runs with validationLevel "strict" and validationAction "warn".',
          recommendation: { action: 'validationAction "error"', reasonIncludes: 'The count is from the sample only', commands: [/countDocuments\(\{ \$nor: /, collMod('validationAction: "error"')] },
        },
      ],
    },
    {
      name: 'moderate + warn and no count at all: count first',
      snapshot: snapshotOf([validated('moderate', 'warn', null)]),
      findings: [{ messageId: 'violationsUnknown', severity: 'info', target: orders$, message: 'The validator runs as moderate/warn, and how many documents fail it is unknown.', recommendation: { action: 'count the failing documents' } }],
    },
    {
      name: 'a schema that does not compile and no server count: both reasons said',
      snapshot: snapshotOf([
        validated('strict', 'error', { checked: 0, skippedReason: 'the $jsonSchema could not be compiled for an in-process check: bad', serverViolators: null, serverReason: 'the server-side count failed: Unauthorized' }),
      ]),
      findings: [
        {
          messageId: 'notCheckedNoServerCount',
          severity: 'info',
          target: orders$,
          message: 'The sample was not checked against the validator in-process: the $jsonSchema could not be compiled for an in-process check: bad. No server-side count either: the server-side count failed: Unauthorized.',
          recommendation: null,
        },
      ],
    },
    {
      name: 'keywords ajv lacks and no server count',
      snapshot: snapshotOf([validated('strict', 'error', { unsupportedKeywords: ['encrypt at ssn'], serverViolators: null, serverReason: 'the server-side count failed: Unauthorized' })]),
      findings: [{ messageId: 'partialCheckNoServerCount', severity: 'info', target: orders$, data: { list: 'encrypt at ssn', serverReason: 'the server-side count failed: Unauthorized' } }],
    },
    {
      // the collector counts the total itself when the collection's storage statistics are missing
      name: 'failing documents counted on the server out of a total the collector counted (no storage statistics)',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: 1, serverDocuments: 60 }, { stats: null })]),
      findings: [{ messageId: 'violations', severity: 'info', target: orders$, message: '1 of 60 documents (counted on the server) fail the validator ("strict", action "warn").', evidence: { serverDocuments: 60 } }],
    },
  ],
});

describe('validator proposal', () => {
  it('types every path, requires fields in 99% of documents, nests objects and array items', () => {
    const p = proposeSchema(orders(), opts);
    expect(p?.required).toEqual(['_id', 'address', 'createdAt', 'email', 'items', 'name', 'status', 'tags', 'total']);
    expect(p?.gaps).toEqual([{ path: 'email', missing: 1 }]);
    const props = p?.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.total).toEqual({ bsonType: 'number' });
    expect(props.nickname).toEqual({ bsonType: ['null', 'string'] });
    expect(props.address).toEqual({ bsonType: 'object', properties: { city: { bsonType: 'string' }, zip: { bsonType: 'string' } }, required: ['city'] });
    expect(props.tags).toEqual({ bsonType: 'array', items: { bsonType: 'string' } });
    expect(props.items).toEqual({ bsonType: 'array', items: { bsonType: 'object', properties: { qty: { bsonType: 'number' }, sku: { bsonType: 'string' } } } });
  });

  it('enums are off by default; opted in, they are read with distinct(), never printed', () => {
    const withCard = withCardinality({ status: 4, name: 65, 'tags.$[]': 3, nickname: 2 });
    const off = proposeSchema(withCard, opts);
    expect(off?.enums).toEqual([]);
    const on = proposeSchema(withCard, { ...opts, proposeEnums: true });
    // nickname: 2 values but only 30 strings < 10 × 2 … 30 ≥ 20, so it qualifies; name has too many values
    expect(on?.enums).toEqual(['nickname', 'status', 'tags.$[]']);
    const text = shellLiteral(on?.schema);
    expect(text).toContain('status: { bsonType: "string", enum: db.orders.distinct("status", { "status": { $type: "string" } }) }');
    expect(text).toContain('enum: db.orders.distinct("nickname", { "nickname": { $type: "string" } }).concat([null])');
    expect(text).toContain('items: { bsonType: "string", enum: db.orders.distinct("tags", { "tags": { $type: "string" } }) }');
    // the scratch experiment gets the schema without shell code
    expect(JSON.stringify(plainSchema(on?.schema))).not.toContain('distinct');
  });

  it('leaves map-like objects open', () => {
    const fields: Record<string, FieldProfile> = { _id: census._id as FieldProfile, attrs: { present: N, types: { object: N } } };
    for (let i = 0; i < 150; i++) fields[`attrs.k${i}`] = { present: 1, types: { int: 1 } };
    const p = proposeSchema(orders({}, fields), opts);
    expect(p?.open).toEqual(['attrs']);
    expect((p?.schema.properties as Record<string, unknown>).attrs).toEqual({ bsonType: 'object' });
  });

  it('shell literals quote odd keys and keep ShellCode verbatim', () => {
    expect(shellLiteral({ 'a-b': 1, ok: [true, null], c: new ShellCode('db.x.distinct("c")') })).toBe('{ "a-b": 1, ok: [true, null], c: db.x.distinct("c") }');
  });

});

describe('validator cost wording', () => {
  it('says "within noise" whenever the interval includes 1', () => {
    expect(describeCost({ label: '', median: 1.04, low: 0.97, high: 1.08 }, 1.1)).toEqual({ text: 'within noise', verdict: 'negligible' });
    expect(describeCost({ label: '', median: 1.05, low: 1.02, high: 1.08 }, 1.1)).toEqual({ text: 'at most 8% slower', verdict: 'negligible' });
    expect(describeCost({ label: '', median: 1.4, low: 1.3, high: 1.5 }, 1.1)).toEqual({ text: '40% slower', verdict: 'costly' });
    expect(describeCost({ label: '', median: 1.55, low: 1.08, high: 1.88 }, 1.1)).toEqual({ text: '55% slower, though possibly by no more than the 10% noise allowance', verdict: 'unclear' });
  });

  it('a wide interval that includes 1 is within noise but not shown negligible (it reaches past noiseRatio)', () => {
    expect(describeCost({ label: '', median: 1.8, low: 0.46, high: 2.43 }, 1.1)).toEqual({ text: 'within noise, but the interval reaches 143% slower', verdict: 'unclear' });
    expect(describeCost({ label: '', median: 1.04, low: 0.97, high: 1.12 }, 1.1).verdict).toBe('unclear');
  });
});

describe('validator confirmation copies', () => {
  it('keep their own _id (value and BSON type) and get a client-side ObjectId only when they have none', () => {
    const made: unknown[] = [];
    const objectId = (): unknown => {
      const id = new ObjectId();
      made.push(id);
      return id;
    };
    const oid = new ObjectId();
    const docs = [{ _id: 'user-1', a: 1 }, { _id: oid, a: 2 }, { _id: 7, a: 3 }, { a: 4 }];
    const out = withIds(docs, objectId);
    expect(out.slice(0, 3)).toEqual(docs.slice(0, 3));
    expect(out[0]?._id).toBe('user-1');
    expect(out[1]?._id).toBe(oid);
    expect(made).toHaveLength(1);
    expect(out[3]).toEqual({ _id: made[0], a: 4 });
    expect(Object.keys(out[3] ?? {})[0]).toBe('_id');
    expect(docs[3]).toEqual({ a: 4 }); // the shared source copy is not changed
  });
});
