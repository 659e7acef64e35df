import type { SampleSnapshot } from '../../src/core/types';
import { collectionOf, sampleOf, snapshotOf, withServer } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import rule from './index';

const orders = (fields: SampleSnapshot['fields']) =>
  collectionOf('orders', { sample: sampleOf([], { size: 100, fields }) });
const at = (path: string) => ({ db: 'app', collection: 'orders', path });

ruleTester(rule, {
  valid: [
    {
      name: 'one type per field, nullable fields, number widths, the _id',
      snapshot: snapshotOf([
        orders({
          _id: { present: 100, types: { objectId: 90, string: 10 } },
          name: { present: 100, types: { string: 100 } },
          deletedAt: { present: 100, types: { null: 80, date: 20 } },
          note: { present: 30, types: { string: 20, null: 5, undefined: 5 } },
          price: { present: 100, types: { int: 60, double: 40 } },
          total: { present: 100, types: { decimal: 50, long: 50 } },
        }),
      ]),
    },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
  ],
  invalid: [
    {
      name: 'a price that is a number, a string or null: warn, shares and $convert',
      snapshot: snapshotOf([orders({ price: { present: 100, types: { double: 60, int: 10, string: 20, null: 10 } } })]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('price'),
          data: {
            path: 'price',
            families: 2,
            values: '100',
            mix: 'number (double, int) 70%, string 20%, no value 10%',
          },
          evidence: {
            values: 90,
            nulls: 10,
            types: 'double 60%, string 20%, int 10%, no value 10%',
            'share.number': 0.778,
            'share.string': 0.222,
          },
          recommendation: {
            action: 'store one type: convert the string values to number',
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ "price": { $type: "string" } }) ' +
                ' // the string values',
            ],
            // Rewriting documents before the code writes one type: a later step, never in the block pasted now.
            later: [
              'db.getSiblingDB("app").getCollection("orders").updateMany({ "price": { $type: "string" } }, [{' +
                ' $set: { "price": { $convert: { ' +
                'input: "$price", to: "double", onError: "$price" } } } }])  // on a copy first; values that ' +
                'do not convert stay as they are',
            ],
          },
        },
      ],
    },
    {
      name:
        'numbers and blank strings (a shipwreck depth: "" in 77%): the blanks are "no value", never converted ' +
        'to or from; the fix unsets them',
      snapshot: snapshotOf([
        orders({
          depth: { present: 100, types: { string: 77, double: 20, int: 3 }, strings: { blank: 77, numeric: 0 } },
        }),
      ]),
      findings: [
        {
          messageId: 'blankStrings',
          severity: 'warn',
          target: at('depth'),
          message:
            '`depth` holds number values and blank strings across 100 sampled values: blank string 77%, ' +
            'number (double, int) 23%. A blank string stands for "no value" here, but it is a value: ' +
            '`$exists` and `$ne: null` match it, sorts and range queries split it from the number values, ' +
            'and an index on the field holds both types.',
          evidence: { blankStrings: 77 },
          recommendation: {
            action: 'store "no value" as a missing field, not a blank string',
            // the audit's item 8: the validator rule's proposal agrees with the cleanup (rules/validator README)
            reasonIncludes:
              "The validator rule's proposal does not assume this cleanup: it leaves `depth` optional and accepts " +
              'the blank strings that exist, so it rejects no document before or after the cleanup; drop `string` ' +
              'from its type once the blanks are gone.',
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ "depth": { $regex: /^\\s*$/ } })' +
                '  // the blank strings',
            ],
            later: [
              'db.getSiblingDB("app").getCollection("orders").updateMany({ "depth": { $regex: /^\\s*$/ } }, {' +
                ' $unset: { "depth": "" } })  // on ' +
                'a copy first',
            ],
          },
        },
      ],
    },
    {
      name:
        'numbers written as text in most documents: convert the strings to number, not the numbers to string ' +
        '(blanks unset first)',
      snapshot: snapshotOf([
        orders({ pop: { present: 100, types: { string: 70, int: 30 }, strings: { blank: 5, numeric: 65 } } }),
      ]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('pop'),
          data: {
            path: 'pop',
            families: 2,
            values: '100',
            mix: "string (a number's text, 5 blank) 70%, number (int) 30%",
          },
          evidence: { numericStrings: 65, blankStrings: 5 },
          recommendation: {
            action: 'store one type: convert the string values to number',
            reasonIncludes: "The validator rule's proposal does not assume this cleanup: it leaves `pop` optional",
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ "pop": { $type: "string" } }) ' +
                ' // the string values',
            ],
            later: [
              'db.getSiblingDB("app").getCollection("orders").updateMany({ "pop": { $regex: /^\\s*$/ } }, {' +
                ' $unset: { "pop": "" } })  // the ' +
                'blank strings: no value, so no field',
              /\$convert: \{ input: "\$pop", to: "int"/,
            ],
          },
        },
      ],
    },
    {
      name:
        "numbers' text holding fractions ('12.5') beside ints: converted to double, which $convert reads them " +
        'as (to int it would refuse them)',
      snapshot: snapshotOf([
        orders({
          pop: { present: 100, types: { string: 70, int: 30 }, strings: { blank: 0, numeric: 70, integer: 60 } },
        }),
      ]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('pop'),
          recommendation: {
            action: 'store one type: convert the string values to number',
            reasonIncludes:
              '`$convert` to double keeps a value it cannot convert; double, not int: some strings hold a ' +
              'fraction, which int cannot',
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ "pop": { $type: "string" } }) ' +
                ' // the string values',
            ],
            later: [/\$convert: \{ input: "\$pop", to: "double"/],
          },
        },
      ],
    },
    {
      name: "numbers' text, every one an integer's: the ints' own width",
      snapshot: snapshotOf([
        orders({
          pop: { present: 100, types: { string: 70, int: 30 }, strings: { blank: 0, numeric: 70, integer: 70 } },
        }),
      ]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('pop'),
          recommendation: {
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ "pop": { $type: "string" } }) ' +
                ' // the string values',
            ],
            later: [/to: "int"/],
          },
        },
      ],
    },
    {
      name: 'strings that are text beside numbers: the majority type stays the target, as before',
      snapshot: snapshotOf([
        orders({ code: { present: 100, types: { string: 70, int: 30 }, strings: { blank: 0, numeric: 10 } } }),
      ]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('code'),
          data: { path: 'code', families: 2, values: '100', mix: 'string 70%, number (int) 30%' },
          recommendation: { action: 'store one type: convert the number values to string' },
        },
      ],
    },
    {
      name:
        'customerId ObjectId or string: error (the classic bug); the same pair on a field not named like an ' +
        'id: warn',
      snapshot: snapshotOf([
        orders({
          customerId: { present: 100, types: { objectId: 95, string: 5 } },
          ref: { present: 100, types: { objectId: 50, string: 50 } },
        }),
      ]),
      findings: [
        {
          messageId: 'mixedIds',
          severity: 'error',
          target: at('customerId'),
          message:
            '`customerId` holds identifiers of two types across 100 sampled values: objectId 95%, string ' +
            '5%. A value of type objectId never equals its string form: queries and $lookup joins by this ' +
            'field silently miss the string ones, and an index on it holds both.',
          recommendation: {
            action: 'store one type: convert the string values to objectId',
            commands: [/countDocuments/],
            later: [/to: "objectId"/],
          },
        },
        { messageId: 'mixedIds', severity: 'warn', target: at('ref') },
      ],
    },
    {
      name: 'strays under minorShare drop a level; under an array or a map key: no commands',
      snapshot: snapshotOf([
        orders({
          customerId: { present: 1000, types: { objectId: 995, string: 5 } },
          depth: { present: 1000, types: { int: 999, string: 1 } },
          lines: { present: 100, types: { array: 100 } },
          'lines.sku': { present: 300, types: { string: 200, int: 100 } },
          'itemsBySku.<key>': { present: 300, types: { int: 290, string: 10 } },
          'tagIds.$[]': { present: 300, types: { binData: 200, string: 100 } },
        }),
      ]),
      findings: [
        { messageId: 'mixedIds', severity: 'warn', target: at('customerId'), messageIncludes: 'string <1%' },
        { messageId: 'mixed', severity: 'info', target: at('depth') },
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('lines.sku'),
          recommendation: { reasonIncludes: 'sits in an array or under a map key', commands: [] },
        },
        { messageId: 'mixed', severity: 'warn', target: at('itemsBySku.<key>'), recommendation: { commands: [] } },
        {
          messageId: 'mixedIds',
          severity: 'error',
          target: at('tagIds.$[]'),
          messageIncludes: 'binData 67%, string 33%',
        },
      ],
    },
    {
      name: 'an array or a single value: info; three families: mixed',
      snapshot: snapshotOf([
        orders({
          tags: { present: 100, types: { array: 90, string: 10 } },
          depth: { present: 100, types: { int: 50, string: 30, bool: 20 } },
        }),
      ]),
      findings: [
        {
          messageId: 'mixedArray',
          severity: 'info',
          target: at('tags'),
          data: { path: 'tags', values: '100', mix: 'array 90%, string 10%' },
          recommendation: { commands: [/countDocuments/] },
        },
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('depth'),
          data: { path: 'depth', families: 3, values: '100', mix: 'number (int) 50%, string 30%, bool 20%' },
        },
      ],
    },
    {
      name: 'a key holding a dot or starting with $: $getField/$setField commands (5.0+), never the nested path',
      snapshot: snapshotOf([
        orders({
          '"a.b"': { present: 100, types: { int: 90, string: 10 }, strings: { blank: 0, numeric: 10, integer: 10 } },
          a: { present: 100, types: { object: 100 } },
          'a.b': { present: 100, types: { objectId: 100 } },
          'x.$in': { present: 100, types: { string: 60, bool: 40 } },
        }),
      ]),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('"a.b"'),
          data: { path: '"a.b"', families: 2, values: '100', mix: "number (int) 90%, string (a number's text) 10%" },
          recommendation: {
            commands: [
              'db.getSiblingDB("app").getCollection("orders").countDocuments({ $expr: { $eq: [{ $type: {' +
                ' $getField: { field: { $literal: "a.b" ' +
                '}, input: "$$CURRENT" } } }, "string"] } })  // the string values',
            ],
            later: [
              new RegExp(
                String.raw`^db\.getSiblingDB\("app"\)\.getCollection\("orders"\)\.updateMany\(\{ \$expr: .*\[\{` +
                  String.raw` \$replaceWith: \{ \$setField: \{ field: ` +
                  String.raw`\{ \$literal: "a\.b" \}, input: "\$\$ROOT", value: \{ \$convert: `,
              ),
            ],
          },
        },
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('x.$in'),
          recommendation: {
            commands: [
              /^db\.getSiblingDB\("app"\)\.getCollection\("orders"\)\.countDocuments\(.*\{ \$literal: "\$in" \}/,
            ],
            later: [
              new RegExp(
                String.raw`\{ \$setField: \{ field: \{ \$literal: "x" \}, input: "\$\$ROOT", value: \{ \$setField: ` +
                  String.raw`\{ field: \{ \$literal: "\$in" \}, input: \{ \$getField: `,
              ),
            ],
          },
        },
      ],
    },
    {
      name: 'a key holding a dot on a server before 5.0: no command, and the reason says why',
      snapshot: withServer(snapshotOf([orders({ '"a.b"': { present: 100, types: { int: 90, string: 10 } } })]), {
        version: '4.4.18',
      }),
      findings: [
        {
          messageId: 'mixed',
          severity: 'warn',
          target: at('"a.b"'),
          recommendation: {
            reasonIncludes: 'which only `$getField` and `$setField` (MongoDB 5.0) can name, and this server is older',
            commands: [],
          },
        },
      ],
    },
    {
      name: 'numberWidths on: number widths as info',
      options: { numberWidths: true },
      snapshot: snapshotOf([orders({ price: { present: 100, types: { int: 60, double: 40 } } })]),
      findings: [
        {
          messageId: 'numberWidths',
          severity: 'info',
          target: at('price'),
          data: { path: 'price', values: '100', mix: 'int 60%, double 40%' },
        },
      ],
    },
  ],
});
