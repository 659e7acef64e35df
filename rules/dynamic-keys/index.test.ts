import type { DynamicKeyProfile, SampleSnapshot } from '../../src/core/types';
import { collectionOf, sampleOf, snapshotOf } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import rule from './index';

const at = (path: string) => ({ db: 'app', collection: 'orders', path });

/** A SKU-keyed map as Profiler.finish describes it: counts and shapes, never a key. */
const skuMap = (over: Partial<DynamicKeyProfile> = {}): DynamicKeyProfile => ({
  path: 'itemsBySku',
  objects: 200,
  distinctKeys: 412,
  medianKeys: 3,
  sharedKeyShare: 0,
  keyShapes: { code: 410, word: 2 },
  valueTypes: { int: 590, string: 10 },
  ...over,
});

const orders = (dynamicKeys: DynamicKeyProfile[], fields: SampleSnapshot['fields'] = {}) =>
  collectionOf('orders', {
    sample: sampleOf([], {
      size: 200,
      dynamicKeys,
      fields: {
        itemsBySku: { present: 200, types: { object: 200 } },
        'itemsBySku.<key>': { present: 600, types: { int: 590, string: 10 } },
        ...fields,
      },
    }),
  });

// The audit's item 9 (sample_analytics customers.tier_and_details; fields only, made-up counts): UUID keys whose
// values are documents. An index on `tier_and_details.v` would hold whole documents: the index is on k.
const customers = collectionOf('customers', {
  sample: sampleOf([], {
    size: 200,
    dynamicKeys: [
      {
        path: 'tier_and_details',
        objects: 200,
        distinctKeys: 300,
        medianKeys: 1,
        sharedKeyShare: 0,
        keyShapes: { uuid: 300 },
        valueTypes: { object: 310 },
      },
    ],
    fields: {
      tier_and_details: { present: 200, types: { object: 200 } },
      'tier_and_details.<key>': { present: 310, types: { object: 310 } },
      'tier_and_details.<key>.tier': { present: 310, types: { string: 310 } },
      'tier_and_details.<key>.id': { present: 310, types: { string: 310 } },
      'tier_and_details.<key>.active': { present: 310, types: { bool: 310 } },
      'tier_and_details.<key>.benefits': { present: 300, types: { array: 300 } },
      'tier_and_details.<key>.benefits.$[]': { present: 700, types: { string: 700 } },
    },
  }),
});

ruleTester(rule, {
  valid: [
    { name: 'no map folded', snapshot: snapshotOf([collectionOf('orders')]) },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty', { stats: null })]) },
  ],
  invalid: [
    {
      name: 'a map whose values are documents: the index on k, the fields of the values named, never an index on v',
      snapshot: snapshotOf([customers]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: { db: 'app', collection: 'customers', path: 'tier_and_details' },
          messageIncludes: 'holding values of type object 100%',
          recommendation: {
            action: 'store it as an array of {k, v} (the attribute pattern), or in a child collection',
            reasonIncludes: [
              'The values under the keys are documents, where the attribute pattern pairs a key with a scalar: ' +
                'an array `[{k, v}, …]` with one index on `tier_and_details.k` serves a query on any key',
              '(`tier_and_details.v.<field>`; the values hold `active`, `id`, `tier`, `benefits`)',
              'An index on `tier_and_details.v` itself would hold whole documents and match only an equal ' +
                'document, field order included.',
            ],
            commands: ['db.getSiblingDB("app").getCollection("customers").createIndex({ "tier_and_details.k": 1 })'],
            // The rewrite changes what the application reads: a later step, never in the block pasted now.
            later: [
              'db.getSiblingDB("app").getCollection("customers").updateMany({ tier_and_details: { $type:' +
                ' "object" } }, [{ $set: { ' +
                'tier_and_details: { $objectToArray: "$tier_and_details" } } }])  // on a copy first: {key: ' +
                'value} becomes [{k: key, v: value}]',
            ],
          },
        },
      ],
    },
    {
      name: 'a SKU-keyed map: warn, the attribute pattern with its commands',
      snapshot: snapshotOf([orders([skuMap()])]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: at('itemsBySku'),
          message:
            '`itemsBySku` is an object used as a map: 412 distinct keys in 200 sampled objects (3 per ' +
            'object at the median; keys shaped as 410 codes (digits with letters or separators), 2 words), ' +
            'holding values of type int 98%, string 2%. Each key is a field of its own: no index serves a ' +
            'query on one key short of an index per key, and every key becomes a property of any schema or ' +
            'validator written for the collection.',
          evidence: {
            distinctKeys: 412,
            medianKeys: 3,
            sharedKeyShare: 0,
            keyShapes: '410 codes (digits with letters or separators), 2 words',
          },
          recommendation: {
            action: 'store it as an array of {k, v} (the attribute pattern), or in a child collection',
            reasonIncludes: [
              'one index on `itemsBySku.k` and `itemsBySku.v`',
              'change the code that writes the map first',
            ],
            commands: [
              'db.getSiblingDB("app").getCollection("orders").createIndex({ "itemsBySku.k": 1, "itemsBySku.v": 1 })',
            ],
            later: [
              'db.getSiblingDB("app").getCollection("orders").updateMany({ itemsBySku: { $type: "object" } },' +
                ' [{ $set: { itemsBySku: { ' +
                '$objectToArray: "$itemsBySku" } } }])  // on a copy first: {key: value} becomes [{k: key, v: ' +
                'value}]',
            ],
          },
        },
      ],
    },
    {
      name:
        'the documents themselves used as maps (dates as top-level keys): one finding on the collection, the ' +
        'keys moved into an array, no command',
      snapshot: snapshotOf([
        collectionOf('daily', {
          sample: sampleOf([], {
            size: 90,
            dynamicKeys: [
              skuMap({
                path: '',
                objects: 90,
                distinctKeys: 365,
                medianKeys: 30,
                keyShapes: { date: 365 },
                valueTypes: { int: 2700 },
              }),
            ],
            fields: { _id: { present: 90, types: { objectId: 90 } }, '<key>': { present: 2700, types: { int: 2700 } } },
          }),
        }),
      ]),
      findings: [
        {
          messageId: 'documentMap',
          severity: 'warn',
          target: { db: 'app', collection: 'daily' },
          message:
            'The documents themselves are used as maps: 365 distinct top-level keys besides `_id` in 90 ' +
            'sampled documents (30 per document at the median; keys shaped as 365 dates), holding values of ' +
            'type int 100%. Each key is a field of its own: no index serves a query on one key short of an ' +
            'index per key, and every key becomes a property of any schema or validator written for the ' +
            'collection.',
          recommendation: {
            action: 'move the keys into one array of {k, v} (the attribute pattern), or into a child collection',
            reasonIncludes: ['`attrs: [{k, v}, …]`', 'Change the code that writes the documents first'],
          },
        },
      ],
    },
    {
      name:
        'indexes on single keys of the map (left out of the snapshot): counted, and the one {k, v} index ' +
        'replaces them',
      snapshot: snapshotOf([orders([skuMap({ indexesOnKeys: 3 })])]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: at('itemsBySku'),
          evidence: { indexesOnKeys: 3 },
          recommendation: {
            reasonIncludes:
              "3 indexes exist today, each on one of its keys: the pattern's one index replaces them and " +
              'serves the keys not indexed yet.',
          },
        },
      ],
    },
    {
      name: 'a map of 300 keys per object: error, from errorKeysPerObject',
      snapshot: snapshotOf([orders([skuMap({ medianKeys: 300, distinctKeys: 9000, keyShapes: { objectId: 9000 } })])]),
      findings: [
        {
          messageId: 'map',
          severity: 'error',
          target: at('itemsBySku'),
          messageIncludes: ['9,000 distinct keys', '300 per object', '9,000 ObjectIds'],
          recommendation: { reasonIncludes: '300 keys per document at the median already' },
        },
      ],
    },
    {
      name:
        'a map empty in most objects (sample_analytics customers: 267 of 500 `{}`): the median of the objects ' +
        'holding keys, and how many are empty',
      snapshot: snapshotOf([
        orders([
          skuMap({
            objects: 500,
            distinctKeys: 456,
            medianKeys: 0,
            emptyObjects: 267,
            medianKeysNonEmpty: 2,
            keyShapes: { uuid: 456 },
          }),
        ]),
      ]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: at('itemsBySku'),
          messageIncludes: [
            '456 distinct keys in 500 sampled objects (2 per object at the median of the 233 holding any, ' +
              '267 empty; keys shaped as 456 UUIDs)',
          ],
          evidence: { medianKeys: 0, emptyObjects: 267, medianKeysNonEmpty: 2 },
        },
      ],
    },
    {
      name: 'errorKeysPerObject raised: warn again',
      options: { errorKeysPerObject: 1000 },
      snapshot: snapshotOf([orders([skuMap({ medianKeys: 300 })])]),
      findings: [{ messageId: 'map', severity: 'warn', target: at('itemsBySku') }],
    },
    {
      name: 'maps inside an array and under another map: advice without commands',
      snapshot: snapshotOf([
        orders(
          [
            skuMap({ path: 'lines.qtyBySku' }),
            skuMap({ path: 'visits' }),
            skuMap({ path: 'visits.<key>', keyShapes: { date: 412 } }),
          ],
          {
            lines: { present: 200, types: { array: 200 } },
            'lines.qtyBySku': { present: 400, types: { object: 400 } },
          },
        ),
      ]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: at('lines.qtyBySku'),
          recommendation: { reasonIncludes: 'rewrite it with the code that writes it', commands: [] },
        },
        {
          messageId: 'map',
          severity: 'warn',
          target: at('visits'),
          recommendation: { commands: [/"visits.k": 1/], later: [/\$objectToArray: "\$visits"/] },
        },
        {
          messageId: 'map',
          severity: 'warn',
          target: at('visits.<key>'),
          messageIncludes: '412 dates',
          recommendation: { reasonIncludes: 'under another map', commands: [] },
        },
      ],
    },
    {
      name: 'maps at a key holding a dot and at a `$` key: no command on the nested path they spell, and why',
      snapshot: snapshotOf([
        orders([skuMap({ path: '"stock.bySku"' }), skuMap({ path: 'meta.$bySku' })], {
          '"stock.bySku"': { present: 200, types: { object: 200 } },
          meta: { present: 200, types: { object: 200 } },
        }),
      ]),
      findings: [
        {
          messageId: 'map',
          severity: 'warn',
          target: at('"stock.bySku"'),
          recommendation: {
            reasonIncludes: 'Its name holds a dot or starts with `$`, which no index can name',
            commands: [],
          },
        },
        {
          messageId: 'map',
          severity: 'warn',
          target: at('meta.$bySku'),
          recommendation: {
            reasonIncludes: 'Its name holds a dot or starts with `$`, which no index can name',
            commands: [],
          },
        },
      ],
    },
  ],
});
