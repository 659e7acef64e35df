import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { Adapter, Doc } from '../../src/core/adapter';
import { Profiler } from '../../src/collect/profile';
import type { CollectionContext } from '../../src/core/collector';
import { resolveOptions } from '../../src/core/options';
import type { CollectionSnapshot } from '../../src/core/types';
import { collectionOf, sampleOf } from '../../test/support/fixtures';
import { CARDINALITY_CAP, dryRunSample, stringCardinality, validatorCollector } from './collect';
import { type ValidatorOptions, validatorOptionsSchema } from './options';
import { proposeSchema, schemaFingerprint } from './propose';
import { bsonTypesOf, canonicalKey, compileJsonSchema } from './json-schema';

// The validator from MongoDB's manual ("Specify JSON Schema Validation"), as listCollections returns it.
const students = {
  bsonType: 'object',
  title: 'Student Object Validation',
  required: ['address', 'major', 'name', 'year'],
  properties: {
    name: { bsonType: 'string', description: "'name' must be a string and is required" },
    year: {
      bsonType: 'int',
      minimum: 2017,
      maximum: 3017,
      description: "'year' must be an integer in [ 2017, 3017 ] and is required",
    },
    gpa: { bsonType: ['double'], description: "'gpa' must be a double if the field exists" },
    address: { bsonType: 'object', required: ['city'], properties: { city: { bsonType: 'string' } } },
    major: { enum: ['Math', 'English', 'Computer Science', 'History', null] },
  },
};

const good = {
  _id: new ObjectId(),
  name: 'Alice',
  year: 2019,
  major: 'History',
  gpa: 3.2,
  address: { city: 'NYC', street: '33rd Street' },
};

describe('validator dry run (ajv over host BSON values)', () => {
  it('passes a valid document and names the failing paths of invalid ones', () => {
    const bad = [
      { ...good, year: 2016 }, // minimum
      { ...good, name: 42 }, // bsonType string
      { ...good, major: 'Biology' }, // enum
      { _id: new ObjectId(), name: 'Bob', year: 2020, major: 'Math' }, // required address
      { ...good, address: { street: 'x' } }, // nested required
    ];
    const run = dryRunSample(students, [], [good, ...bad]);
    expect(run.checked).toBe(6);
    expect(run.violations).toBe(5);
    expect(run.byPath).toEqual({ year: 1, name: 1, major: 1, address: 1, 'address.city': 1 });
    expect(run.unsupportedKeywords).toEqual([]);
    expect(run.skippedReason).toBeUndefined();
  });

  it('tells BSON types apart by _bsontype: Long is not int, Decimal128 is not double, Int32 is int', () => {
    const r = dryRunSample(
      students,
      [],
      [
        { ...good, year: new Long(2019) },
        { ...good, gpa: Decimal128.fromString('3.2') },
        { ...good, year: new Int32(2019) },
        { ...good, gpa: new Double(3) },
      ],
    );
    expect(r.violations).toBe(2);
    expect(r.byPath).toEqual({ year: 1, gpa: 1 });
  });

  it('numbers keywords see Long and Decimal128 values (minimum on a Long)', () => {
    const r = dryRunSample(
      { properties: { n: { bsonType: 'long', minimum: 10 } } },
      [],
      [{ n: new Long(5) }, { n: new Long(50) }],
    );
    expect(r.byPath).toEqual({ n: 1 });
  });

  it(
    'Decimal128 values are numbers for minimum, maximum, exclusiveMaximum, multipleOf, and equal to 5 in an ' +
      'enum (MongoDB; SecantusDB skips them)',
    () => {
      const five = Decimal128.fromString('5');
      const schema = {
        properties: {
          min: { minimum: 10 },
          max: { maximum: 5, exclusiveMaximum: true },
          mult: { multipleOf: 2 },
          e: { enum: [5] },
        },
      };
      const r = dryRunSample(
        schema,
        [],
        [
          { min: five, max: five, mult: five, e: five },
          {
            min: Decimal128.fromString('10'),
            max: Decimal128.fromString('4.5'),
            mult: Decimal128.fromString('4'),
            e: new Long(5),
          },
        ],
      );
      expect(r.byPath).toEqual({ min: 1, max: 1, mult: 1 });
      expect(r.violations).toBe(1);
      expect(r.unsupportedKeywords).toEqual([]);
    },
  );

  it('says which whole-number checks it could not decide (int vs double)', () => {
    const r = dryRunSample({ properties: { price: { bsonType: 'double' } } }, [], [{ price: 10 }, { price: 10.5 }]);
    expect(r.violations).toBe(0);
    expect(r.undecided).toEqual([
      'price: bsonType double on whole numbers (the host returns int, long and double alike)',
    ]);
  });

  it('draft-4 exclusiveMaximum (boolean) is honoured', () => {
    const r = dryRunSample(
      { properties: { n: { bsonType: 'number', maximum: 5, exclusiveMaximum: true } } },
      [],
      [{ n: 5 }, { n: 4 }],
    );
    expect(r.byPath).toEqual({ n: 1 });
  });

  it('JSON `type` means BSON types: number covers Long, object excludes ObjectId', () => {
    const r = dryRunSample(
      { properties: { n: { type: 'number' }, o: { type: 'object' } } },
      [],
      [
        { n: new Long(1), o: {} },
        { n: 1, o: new ObjectId() },
      ],
    );
    expect(r.byPath).toEqual({ o: 1 });
  });

  it('array items and uniqueItems use BSON equality (two equal ObjectIds are duplicates)', () => {
    const id = new ObjectId();
    const schema = {
      properties: { tags: { bsonType: 'array', uniqueItems: true, items: { bsonType: 'string', maxLength: 3 } } },
    };
    const r = dryRunSample(
      schema,
      [],
      [{ tags: ['a', 'b'] }, { tags: ['a', 'toolong'] }, { tags: [id, new ObjectId(id.toHexString())] }],
    );
    expect(r.byPath).toEqual({ 'tags.$[]': 2, tags: 1 });
  });

  it('additionalProperties false names the extra field', () => {
    const r = dryRunSample(
      { bsonType: 'object', additionalProperties: false, properties: { _id: {}, a: {} } },
      [],
      [
        { _id: 1, a: 1 },
        { _id: 2, a: 1, extra: true },
      ],
    );
    expect(r.byPath).toEqual({ extra: 1 });
  });

  it('anyOf counts once at its own path, not once per branch', () => {
    const r = dryRunSample(
      { properties: { v: { anyOf: [{ bsonType: 'string' }, { bsonType: 'int', minimum: 0 }] } } },
      [],
      [{ v: 'x' }, { v: -1 }, { v: true }],
    );
    expect(r.byPath).toEqual({ v: 2 });
  });

  it('names keywords it cannot check (encrypt, unknown) instead of passing them silently', () => {
    const schema = {
      properties: {
        ssn: { encrypt: { bsonType: 'string', algorithm: 'AEAD_AES_256_CBC_HMAC_SHA_512-Deterministic' } },
        code: { bsonType: 'string', pattern: '(?>a+)b' },
      },
    };
    const r = dryRunSample(schema, [], [{ ssn: 'x', code: 'ab' }]);
    expect(r.unsupportedKeywords).toEqual([
      'encrypt at ssn (field-level encryption: the driver and server check it, not the advisor)',
      'pattern at code (not a JavaScript regular expression (the server uses PCRE))',
    ]);
    expect(r.checked).toBe(1);
  });

  it('a query-operator validator is not run in-process, with the reason', () => {
    const r = dryRunSample(undefined, ['$or', 'status'], [{ a: 1 }]);
    expect(r.checked).toBe(0);
    expect(r.skippedReason).toContain('query operators ($or, field match)');
  });

  it('a validator mixing $jsonSchema and query operators runs the schema and names the rest', () => {
    const r = dryRunSample({ required: ['a'] }, ['$expr'], [{ a: 1 }, { b: 1 }]);
    expect(r.violations).toBe(1);
    expect(r.unsupportedKeywords).toEqual(['query operators beside $jsonSchema ($expr)']);
  });

  it('keeps no values: only paths and counts', () => {
    const secret = 'SECRET-VALUE';
    const r = dryRunSample({ properties: { s: { bsonType: 'int' } } }, [], [{ s: secret }]);
    expect(JSON.stringify(r)).not.toContain(secret);
  });

  it('keyword values it cannot use are named, not passed', () => {
    const r = dryRunSample(
      { properties: { a: { bsonType: 'int', minimum: 'x' }, b: { multipleOf: 0 } }, dependencies: 5 },
      [],
      [{ a: 1, b: 1 }],
    );
    expect(r.unsupportedKeywords).toEqual([
      'minimum at a (not a number)',
      'multipleOf at b (not a positive number)',
      'dependencies at (document) (not an object)',
    ]);
    expect(r.violations).toBe(0);
  });
});

describe('BSON helpers', () => {
  it('bsonTypesOf reads _bsontype and hedges JavaScript numbers', () => {
    expect(bsonTypesOf(new Long(1))).toEqual(['long']);
    expect(bsonTypesOf(new Int32(1))).toEqual(['int']);
    expect(bsonTypesOf(1)).toEqual(['int', 'long', 'double']);
    expect(bsonTypesOf(1.5)).toEqual(['double']);
    expect(bsonTypesOf(2 ** 40)).toEqual(['long', 'double']);
    expect(bsonTypesOf(new Date())).toEqual(['date']);
    expect(bsonTypesOf({ _bsontype: 'ObjectId' })).toEqual(['objectId']);
  });

  it('canonicalKey equates numbers across BSON types', () => {
    expect(canonicalKey(new Long(3))).toBe(canonicalKey(3));
    expect(canonicalKey(new Int32(3))).toBe(canonicalKey(new Double(3)));
    expect(canonicalKey({ a: 1, b: 'x' })).not.toBe(canonicalKey({ b: 'x', a: 1 }));
  });

  it('compileJsonSchema can be disposed and compiled again', () => {
    const a = compileJsonSchema({ required: ['x'] });
    a.dispose();
    const b = compileJsonSchema({ required: ['x'] });
    expect(b.check({})).toEqual(['x']);
    b.dispose();
  });
});

describe('string cardinality (counts only)', () => {
  it('counts distinct strings per census path, capped', () => {
    const docs = [
      { status: 'a', tags: ['x', 'y'], items: [{ sku: 's1' }, { sku: 's2' }], nested: { k: 'v' } },
      { status: 'b', tags: ['x'], items: [{ sku: 's1' }], nested: { k: 'v' } },
      ...Array.from({ length: 100 }, (_, i) => ({ status: 'a', free: `t${i}` })),
    ];
    const c = stringCardinality(docs);
    expect(c).toEqual({ status: 2, 'tags.$[]': 2, 'items.sku': 2, 'nested.k': 1, free: CARDINALITY_CAP + 1 });
  });
});

describe('BSON type names', () => {
  it('the dry run names BSON types as the census does (one list: src/lib/bson-types.ts)', () => {
    const doc: Record<string, unknown> = {
      re: /a+/i,
      bre: new BSONRegExp('a+', 'i'),
      code: new Code('function () {}'),
      scoped: new Code('function () {}', { x: 1 }),
      sym: new BSONSymbol('s'),
      min: new MinKey(),
      max: new MaxKey(),
      oid: new ObjectId(),
      at: new Date(0),
      ts: new Timestamp({ t: 1, i: 1 }),
      bin: new Binary(Buffer.from('ab')),
      uuid: new UUID(),
      buf: Buffer.from('ab'),
      dec: Decimal128.fromString('1.5'),
      l: Long.fromNumber(2 ** 40),
      i: new Int32(7),
      d: new Double(7.5),
      n: null,
      b: true,
      s: 'x',
      o: { a: 'x' },
      arr: [1],
    };
    const p = new Profiler(null);
    p.profile(doc);
    for (const [k, v] of Object.entries(doc))
      expect(Object.keys(p.fields.get(k)?.types ?? {}), k).toEqual(bsonTypesOf(v));
    expect(p.fields.get('scoped')?.types).toEqual({ javascriptWithScope: 1 });
    expect(p.fields.get('code')?.types).toEqual({ javascript: 1 });
  });
});

const defaults = resolveOptions<ValidatorOptions>('validator', validatorOptionsSchema, {});

/** A collection whose census is the profiler's over these documents (a random sample of them). */
function profiled(name: string, docs: readonly Doc[]): CollectionSnapshot {
  const p = new Profiler(null);
  for (const d of docs) p.profile(d);
  return collectionOf(name, { sample: sampleOf([], { size: docs.length, fields: Object.fromEntries(p.fields) }) });
}

/** A read-only adapter answering from a script, recording what it was sent. */
function scripted(replies: Record<string, (cmd: Doc) => Doc>): Adapter & { sent: Doc[] } {
  const sent: Doc[] = [];
  return {
    kind: 'driver',
    source: 'mongodb://scripted/',
    bson: {} as Adapter['bson'],
    get roundTrips() {
      return sent.length;
    },
    sent,
    async command(_db: string, cmd: Doc): Promise<Doc> {
      sent.push(cmd);
      const name = Object.keys(cmd)[0] ?? '';
      const reply = replies[name === 'count' && cmd.query === undefined ? 'countAll' : name];
      if (!reply) throw Object.assign(new Error(`${name} refused`), { code: 13, codeName: 'Unauthorized' });
      return await Promise.resolve(reply(cmd));
    },
    close: async () => undefined,
  };
}

function contextOf(
  adapter: Adapter,
  collection = collectionOf('students'),
  docs: readonly Doc[] = [],
  options: Doc = validatorOptions,
): CollectionContext & { notes: string[] } {
  const notes: string[] = [];
  return {
    adapter,
    collection,
    listed: { name: collection.name, type: 'collection', options },
    docs,
    ids: [],
    naturalIds: null,
    maxTimeMS: 1000,
    serverStatus: null,
    server: {} as CollectionContext['server'],
    note: (m) => void notes.push(m),
    notes,
    run: new Map(),
  };
}

const validatorOptions = { validator: { $jsonSchema: students }, validationLevel: 'strict', validationAction: 'error' };
const listing = () => ({
  cursor: {
    id: 0,
    ns: 'app.$cmd.listCollections',
    firstBatch: [{ name: 'students', type: 'collection', options: validatorOptions }],
  },
  ok: 1,
});
const withValidator = (over = {}) =>
  collectionOf('students', {
    validator: { present: true, jsonSchema: students, validationLevel: 'strict', validationAction: 'error' },
    ...over,
  });

describe('the validator collector', () => {
  it(
    'without a validator, too few documents to propose from: distinct strings per census path, no ' + 'command',
    async () => {
      const adapter = scripted({});
      const out = await validatorCollector.collect(
        contextOf(adapter, profiled('students', [{ status: 'a' }, { status: 'b' }]), [
          { status: 'a' },
          { status: 'b' },
        ]),
      );
      expect(out).toEqual({ stringCardinality: { status: 2 } });
      expect(adapter.sent).toEqual([]);
      expect(await validatorCollector.collect(contextOf(adapter))).toBeNull();
    },
  );

  it(
    'without a validator: the proposal (default options) checked in process and counted on the server with ' +
      '$nor/$jsonSchema (1 command)',
    async () => {
      const docs = Array.from({ length: 30 }, (_, i) => ({
        _id: i,
        status: i % 2 ? 'a' : 'b',
        note: i < 3 ? 'x' : null,
      }));
      const adapter = scripted({ count: () => ({ n: 4, ok: 1 }) });
      const c = profiled('students', docs);
      const out = await validatorCollector.collect(contextOf(adapter, c, docs));
      const p = proposeSchema(c, defaults);
      expect(p?.schema).toEqual({
        bsonType: 'object',
        required: ['_id', 'status'],
        properties: {
          _id: { bsonType: 'number' },
          note: { bsonType: ['null', 'string'] },
          status: { bsonType: 'string' },
        },
      });
      expect(out?.proposal).toEqual({
        fingerprint: schemaFingerprint(p?.schema),
        checked: 30,
        violations: 0,
        serverViolators: 4,
        serverDocuments: 1000,
      });
      expect(adapter.sent).toEqual([
        { count: 'students', query: { $nor: [{ $jsonSchema: p?.schema }] }, maxTimeMS: 1000 },
      ]);
    },
  );

  it(
    'without a validator: a server without $jsonSchema in queries leaves the count null, with its reason; ' +
      'keys of maps are never kept',
    async () => {
      const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, stock: { [`SKU-${i}`]: i } }));
      // the census as the profiler folds maps: stock.<key>
      const c = collectionOf('students', {
        sample: sampleOf([], {
          size: 30,
          fields: {
            _id: { present: 30, types: { int: 30 } },
            stock: { present: 30, types: { object: 30 } },
            'stock.<key>': { present: 30, types: { int: 30 } },
          },
        }),
      });
      const out = await validatorCollector.collect(contextOf(scripted({}), c, docs));
      expect(out?.proposal).toMatchObject({
        checked: 30,
        violations: 0,
        serverViolators: null,
        serverDocuments: null,
        serverReason: 'the server-side count failed: Unauthorized (13): count refused',
      });
      expect(JSON.stringify(out)).not.toContain('SKU');
    },
  );

  it('documents that are maps themselves: the proposal passes them, and no top-level key is kept', async () => {
    const docs = Array.from({ length: 30 }, (_, i) => ({
      _id: i,
      [`2024-03-${String((i % 28) + 1).padStart(2, '0')}`]: i,
      [`2024-04-${String((i % 28) + 1).padStart(2, '0')}`]: 'x',
    }));
    const c = collectionOf('daily', {
      sample: sampleOf([], {
        size: 30,
        dynamicKeys: [
          {
            path: '',
            objects: 30,
            distinctKeys: 56,
            medianKeys: 2,
            sharedKeyShare: 0,
            keyShapes: { date: 56 },
            valueTypes: { int: 30, string: 30 },
          },
        ],
        fields: { _id: { present: 30, types: { int: 30 } }, '<key>': { present: 60, types: { int: 30, string: 30 } } },
      }),
    });
    const out = await validatorCollector.collect(contextOf(scripted({}), c, docs));
    expect(out?.proposal).toMatchObject({ checked: 30, violations: 0 });
    expect(JSON.stringify(out)).not.toContain('2024-');
  });

  it(
    'with a validator: the sample checked in process, the failing documents counted on the server (1 command: ' +
      'the validator comes from the core listCollections)',
    async () => {
      const adapter = scripted({ listCollections: listing, count: () => ({ n: 3, ok: 1 }) });
      const out = await validatorCollector.collect(
        contextOf(adapter, withValidator(), [good, { ...good, year: 2016 }]),
      );
      expect(out?.dryRun).toMatchObject({
        checked: 2,
        violations: 1,
        byPath: { year: 1 },
        serverViolators: 3,
        serverDocuments: 1000,
      });
      expect(adapter.sent.map((c) => Object.keys(c)[0])).toEqual(['count']);
      expect(adapter.sent[0]).toMatchObject({
        count: 'students',
        query: { $nor: [validatorOptions.validator] },
        maxTimeMS: 1000,
      });
    },
  );

  it('counts the total itself when the storage statistics are missing (a second command)', async () => {
    const adapter = scripted({
      listCollections: listing,
      count: () => ({ n: 3, ok: 1 }),
      countAll: () => ({ n: 40, ok: 1 }),
    });
    const out = await validatorCollector.collect(contextOf(adapter, withValidator({ stats: null })));
    expect(out?.dryRun).toMatchObject({ serverViolators: 3, serverDocuments: 40 });
    expect(adapter.sent).toHaveLength(2);
  });

  it('a refused count leaves the server figures null, with the reason', async () => {
    const out = await validatorCollector.collect(
      contextOf(scripted({ listCollections: listing }), withValidator(), [good]),
    );
    expect(out?.dryRun).toMatchObject({
      checked: 1,
      violations: 0,
      serverViolators: null,
      serverDocuments: null,
      serverReason: 'the server-side count failed: Unauthorized (13): count refused',
    });
  });

  it('a count stopped by maxTimeMS says how to raise it', async () => {
    const adapter = scripted({
      listCollections: listing,
      count: () => {
        throw Object.assign(new Error('operation exceeded time limit'), { code: 50, codeName: 'MaxTimeMSExpired' });
      },
    });
    const out = await validatorCollector.collect(contextOf(adapter, withValidator()));
    expect(out?.dryRun?.serverReason).toBe(
      'the server-side count stopped at maxTimeMS (1000 ms); raise it (--max-time-ms on the CLI, { ' +
        'maxTimeMS } in mongosh) to count every document',
    );
  });

  it('keeps counts and paths only: its schema refuses anything else', () => {
    const schema = validatorCollector.schema as {
      additionalProperties: boolean;
      properties: { dryRun: { additionalProperties: boolean } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.dryRun.additionalProperties).toBe(false);
  });
});
