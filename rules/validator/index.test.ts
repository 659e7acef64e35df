import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/core/options';
import type { CollectionSnapshot, FieldProfile } from '../../src/core/types';
import { collectionOf, ran, sampleOf, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { type InvalidCase, ruleTester, runRule } from '../../test/support/rule-tester';
import { type ProposalCount, type ValidatorDryRun, validatorCollector } from './collect';
import { describeCost, verdictOf, withIds } from './confirm';
import { ratioOf, type Timed } from '../../src/confirm/harness';
import rule, { type ValidatorOptions } from './index';
import { ShellCode, plainSchema, proposeSchema, schemaFingerprint, shellLiteral } from './propose';
import { dataOf } from '../../src/core/collector';

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

function orders(
  over: Partial<CollectionSnapshot> = {},
  fields: Record<string, FieldProfile> = census,
): CollectionSnapshot {
  return collectionOf('orders', {
    stats: {
      count: 100_000,
      sizeBytes: 50_000_000,
      avgObjSize: 500,
      storageSizeBytes: 2e7,
      totalIndexSizeBytes: 1e6,
      nindexes: 1,
      blockCompressor: 'snappy',
    },
    sample: sampleOf([], { requested: N, size: N, fields, timeSource: '_id' }),
    ...over,
  });
}

// listCollections options of a collection with the manual's student validator
const studentSchema = {
  bsonType: 'object',
  required: ['name', 'year'],
  properties: { name: { bsonType: 'string' }, year: { bsonType: 'int', minimum: 2017 } },
};
/** The dry run as the collector stores it: counted on the server (out of the collection's 100,000) unless `dry` says
 * otherwise. */
function dryRunOf(dry: Partial<ValidatorDryRun>): ValidatorDryRun {
  const run: ValidatorDryRun = {
    checked: N,
    violations: 0,
    byPath: {},
    unsupportedKeywords: [],
    undecided: [],
    serverViolators: 0,
    serverDocuments: 100_000,
    ...dry,
  };
  return run.serverViolators === null ? { ...run, serverDocuments: null } : run;
}
function validated(
  level: string,
  action: string,
  dry: Partial<ValidatorDryRun> | null,
  over: Partial<CollectionSnapshot> = {},
): CollectionSnapshot {
  const c = orders({
    validator: { present: true, jsonSchema: studentSchema, validationLevel: level, validationAction: action },
    ...over,
  });
  return dry ? withData(c, validatorCollector, { dryRun: dryRunOf(dry) }) : c;
}
/** A collection without a validator, with the collector's count of distinct strings per path. */
const withCardinality = (
  stringCardinality: Record<string, number>,
  c: CollectionSnapshot = orders(),
): CollectionSnapshot => withData(c, validatorCollector, { stringCardinality });

const orders$ = { db: 'app', collection: 'orders' };
const listViolators =
  'db.getSiblingDB("app").getCollection("orders").find({ $nor: [db.getSiblingDB("app").getCollectionInfos({' +
  ' name: "orders" })[0].options.validator] }, { _id: 1 })';
const collMod = (fields: string) => `db.getSiblingDB("app").runCommand({ collMod: "orders", ${fields} })`;
const listProposalViolators =
  'db.getSiblingDB("app").getCollection("orders").find({ $nor: [{ $jsonSchema: schema }] }, { _id: 1 })';
/** The collection read whole: every document profiled. */
const whole = (c: CollectionSnapshot): CollectionSnapshot => ({
  ...c,
  stats: c.stats ? { ...c.stats, count: c.sample.size } : null,
  sample: { ...c.sample, method: 'whole', complete: true },
});
/** The collector's count of the proposal made with the default options (its fingerprint), checked over the sample (0
 * failing). */
function counted(c: CollectionSnapshot, over: Partial<ProposalCount>): CollectionSnapshot {
  const p = proposeSchema(c, opts);
  const count: ProposalCount = {
    fingerprint: schemaFingerprint(p?.schema),
    checked: c.sample.size,
    violations: 0,
    serverViolators: 0,
    serverDocuments: c.stats?.count ?? null,
    ...over,
  };
  return withData(c, validatorCollector, { ...dataOf(validatorCollector, c), proposal: count });
}
const proposal = (level: string, action: string, ...more: (string | RegExp)[]) => [
  /^var schema = \{ bsonType: "object", required: \["_id", "address", /,
  'db.getSiblingDB("app").getCollection("orders").countDocuments({ $nor: [{ $jsonSchema: schema }] })',
  'db.getSiblingDB("app").runCommand({ collMod: "orders", validator: { $jsonSchema: schema }, ' +
    `validationLevel: "${level}", ` +
    `validationAction: "${action}" })`,
  ...more,
];

// The audit's shipwrecks shape (item 8; fields only, made-up counts): `depth` is a number or a blank string, and
// mixed-types recommends `$unset` of the blanks. Required, `depth` would make the validator reject every document
// that cleanup leaves without it; the proposal leaves it optional and still accepts the strings that exist.
const W = 100;
const wrecks = (depth: FieldProfile): CollectionSnapshot =>
  collectionOf('shipwrecks', {
    sample: sampleOf([], {
      requested: W,
      size: W,
      timeSource: '_id',
      fields: {
        _id: { present: W, types: { objectId: W } },
        feature_type: { present: W, types: { string: W } },
        depth,
        latdec: { present: W, types: { double: W } },
        coordinates: { present: W, types: { array: W } },
        'coordinates.$[]': { present: 2 * W, types: { double: 2 * W } },
      },
    }),
  });
const blankDepth: FieldProfile = { present: W, types: { double: 23, string: 77 }, strings: { blank: 77, numeric: 0 } };
const wrecks$ = { db: 'app', collection: 'shipwrecks' };

const blankStringCases: InvalidCase[] = [
  {
    name: 'blank strings standing for no value beside numbers (shipwrecks.depth): optional, every type accepted',
    snapshot: snapshotOf([wrecks(blankDepth)]),
    findings: [
      {
        messageId: 'missing',
        severity: 'info',
        target: wrecks$,
        message:
          'No validator: nothing stops a write from dropping a field or changing its type. Proposed from ' +
          'a random sample of 100 documents: `_id`, `coordinates`, `feature_type`, `latdec` required, 5 field ' +
          'paths typed.',
        evidence: { required: 4, gaps: 0, blanksOptional: 1, mixed: 1 },
        recommendation: {
          reasonIncludes:
            'Optional because their blank strings stand for no value, which the mixed-types rule proposes to ' +
            'remove with `$unset` (the schema accepts the strings until then; type these fields without ' +
            '`string` once they are gone): `depth`.',
        },
      },
    ],
  },
  {
    // numbers and their text, some blank: mixed-types converts the text and unsets the blanks, so the same
    name: "a number's text and blank strings beside numbers: optional as well",
    snapshot: snapshotOf([
      wrecks({ present: W, types: { int: 60, string: 40 }, strings: { blank: 10, numeric: 30, integer: 30 } }),
    ]),
    findings: [
      {
        messageId: 'missing',
        severity: 'info',
        target: wrecks$,
        messageIncludes: '`_id`, `coordinates`, `feature_type`, `latdec` required',
        evidence: { blanksOptional: 1 },
      },
    ],
  },
  {
    // text with a few blanks is not a stand-in for a missing value: mixed-types has nothing to remove, so required
    name: 'blank strings among text: still required (no cleanup removes them)',
    snapshot: snapshotOf([
      wrecks({ present: W, types: { string: W - 5, double: 5 }, strings: { blank: 3, numeric: 5 } }),
    ]),
    findings: [
      {
        messageId: 'missing',
        severity: 'info',
        target: wrecks$,
        messageIncludes: '`_id`, `coordinates`, `depth`, `feature_type`, `latdec` required',
        evidence: { blanksOptional: 0 },
      },
    ],
  },
];

ruleTester(rule, {
  valid: [
    {
      name: 'strict/error validator, nothing fails (server count 0)',
      snapshot: snapshotOf([validated('strict', 'error', {})]),
    },
    {
      name: 'strict/error validator, no dry run in the snapshot',
      snapshot: snapshotOf([validated('strict', 'error', null)]),
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snapshotOf([validated('off', 'error', {})])),
      notes: [
        'validator: not checked: its data (collector validator) was not collected (the rule was off when ' +
          'this snapshot was taken); collect again with it on',
      ],
    },
    { name: 'no validator, no sample: nothing to say', snapshot: snapshotOf([collectionOf('empty')]), notes: [] },
    {
      // a small collection is not a limit of the check
      name: 'no validator, too few documents to propose one: nothing to say, not even a note',
      snapshot: snapshotOf([
        orders({}, { _id: { present: 5, types: { objectId: 5 } }, a: { present: 5, types: { int: 5 } } }),
      ]),
      notes: [],
    },
  ],
  invalid: [
    ...blankStringCases,
    {
      name: 'strict/error with failing documents: warn, moderate, with the paths',
      snapshot: snapshotOf([
        validated('strict', 'error', { serverViolators: 1204, violations: 3, byPath: { year: 2, 'address.city': 1 } }),
      ]),
      findings: [
        {
          messageId: 'violationsStrict',
          severity: 'warn',
          target: orders$,
          message:
            '1,204 of 100,000 documents (counted on the server) fail the validator, which is "strict" with ' +
            'action "error": any update to those documents is rejected unless it makes them valid.',
          data: { failing: 1204, documents: 100_000, level: 'strict', action: 'error' },
          evidence: {
            validationLevel: 'strict',
            validationAction: 'error',
            serverViolators: 1204,
            serverDocuments: 100_000,
            sampleViolations: 3,
          },
          // what the sample showed goes with what to do
          recommendation: {
            action: 'moderate while you fix them',
            reasonIncludes: 'Failing paths in the sample: `year` (2), `address.city` (1).',
            commands: [collMod('validationLevel: "moderate"'), listViolators],
          },
        },
      ],
    },
    {
      name: 'sample violations when the server could not count',
      snapshot: snapshotOf([
        validated('strict', 'error', {
          serverViolators: null,
          serverReason: 'the server-side count stopped at maxTimeMS (10000 ms)',
          violations: 4,
          byPath: { year: 4 },
        }),
      ]),
      findings: [
        {
          messageId: 'violationsStrictInSample',
          severity: 'warn',
          target: orders$,
          data: { failing: 4, checked: 200, level: 'strict', action: 'error' },
          messageIncludes: '4 of 200 sampled documents fail',
          recommendation: {
            action: 'moderate while you fix them',
            reasonIncludes: [
              'The count is from the sample: count the whole collection first.',
              'Failing paths in the sample: `year` (4).',
            ],
          },
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
          message:
            'The validator is stored but validationLevel is "off": it checks no write. 0 of 100,000 ' +
            'documents (counted on the server) fail it.',
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
          message:
            'No document fails the validator (counted on the server), yet it runs with validationLevel ' +
            '"strict" and validationAction "warn".',
          recommendation: { action: 'validationAction "error"', commands: [collMod('validationAction: "error"')] },
        },
      ],
    },
    {
      name: 'moderate with nothing failing: switch to strict',
      snapshot: snapshotOf([validated('moderate', 'error', {})]),
      findings: [
        {
          messageId: 'readyForError',
          severity: 'info',
          target: orders$,
          messageIncludes: 'yet it runs with validationLevel "moderate"',
          recommendation: { action: 'validationLevel "strict"', commands: [collMod('validationLevel: "strict"')] },
        },
      ],
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
            reason:
              '"moderate" lets updates to these documents through without checking them; with "strict", any ' +
              'update to one of them is rejected unless it makes it valid. List them by _id:',
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
            reason:
              '"warn" only logs invalid writes; with "error", any update to one of these documents is ' +
              'rejected unless it makes it valid. Failing paths in the sample: `name` (1). List them by _id:',
            commands: [listViolators],
          },
        },
      ],
    },
    {
      name:
        'moderate + warn with failing documents counted in the sample: both switches, and count the whole ' +
        'collection',
      snapshot: snapshotOf([
        validated('moderate', 'warn', { serverViolators: null, violations: 3, byPath: { year: 3 } }),
      ]),
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
        withData(
          orders({
            validator: { present: true, queryOperators: ['$or'], validationLevel: 'strict', validationAction: 'warn' },
          }),
          validatorCollector,
          {
            dryRun: dryRunOf({
              checked: 0,
              skippedReason:
                'the validator is written with query operators ($or), not $jsonSchema; the advisor ' +
                'evaluates only $jsonSchema in-process',
            }),
          },
        ),
      ]),
      findings: [
        {
          messageId: 'notChecked',
          severity: 'info',
          target: orders$,
          message:
            'The sample was not checked against the validator in-process: the validator is written with ' +
            'query operators ($or), not $jsonSchema; the advisor evaluates only $jsonSchema in-process. On ' +
            'the server, 0 of 100,000 documents fail the whole validator.',
          evidence: { queryOperators: '$or', jsonSchema: false },
          recommendation: null,
        },
        {
          messageId: 'readyForError',
          severity: 'info',
          target: orders$,
          messageIncludes: 'counted on the server',
          recommendation: { action: 'validationAction "error"' },
        },
      ],
    },
    {
      name: 'keywords ajv lacks: a clear line',
      snapshot: snapshotOf([
        validated('strict', 'error', {
          unsupportedKeywords: [
            'encrypt at ssn (field-level encryption: the driver and server check it, not the advisor)',
          ],
          undecided: ['year: bsonType int on whole numbers (the host returns int, long and double alike)'],
        }),
      ]),
      findings: [
        {
          messageId: 'partialCheck',
          severity: 'info',
          target: orders$,
          messageIncludes: [
            'encrypt at ssn',
            'year: bsonType int on whole numbers',
            'On the server, 0 of 100,000 documents fail the whole validator.',
          ],
          evidence: { unsupported: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name:
        'the sample fails more documents than the server counts: the disagreement is named, the advice ' +
        'follows the server',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: 0, violations: 2, byPath: { year: 2 } })]),
      findings: [
        {
          messageId: 'countsDisagree',
          severity: 'info',
          target: orders$,
          messageIncludes: [
            'finds 2 of 200 sampled documents failing the validator, but the server counts only 0 of ' +
              '100,000 documents failing it',
            'Failing paths in the sample: `year` (2).',
          ],
          recommendation: null,
        },
        {
          messageId: 'readyForError',
          severity: 'info',
          target: orders$,
          messageIncludes: 'counted on the server',
          recommendation: { action: 'validationAction "error"' },
        },
      ],
    },
    {
      // a random sample and no count in the snapshot: never strict/error
      name: 'no validator, random sample, no count of the proposal: moderate + warn, and why',
      snapshot: snapshotOf([orders()]),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          message:
            'No validator: nothing stops a write from dropping a field or changing its type. Proposed from ' +
            'a random sample of 200 documents: `_id`, `address`, `createdAt`, `items`, `name`, `status`, ' +
            '`tags`, `total` required, 14 field paths typed.',
          evidence: {
            sampleSize: 200,
            basis: 'random',
            required: 8,
            gaps: 0,
            enums: 0,
            proposedLevel: 'moderate',
            proposedAction: 'warn',
            violators: null,
            violatorsCountedOn: null,
          },
          recommendation: {
            action: 'add this validator (moderate, warn), then tighten it',
            reasonIncludes: [
              'Start with "moderate" and "warn": it was proposed from a sample and no server count says ' +
                'that no existing document fails it (the snapshot has no count of it).',
              'Required: fields present and not `null` in every document (or object) holding them in the ' +
                'sample; the others are optional.',
              'a published YCSB benchmark (10M × 1 KB documents, 100 threads) measured 40.2k vs 40.9k ops/s',
            ],
            commands: proposal('moderate', 'warn', listProposalViolators),
          },
        },
      ],
    },
    {
      name:
        'no validator, the server counted 0 documents failing this very proposal, on 8.1: strict + error, ' +
        'then errorAndLog',
      snapshot: withServer(snapshotOf([counted(orders(), { serverViolators: 0 })]), { version: '8.1.0' }),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          messageIncludes:
            '`_id`, `address`, `createdAt`, `items`, `name`, `status`, `tags`, `total` required, 14 field paths typed.',
          evidence: { proposedLevel: 'strict', proposedAction: 'error', violators: 0, violatorsCountedOn: 'server' },
          recommendation: {
            action: 'add this validator (strict, error)',
            reasonIncludes:
              'No existing document fails it: the server counted 0 of 100,000 documents matching {$nor: ' +
              '[{$jsonSchema: schema}]}',
            commands: proposal('strict', 'error', collMod('validationAction: "errorAndLog"')),
          },
        },
      ],
    },
    {
      // FerretDB 1.x implements no validator: proposing one to apply there would be advice the server cannot take
      name: 'no validator on FerretDB: nothing proposed for this server, the schema alone, for a MongoDB server',
      snapshot: withServer(snapshotOf([counted(orders(), { serverViolators: 0 })]), { flavor: 'ferretdb' }),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          messageIncludes: '14 field paths typed.',
          recommendation: {
            action: 'none for this server; the schema is for a MongoDB server',
            reasonIncludes:
              'This server does not implement validators (FerretDB 1.x has none), so no validator is proposed for it.',
            commands: proposal('strict', 'error').slice(0, 1),
          },
        },
      ],
    },
    {
      name: 'no validator where the capability probe proved none: the same, whatever the flavor',
      snapshot: withServer(snapshotOf([orders()]), {
        capabilities: { validators: { supported: false, evidence: 'collMod refused' } },
      }),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          recommendation: {
            action: 'none for this server; the schema is for a MongoDB server',
            commands: proposal('moderate', 'warn').slice(0, 1),
          },
        },
      ],
    },
    {
      name: 'no validator, server count 0, on 8.0: strict + error, no errorAndLog',
      snapshot: withServer(snapshotOf([counted(orders(), { serverViolators: 0 })]), { version: '8.0.4' }),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          messageIncludes: '14 field paths typed.',
          recommendation: { action: 'add this validator (strict, error)', commands: proposal('strict', 'error') },
        },
      ],
    },
    {
      // the failure: "strict, error" although documents beyond the sample fail it
      name:
        'no validator, the server counts documents failing the proposal: moderate + warn, with the count and ' +
        'the listing command',
      snapshot: snapshotOf([counted(orders(), { serverViolators: 189, serverDocuments: 1564 })]),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          evidence: { proposedLevel: 'moderate', proposedAction: 'warn', violators: 189, violatorsCountedOn: 'server' },
          recommendation: {
            action: 'add this validator (moderate, warn), then tighten it',
            reasonIncludes:
              '189 of 1,564 existing documents fail it (counted on the server): with "strict" and "error", ' +
              'every update to one of them would be rejected.',
            commands: proposal('moderate', 'warn', listProposalViolators),
          },
        },
      ],
    },
    {
      name: 'no validator, the count is of the default proposal and the options change it: not used, said so',
      snapshot: snapshotOf([counted(orders(), { serverViolators: 0 })]),
      options: { requiredShare: 0.99 },
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          messageIncludes:
            '`_id`, `address`, `createdAt`, `email`, `items`, `name`, `status`, `tags`, `total` required',
          evidence: { proposedLevel: 'moderate', gaps: 1, violators: null },
          recommendation: {
            reasonIncludes: [
              '(the collector counted the proposal made with the options the snapshot was collected with, ' +
                'and yours differ)',
              'Required: fields present and not `null` in at least 99% of the documents (or objects) holding them ' +
                'in the sample',
              'Required but missing from some documents: `email` (1).',
            ],
            commands: proposal('moderate', 'warn', listProposalViolators),
          },
        },
      ],
    },
    {
      name: 'no validator, the server cannot count ($jsonSchema in queries refused): moderate + warn with its reason',
      snapshot: snapshotOf([
        counted(orders(), {
          serverViolators: null,
          serverDocuments: null,
          serverReason: 'the server-side count failed: unknown top level operator: $jsonSchema',
        }),
      ]),
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          evidence: { proposedLevel: 'moderate', violators: 0, violatorsCountedOn: 'sample' },
          recommendation: {
            reasonIncludes:
              'no server count says that no existing document fails it (the server-side count failed: ' +
              'unknown top level operator: $jsonSchema)',
          },
        },
      ],
    },
    {
      name: 'no validator, every document read and checked in-process, no server count: strict + error',
      snapshot: snapshotOf([
        counted(whole(orders()), {
          serverViolators: null,
          serverDocuments: null,
          serverReason: 'the server-side count failed: unknown top level operator: $jsonSchema',
        }),
      ]),
      findings: [
        {
          messageId: 'missingComplete',
          severity: 'info',
          target: orders$,
          message:
            'No validator: nothing stops a write from dropping a field or changing its type. Proposed from ' +
            'all 200 documents (every document was read): `_id`, `address`, `createdAt`, `items`, `name`, ' +
            '`status`, `tags`, `total` required, 14 field paths typed.',
          evidence: {
            basis: 'complete',
            proposedLevel: 'strict',
            proposedAction: 'error',
            violators: 0,
            violatorsCountedOn: 'every document',
          },
          recommendation: {
            action: 'add this validator (strict, error)',
            reasonIncludes: 'No existing document fails it: every document was read and checked against it',
            commands: proposal('strict', 'error'),
          },
        },
      ],
    },
    {
      name:
        'no validator, every document read but fields required in 99% of them: moderate + warn (the census ' +
        'shows the gap)',
      snapshot: snapshotOf([whole(orders())]),
      options: { requiredShare: 0.99 },
      findings: [
        {
          messageId: 'missingComplete',
          severity: 'info',
          target: orders$,
          evidence: { proposedLevel: 'moderate', gaps: 1, violatorsCountedOn: 'every document' },
          recommendation: {
            reasonIncludes: [
              'Some of the 200 documents (every one was read) fail it.',
              'Required but missing from some documents: `email` (1).',
            ],
          },
        },
      ],
    },
    {
      name: 'no validator, every document read, census clean, no count in the snapshot: strict + error from the census',
      snapshot: snapshotOf([whole(orders())]),
      findings: [
        {
          messageId: 'missingComplete',
          severity: 'info',
          target: orders$,
          evidence: { proposedLevel: 'strict', violators: 0, violatorsCountedOn: 'every document' },
          recommendation: { reasonIncludes: 'each holds every required field (the census of every document)' },
        },
      ],
    },
    {
      // the failure: on a server without $sample the sample is the first documents
      name: 'no validator, a natural-order sample: nothing but _id required, moderate + warn without a server count',
      snapshot: snapshotOf([
        orders({
          sample: sampleOf([], {
            method: 'natural-order',
            random: false,
            requested: N,
            size: N,
            fields: census,
            timeSource: '_id',
          }),
        }),
      ]),
      findings: [
        {
          messageId: 'missingOrdered',
          severity: 'info',
          target: orders$,
          message:
            'No validator: nothing stops a write from dropping a field or changing its type. Proposed from ' +
            '200 documents that are not a random sample (the server has no $sample: the first documents in ' +
            'natural order), so only `_id` is required; 14 field paths typed.',
          evidence: { basis: 'ordered', required: 1, proposedLevel: 'moderate' },
          recommendation: {
            commands: [
              /^var schema = \{ bsonType: "object", required: \["_id"\], properties: /,
              ...proposal('moderate', 'warn', listProposalViolators).slice(1),
            ],
          },
        },
      ],
    },
    {
      // the report holds no document values: enums are read with distinct() when the user runs the proposal
      name: 'no validator, enums opted in on a read of every document: named, read with distinct(), never printed',
      snapshot: snapshotOf([withCardinality({ status: 3 }, whole(orders()))]),
      options: { proposeEnums: true },
      findings: [
        {
          messageId: 'missingComplete',
          severity: 'info',
          target: orders$,
          data: {
            documents: 200,
            required: '`_id`, `address`, `createdAt`, `items`, `name`, `status`, `tags`, `total`',
            fields: 14,
          },
          evidence: { enums: 1 },
          recommendation: {
            reasonIncludes: 'Enums read with distinct() when you run it: `status`.',
            commands: proposal('strict', 'error'),
          },
        },
      ],
    },
    {
      name: 'no validator, enums opted in on a sample: none, and why',
      snapshot: snapshotOf([withCardinality({ status: 3 })]),
      options: { proposeEnums: true },
      findings: [
        {
          messageId: 'missing',
          severity: 'info',
          target: orders$,
          evidence: { enums: 0 },
          recommendation: {
            reasonIncludes: 'No enums: enums are proposed only when every document was read, and this was a sample.',
          },
        },
      ],
    },
    {
      name: 'validationLevel off, counted in the sample only',
      snapshot: snapshotOf([
        validated('off', 'error', {
          serverViolators: null,
          serverReason: 'the server-side count failed: Unauthorized',
          violations: 1,
          byPath: { year: 1 },
        }),
      ]),
      findings: [
        {
          messageId: 'levelOffInSample',
          severity: 'warn',
          target: orders$,
          message:
            'The validator is stored but validationLevel is "off": it checks no write. 1 of 200 sampled ' +
            'documents fail it.',
          recommendation: { action: 'turn it on for new and valid documents (moderate)' },
        },
      ],
    },
    {
      name: 'validationLevel off, and no count at all',
      snapshot: snapshotOf([validated('off', 'error', null)]),
      findings: [
        {
          messageId: 'levelOffUncounted',
          severity: 'warn',
          target: orders$,
          message:
            'The validator is stored but validationLevel is "off": it checks no write. How many documents ' +
            'fail it is unknown.',
        },
      ],
    },
    {
      name: 'warn with nothing failing in the sample, the server count stopped: switch to error after counting',
      snapshot: snapshotOf([
        validated('strict', 'warn', {
          serverViolators: null,
          serverReason: 'the server-side count stopped at maxTimeMS (10000 ms)',
        }),
      ]),
      findings: [
        {
          messageId: 'readyForErrorInSample',
          severity: 'info',
          target: orders$,
          message:
            'No document fails the validator (checked on 200 sampled documents only), yet it runs with ' +
            'validationLevel "strict" and validationAction "warn".',
          recommendation: {
            action: 'validationAction "error"',
            reasonIncludes: 'The count is from the sample only',
            commands: [/countDocuments\(\{ \$nor: /, collMod('validationAction: "error"')],
          },
        },
      ],
    },
    {
      name: 'moderate + warn and no count at all: count first',
      snapshot: snapshotOf([validated('moderate', 'warn', null)]),
      findings: [
        {
          messageId: 'violationsUnknown',
          severity: 'info',
          target: orders$,
          message: 'The validator runs as moderate/warn, and how many documents fail it is unknown.',
          recommendation: { action: 'count the failing documents' },
        },
      ],
    },
    {
      name: 'a schema that does not compile and no server count: both reasons said',
      snapshot: snapshotOf([
        validated('strict', 'error', {
          checked: 0,
          skippedReason: 'the $jsonSchema could not be compiled for an in-process check: bad',
          serverViolators: null,
          serverReason: 'the server-side count failed: Unauthorized',
        }),
      ]),
      findings: [
        {
          messageId: 'notCheckedNoServerCount',
          severity: 'info',
          target: orders$,
          message:
            'The sample was not checked against the validator in-process: the $jsonSchema could not be ' +
            'compiled for an in-process check: bad. No server-side count either: the server-side count ' +
            'failed: Unauthorized.',
          recommendation: null,
        },
      ],
    },
    {
      name: 'keywords ajv lacks and no server count',
      snapshot: snapshotOf([
        validated('strict', 'error', {
          unsupportedKeywords: ['encrypt at ssn'],
          serverViolators: null,
          serverReason: 'the server-side count failed: Unauthorized',
        }),
      ]),
      findings: [
        {
          messageId: 'partialCheckNoServerCount',
          severity: 'info',
          target: orders$,
          data: { list: 'encrypt at ssn', serverReason: 'the server-side count failed: Unauthorized' },
        },
      ],
    },
    {
      // the collector counts the total itself when the collection's storage statistics are missing
      name: 'failing documents counted on the server out of a total the collector counted (no storage statistics)',
      snapshot: snapshotOf([validated('strict', 'warn', { serverViolators: 1, serverDocuments: 60 }, { stats: null })]),
      findings: [
        {
          messageId: 'violations',
          severity: 'info',
          target: orders$,
          message: '1 of 60 documents (counted on the server) fail the validator ("strict", action "warn").',
          evidence: { serverDocuments: 60 },
        },
      ],
    },
  ],
});

/** A census over `n` documents (random sample unless `over` says otherwise), `_id` included. */
function censusOf(
  n: number,
  fields: Record<string, FieldProfile>,
  over: Partial<CollectionSnapshot['sample']> = {},
): CollectionSnapshot {
  return collectionOf('orders', {
    sample: sampleOf([], {
      requested: n,
      size: n,
      fields: { _id: { present: n, types: { objectId: n } }, ...fields },
      ...over,
    }),
  });
}

describe('validator proposal', () => {
  it(
    'types every path with every type seen, requires fields present and not null in every sampled document, ' +
      'nests objects and array items',
    () => {
      const p = proposeSchema(orders(), opts);
      expect(p?.required).toEqual(['_id', 'address', 'createdAt', 'items', 'name', 'status', 'tags', 'total']);
      expect(p?.gaps).toEqual([]);
      const props = p?.schema.properties as Record<string, Record<string, unknown>>;
      expect(props.total).toEqual({ bsonType: 'number' });
      expect(props.email).toEqual({ bsonType: 'string' });
      expect(props.nickname).toEqual({ bsonType: ['null', 'string'] });
      expect(props.address).toEqual({
        bsonType: 'object',
        properties: { city: { bsonType: 'string' }, zip: { bsonType: 'string' } },
        required: ['city'],
      });
      expect(props.tags).toEqual({ bsonType: 'array', items: { bsonType: 'string' } });
      expect(props.items).toEqual({
        bsonType: 'array',
        items: { bsonType: 'object', properties: { qty: { bsonType: 'number' }, sku: { bsonType: 'string' } } },
      });
    },
  );

  it(
    'a field null in most documents is nullable and optional; one seen only as null is left untyped, never ' +
      'typed "null"',
    () => {
      const c = censusOf(100, {
        deletedAt: { present: 100, types: { null: 90, date: 10 } },
        legacy: { present: 100, types: { null: 100 } },
        // present everywhere, null in one: not required at requiredShare 1 (present and not null in every document)
        phone: { present: 100, types: { string: 99, null: 1 } },
      });
      const p = proposeSchema(c, opts);
      expect(p?.required).toEqual(['_id']);
      const props = p?.schema.properties as Record<string, unknown>;
      expect(props.deletedAt).toEqual({ bsonType: ['date', 'null'] });
      expect(props.legacy).toEqual({});
      expect(props.phone).toEqual({ bsonType: ['null', 'string'] });
      expect(p?.nullOnly).toEqual(['legacy']);
      // at 0.99 phone is required (99 of 100 not null), and it accepts null
      expect(proposeSchema(c, { ...opts, requiredShare: 0.99 })?.required).toEqual(['_id', 'phone']);
    },
  );

  it('a field present in 60% of documents is optional', () => {
    const p = proposeSchema(censusOf(100, { email: { present: 60, types: { string: 60 } } }), opts);
    expect(p?.required).toEqual(['_id']);
    expect((p?.schema.properties as Record<string, unknown>).email).toEqual({ bsonType: 'string' });
  });

  it('a mixed-type field accepts every type seen (numbers as "number"), and is listed', () => {
    const p = proposeSchema(
      censusOf(100, { code: { present: 100, types: { int: 40, double: 10, string: 45, objectId: 5 } } }),
      opts,
    );
    expect((p?.schema.properties as Record<string, unknown>).code).toEqual({
      bsonType: ['number', 'objectId', 'string'],
    });
    expect(p?.mixed).toEqual(['code']);
    expect(p?.required).toEqual(['_id', 'code']);
  });

  it('a folded map gets one schema for every value (additionalProperties), never its keys as properties', () => {
    const c = censusOf(100, {
      stock: { present: 100, types: { object: 100 } },
      'stock.<key>': { present: 700, types: { int: 650, null: 50 } },
      prices: { present: 80, types: { object: 80 } },
      'prices.<key>': { present: 300, types: { object: 300 } },
      'prices.<key>.amount': { present: 300, types: { double: 300 } },
      'prices.<key>.note': { present: 20, types: { string: 20 } },
    });
    const p = proposeSchema(c, opts);
    const props = p?.schema.properties as Record<string, unknown>;
    expect(props.stock).toEqual({ bsonType: 'object', additionalProperties: { bsonType: ['null', 'number'] } });
    expect(props.prices).toEqual({
      bsonType: 'object',
      additionalProperties: {
        bsonType: 'object',
        required: ['amount'],
        properties: { amount: { bsonType: 'number' }, note: { bsonType: 'string' } },
      },
    });
    expect(p?.maps).toEqual(['prices', 'stock']);
    expect(JSON.stringify(p?.schema)).not.toContain('<key>');
  });

  it(
    'documents that are maps themselves: `_id` the one property, every other key one schema ' +
      '(additionalProperties at the top)',
    () => {
      const c = censusOf(100, {
        '<key>': { present: 900, types: { object: 900 } },
        '<key>.visits': { present: 900, types: { int: 900 } },
      });
      const p = proposeSchema(c, opts);
      expect(p?.schema).toMatchObject({
        bsonType: 'object',
        required: ['_id'],
        additionalProperties: {
          bsonType: 'object',
          required: ['visits'],
          properties: { visits: { bsonType: 'number' } },
        },
      });
      expect(Object.keys(p?.schema.properties as object)).toEqual(['_id']);
      expect(p?.maps).toEqual(['(document)']);
      expect(JSON.stringify(p?.schema)).not.toContain('<key>');
    },
  );

  it(
    'types `a.b` under `a`, and leaves keys holding a dot or starting with `$` out ($jsonSchema cannot ' +
      'validate them)',
    () => {
      const fields: Record<string, FieldProfile> = {
        _id: census._id as FieldProfile,
        '"a.b"': { present: N, types: { int: N } },
        a: { present: N, types: { object: N } },
        'a.b': { present: N, types: { string: N } },
        'a.$in': { present: N, types: { bool: N } },
        $x: { present: N, types: { date: N } },
      };
      const p = proposeSchema(orders({}, fields), opts);
      const props = p?.schema.properties as Record<
        string,
        { properties?: Record<string, unknown>; required?: string[] }
      >;
      expect(Object.keys(props)).toEqual(['_id', 'a']);
      expect(props.a?.properties).toEqual({ b: { bsonType: 'string' } });
      expect(props.a?.required).toEqual(['b']);
      expect(p?.schema.required).toEqual(['_id', 'a']);
    },
  );

  it('leaves unfolded map-like objects (more than maxProperties keys) open', () => {
    const fields: Record<string, FieldProfile> = {
      _id: census._id as FieldProfile,
      attrs: { present: N, types: { object: N } },
    };
    for (let i = 0; i < 150; i++) fields[`attrs.k${i}`] = { present: 1, types: { int: 1 } };
    const p = proposeSchema(orders({}, fields), opts);
    expect(p?.open).toEqual(['attrs']);
    expect((p?.schema.properties as Record<string, unknown>).attrs).toEqual({ bsonType: 'object' });
    // the 150 keys take none of the field budget
    expect(p?.overCap).toEqual([]);
  });

  it('caps depth: contents below maxDepth are left out (accept anything) and listed with how many paths', () => {
    const c = censusOf(50, {
      a: { present: 50, types: { object: 50 } },
      'a.b': { present: 50, types: { object: 50 } },
      'a.b.c': { present: 50, types: { object: 50 } },
      'a.b.c.d': { present: 50, types: { string: 50 } },
      'a.b.c.e': { present: 50, types: { array: 50 } },
      'a.b.c.e.$[]': { present: 90, types: { int: 90 } },
    });
    const p = proposeSchema(c, { ...opts, maxDepth: 2 });
    expect((p?.schema.properties as Record<string, unknown>).a).toEqual({
      bsonType: 'object',
      required: ['b'],
      properties: { b: { bsonType: 'object' } },
    });
    expect(p?.belowDepth).toEqual([{ path: 'a.b', paths: 4 }]);
    expect(proposeSchema(c, opts)?.belowDepth).toEqual([]);
  });

  it('caps field paths: shallow and common ones first, the rest left out and listed', () => {
    const c = censusOf(50, {
      a: { present: 50, types: { string: 50 } },
      b: { present: 10, types: { string: 10 } },
      o: { present: 50, types: { object: 50 } },
      'o.x': { present: 50, types: { int: 50 } },
    });
    const p = proposeSchema(c, { ...opts, maxFields: 3 });
    expect(Object.keys(p?.schema.properties ?? {})).toEqual(['_id', 'a', 'o']);
    expect((p?.schema.properties as Record<string, unknown>).o).toEqual({ bsonType: 'object' });
    expect(p?.overCap).toEqual(['b', 'o.x']);
    expect(p?.fields).toBe(3);
  });

  it('from a natural-order sample nothing but _id is required', () => {
    const c = censusOf(
      100,
      { email: { present: 100, types: { string: 100 } } },
      { method: 'natural-order', random: false },
    );
    expect(proposeSchema(c, opts)?.required).toEqual(['_id']);
    expect(proposeSchema(c, opts)?.basis).toBe('ordered');
  });

  it('a read marked complete with documents measured on the server is not complete: they are not in the census', () => {
    const big = { bytes: 2e6, createdAt: null, measuredOnServer: true, arrays: [], largestFields: [] };
    const c = censusOf(100, {}, { method: 'whole', complete: true, size: 101, docs: [big] });
    expect(proposeSchema(c, opts)?.basis).toBe('random');
  });

  it('enums only from a read of every document; opted in, they are read with distinct(), never printed', () => {
    const card = { status: 4, name: 65, 'tags.$[]': 3, nickname: 2 };
    expect(proposeSchema(orders(), { ...opts, proposeEnums: true }, card)?.enums).toEqual([]);
    expect(proposeSchema(whole(orders()), opts, card)?.enums).toEqual([]);
    const on = proposeSchema(whole(orders()), { ...opts, proposeEnums: true }, card);
    // nickname: 2 values but only 30 strings < 10 × 2 … 30 ≥ 20, so it qualifies; name has too many values
    expect(on?.enums).toEqual(['nickname', 'status', 'tags.$[]']);
    const text = shellLiteral(on?.schema);
    expect(text).toContain(
      'status: { bsonType: "string", enum: db.getSiblingDB("app").getCollection("orders").distinct("status", {' +
        ' status: { $type: "string" } }) }',
    );
    expect(text).toContain(
      'enum: db.getSiblingDB("app").getCollection("orders").distinct("nickname", { nickname: { $type: "string"' +
        ' } }).concat([null])',
    );
    expect(text).toContain(
      'items: { bsonType: "string", enum: db.getSiblingDB("app").getCollection("orders").distinct("tags", {' +
        ' tags: { $type: "string" } }) }',
    );
    // the server count and the scratch experiment get the schema without shell code; the fingerprint ignores enums
    expect(JSON.stringify(plainSchema(on?.schema))).not.toContain('distinct');
    expect(schemaFingerprint(on?.schema)).toBe(schemaFingerprint(proposeSchema(whole(orders()), opts)?.schema));
  });

  it('fingerprints tell schemas apart, whatever the key order', () => {
    expect(schemaFingerprint({ a: 1, b: [1, 2] })).toBe(schemaFingerprint({ b: [1, 2], a: 1 }));
    expect(schemaFingerprint({ a: 1 })).not.toBe(schemaFingerprint({ a: 2 }));
    expect(schemaFingerprint({ a: 1 })).toMatch(/^[0-9a-f]{14}$/);
  });

  it('shell literals quote odd keys and keep ShellCode verbatim', () => {
    expect(
      shellLiteral({
        'a-b': 1,
        ok: [true, null],
        c: new ShellCode('db.getSiblingDB("app").getCollection("x").distinct("c")'),
      }),
    ).toBe('{ "a-b": 1, ok: [true, null], c: db.getSiblingDB("app").getCollection("x").distinct("c") }');
  });

  it('the report names the caps, maps, null-only and mixed paths, and prints no document value', () => {
    const c = counted(
      censusOf(100, {
        deletedAt: { present: 100, types: { null: 100 } },
        code: { present: 100, types: { int: 50, string: 50 } },
        stock: { present: 100, types: { object: 100 } },
        'stock.<key>': { present: 500, types: { int: 500 } },
        a: { present: 100, types: { object: 100 } },
        'a.b': { present: 100, types: { object: 100 } },
        'a.b.c': { present: 100, types: { string: 100 } },
      }),
      { serverViolators: 0 },
    );
    const [f] = runRule(rule, snapshotOf([c]), { maxDepth: 2 });
    expect(f?.recommendation?.reason).toContain('Seen only as `null`, so left untyped (any type): `deletedAt`.');
    expect(f?.recommendation?.reason).toContain(
      'Typed with every type seen (the mixed-types rule reports them): `code`.',
    );
    expect(f?.recommendation?.reason).toContain(
      'Maps keyed by data, one schema for every value (additionalProperties): `stock`. This schema rejects the ' +
        "rewrite of `stock` into an array of {k, v} (the dynamic-keys rule's advice): before that rewrite, type " +
        'the field as `{ bsonType: "array" }` in the validator (collMod).',
    );
    expect(f?.recommendation?.reason).toContain(
      'Left out below level 2 (maxDepth; they accept anything): `a.b` (1 path).',
    );
    // the counted schema was the default proposal (maxDepth 10): this one differs, so it is not strict
    expect(f?.evidence).toMatchObject({
      proposedLevel: 'moderate',
      leftOutBelowDepth: 1,
      maps: 1,
      nullOnly: 1,
      mixed: 1,
    });
    expect(f?.docsUrl).toBe('https://www.mongodb.com/docs/manual/core/schema-validation/specify-json-schema/');
  });
});

describe('validator cost wording', () => {
  // Exact figures (no coverage) are judged as they are; the verdict is the cost claim's: below costlyRatio.
  it('says "within noise" whenever the interval includes 1 and stays under noiseRatio', () => {
    expect(describeCost({ label: '', median: 1.04, low: 0.97, high: 1.08 }, 1.1, 2)).toEqual({
      text: 'within noise',
      verdict: 'supported',
    });
    expect(describeCost({ label: '', median: 1.05, low: 1.02, high: 1.08 }, 1.1, 2)).toEqual({
      text: 'slower, but by no more than the 10% noise allowance',
      verdict: 'supported',
    });
  });

  it('judges the cost against costlyRatio (the claim), and words it against noiseRatio', () => {
    // 14% slower: more than the noise allowance, far under costlyRatio: the claim "adds less than 100%" holds
    expect(describeCost({ label: '', median: 1.14, low: 1.12, high: 1.16 }, 1.1, 2)).toEqual({
      text: 'slower, by more than the 10% noise allowance',
      verdict: 'supported',
    });
    expect(describeCost({ label: '', median: 1.14, low: 1.08, high: 1.17 }, 1.1, 2)).toEqual({
      text: 'slower, though possibly by no more than the 10% noise allowance',
      verdict: 'supported',
    });
    expect(describeCost({ label: '', median: 1.4, low: 1.3, high: 1.5 }, 1.1, 1.25)).toEqual({
      text: 'slower, by more than the 10% noise allowance',
      verdict: 'refuted',
    });
    expect(describeCost({ label: '', median: 2.4, low: 2.1, high: 2.6 }, 1.1, 2).verdict).toBe('refuted');
    expect(describeCost({ label: '', median: 1.55, low: 1.08, high: 1.88 }, 1.1, 1.5).verdict).toBe('inconclusive');
    // on the boundary: an interval that touches costlyRatio decides nothing
    expect(describeCost({ label: '', median: 1.8, low: 1.5, high: 2 }, 1.1, 2).verdict).toBe('inconclusive');
    expect(describeCost({ label: '', median: 2.2, low: 2, high: 2.4 }, 1.1, 2).verdict).toBe('inconclusive');
    // an interval short of 95% (too few blocks) decides nothing, whatever it holds
    expect(describeCost({ label: '', median: 1.05, low: 1.02, high: 1.08, coverage: 0.9375 }, 1.1, 2).verdict).toBe(
      'inconclusive',
    );
  });

  it('a timed interval decides the cost only when it clears costlyRatio by the noise margin (2 / 1.1, 2 × 1.1)', () => {
    const timed = (low: number, high: number) => ({ label: '', median: (low + high) / 2, low, high, coverage: 0.96 });
    expect(describeCost(timed(1.3, 1.8), 1.1, 2).verdict).toBe('supported');
    // the readings run: under 2, not under 1.82
    expect(describeCost(timed(1.3, 1.85), 1.1, 2).verdict).toBe('inconclusive');
    expect(describeCost(timed(2.1, 2.6), 1.1, 2).verdict).toBe('inconclusive');
    expect(describeCost(timed(2.25, 2.6), 1.1, 2).verdict).toBe('refuted');
  });

  it(
    'a wide interval that includes 1 is within noise at the median but not shown small (it reaches past ' +
      'noiseRatio)',
    () => {
      expect(describeCost({ label: '', median: 1.8, low: 0.46, high: 2.43 }, 1.1, 2)).toEqual({
        text: 'within noise at the median, but the interval reaches past the 10% noise allowance',
        verdict: 'inconclusive',
      });
      expect(describeCost({ label: '', median: 1.04, low: 0.97, high: 1.12 }, 1.1, 2).verdict).toBe('supported');
    },
  );
});

describe('validator confirmation sentences', () => {
  const o = { noiseRatio: 1.1, costlyRatio: 2 } as ValidatorOptions;
  const finding = { messageId: 'missing', evidence: { proposedAction: 'warn' } } as unknown as Parameters<
    typeof verdictOf
  >[0];
  const counts = { copied: 300, passing: 300, duplicates: 0, refused: [], unchanged: 0, sent: 0 };
  const shape = { what: 'the proposed validator', inserted: 300, replaced: 200 };
  const arm = (label: string, samples: number[]): Timed => ({ label, samples, complete: samples.length >= 12 });
  const exact = (median: number, low: number, high: number) => ({ label: 'r', median, low, high });

  it('gives a measurement with no timed block its own sentence: no NaN, no "slower", no figure', () => {
    const ins = ratioOf('insert', arm('a', [1, 1, 1, 1]), arm('b', [1, 1, 1, 1]));
    const upd = ratioOf('update', arm('c', []), arm('d', []));
    expect(Number.isNaN(upd.median)).toBe(true); // the harness's figure for zero blocks
    const r = verdictOf(finding, o, [arm('c', []), arm('d', [])], ins, upd, counts, shape);
    expect(r.summary).toContain(
      'Replacing 200 of them by other copied documents was not timed: the budget ran out before one block.',
    );
    expect(r.summary).not.toMatch(/NaN/);
    expect(r.summary).not.toMatch(/slower/);
    expect(r.status).toBe('inconclusive');
    const none = verdictOf(
      finding,
      o,
      [arm('a', []), arm('b', [])],
      ratioOf('insert', arm('a', []), arm('b', [])),
      null,
      counts,
      shape,
    );
    expect(none.summary).toContain(
      'inserting 300 copied documents was not timed: the budget ran out before one block.',
    );
    expect(none.summary).not.toMatch(/NaN|slower/);
  });

  it('names no option key, prints the YCSB figures nowhere (the recommendation has them), shows both figures', () => {
    const done = [arm('a', new Array<number>(12).fill(1)), arm('b', new Array<number>(12).fill(1))];
    const r = verdictOf(finding, o, done, exact(1.05, 0.97, 1.08), exact(2.3, 2.25, 2.6), counts, shape);
    expect(r.summary).not.toMatch(/costlyRatio|YCSB/);
    expect(r.summary).toContain('adds less than 100% to write time');
    expect(r.status).toBe('refuted');
    // the replacements decided the verdict: theirs is the ratio kept, and the brief shows both
    expect(r.ratio?.median).toBe(2.3);
    expect(r.brief).toMatch(/inserts 1\.1x.*; replacements 2\.3x/);
  });

  it('prints no percentage of a ratio beside its figure (they disagreed by rounding: "2.4x", "133% slower")', () => {
    const text = describeCost({ label: '', median: 1.5, low: 0.99, high: 2.33 }, 1.1, 2).text;
    expect(text).not.toMatch(/\d+% slower/);
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

describe('validator proposal for blank strings standing for no value', () => {
  it('types depth with both types it holds and does not require it: every existing document passes', () => {
    const p = proposeSchema(wrecks(blankDepth), opts);
    const schema = p?.schema as { required: string[]; properties: Record<string, unknown> };
    expect(schema.required).not.toContain('depth');
    expect(schema.properties.depth).toEqual({ bsonType: ['number', 'string'] });
    expect(p?.blanksOptional).toEqual(['depth']);
    expect(p?.gaps).toEqual([]);
  });
});
