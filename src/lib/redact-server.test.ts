/**
 * Server error texts that hold document values, and the redactor every error description goes through
 * (`describeServerError`). The formats are MongoDB's own, from where each fixture cites; the values are ours.
 */
import { describe, expect, it } from 'vitest';
import { describeServerError } from './server-error';
import { redactServerText, VALUE_MASK } from './redact';

const SECRET = /QZSECRET|5f1d7c2ab0e4a1d2c3b4a5f6|zq@example\.org|4417/;

const FIXTURES: { name: string; source: string; text: string; keeps: string[] }[] = [
  {
    // https://jira.mongodb.org/browse/SERVER-60735 shows the server's form on 5.3+: "E11000 duplicate key error
    // collection: local.c dup key: { _id: 1 }"
    name: 'E11000 on _id, no index named (clustered collection)',
    source: 'SERVER-60735',
    text: 'E11000 duplicate key error collection: app.c dup key: { _id: "QZSECRET-1" }',
    keeps: ['E11000 duplicate key error collection: app.c dup key: '],
  },
  {
    // The form with the index (4.2+), as the server sends it in writeErrors[].errmsg (e.g. the BulkWriteError print
    // in the mongo shell, and SERVER-60735's description of the RecordStore message)
    name: 'E11000 with index and an ObjectId',
    source: 'mongo shell WriteError print',
    text:
      'E11000 duplicate key error collection: app.orders index: _id_ ' +
      "dup key: { _id: ObjectId('5f1d7c2ab0e4a1d2c3b4a5f6') }",
    keeps: ['index: _id_', 'dup key: '],
  },
  {
    // Before 4.2 the key names were left out: "dup key: { : \"…\" }"
    name: 'E11000, pre-4.2 form with two fields and a quoted brace',
    source: 'pre-4.2 format',
    text: 'E11000 duplicate key error index: app.users.$email_1_n_1 dup key: { : "zq@example.org}", : 4417 }',
    keeps: ['index: app.users.$email_1_n_1'],
  },
  {
    // https://jira.mongodb.org/browse/SERVER-20547: code 121, errmsg "Document failed validation", with an errInfo
    // (5.0+) whose failingDocumentId is the document's _id and whose details name each consideredValue; printed
    // whole (JSON) when an error object is stringified
    name: 'code 121 with errInfo, stringified',
    source: 'SERVER-20547 / Schema Validation docs',
    text:
      '{"index":0,"code":121,"errmsg":"Document failed validation","errInfo":{"failingDocumentId":' +
      '{"$oid":"5f1d7c2ab0e4a1d2c3b4a5f6"},"details":{"operatorName":"$jsonSchema","schemaRulesNotSatisfied":' +
      '[{"operatorName":"properties","propertiesNotSatisfied":[{"propertyName":"email","details":[{"operatorName":' +
      '"bsonType","specifiedAs":{"bsonType":"string"},"reason":"type did not match","consideredValue":4417,' +
      '"consideredType":"int"}]}]}]}}}',
    keeps: ['Document failed validation', '"propertyName":"email"', 'type did not match', '"consideredType":"int"'],
  },
  {
    // The legacy mongo shell's WriteError print (src/mongo/shell/bulk_api.js) carries the whole document as `op`
    name: 'code 121, legacy shell print with op',
    source: 'mongo shell bulk_api.js WriteError',
    text:
      'WriteError({ "index" : 0, "code" : 121, "errmsg" : "Document failed validation", ' +
      '"op" : { "_id" : "QZSECRET-2", "email" : 4417 } })',
    keeps: ['"code" : 121', 'Document failed validation'],
  },
  {
    // code 28, PathNotViable: "Cannot create field 'b' in element {a: …}"
    name: 'code 28, an update into a scalar',
    source: 'update path errors',
    text: 'Cannot create field \'b\' in element {a: "QZSECRET-3"}',
    keeps: ["Cannot create field 'b' in element "],
  },
  {
    // code 66, ImmutableField
    name: 'code 66, _id altered',
    source: 'ImmutableField',
    text:
      "After applying the update, the (immutable) field '_id' was found to have been altered to " + '_id: "QZSECRET-4"',
    keeps: ["the (immutable) field '_id'", 'altered to _id: '],
  },
  {
    // FerretDB prints its internal Go value (the validator test's own note, rules/validator/confirm.ts)
    name: 'FerretDB Go value',
    source: 'FerretDB',
    text: 'unknown operator with value &{map[email:QZSECRET-5]} is not implemented',
    keeps: ['is not implemented'],
  },
];

describe('redactServerText', () => {
  for (const f of FIXTURES) {
    it(`masks the values of: ${f.name}`, () => {
      expect(f.text).toMatch(SECRET); // the fixture holds a value to hide
      const out = redactServerText(f.text);
      expect(out).not.toMatch(SECRET);
      expect(out).toContain(VALUE_MASK);
      for (const k of f.keeps) expect(out).toContain(k);
    });
  }

  it('leaves a text without values as it is', () => {
    const t = 'CommandNotFound: $indexStats is not implemented; ns app.c index: a_1 (code 59)';
    expect(redactServerText(t)).toBe(t);
  });

  it('masks a value cut short to the end of the text (a truncated message)', () => {
    expect(redactServerText('E11000 duplicate key error collection: a.b dup key: { _id: "QZSECRET-6')).toBe(
      `E11000 duplicate key error collection: a.b dup key: ${VALUE_MASK}`,
    );
  });

  it('keeps what follows the value', () => {
    const out = redactServerText('dup key: { _id: new Date(1700000004417) }, collation: { locale: "fr" }');
    expect(out).toBe(`dup key: ${VALUE_MASK}, collation: { locale: "fr" }`);
  });

  it('is what describeServerError prints (the driver error shape: message, code, codeName)', () => {
    const err = Object.assign(new Error(FIXTURES[1]?.text), { code: 11000, codeName: 'DuplicateKey' });
    const line = describeServerError(err);
    expect(line).toMatch(/^DuplicateKey \(11000\): E11000 duplicate key error collection: app\.orders index: _id_/);
    expect(line).not.toMatch(SECRET);
  });
});
