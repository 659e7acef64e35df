import {
  BSON,
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
import { ELEMENT_KIND } from '../core/types';
import { Profiler } from './profile';

/** The driver's own count of a document's BSON bytes, and of a value's bytes (without its type byte and key). */
const bsonSize = (doc: Record<string, unknown>): number => BSON.calculateObjectSize(doc);
const valueSize = (v: unknown): number => BSON.calculateObjectSize({ v }) - 8; // 4 length + 1 type + "v\0" + 1 end

function seq(n: number, f: (i: number) => unknown): unknown[] {
  return Array.from({ length: n }, (_, i) => f(i));
}

/** Each document exercises one family of values; sizes must equal calculateObjectSize for every one. */
const cases: Record<string, Record<string, unknown>> = {
  'empty document': {},
  'ASCII strings': { a: '', b: 'x', c: 'hello world', d: 'x'.repeat(24), e: 'y'.repeat(25), f: 'z'.repeat(1000) },
  'multi-byte UTF-8 strings (2, 3 and 4 bytes)': {
    latin: 'café naïve résumé',
    cjk: '日本語のテキスト',
    emoji: '😀👍🏽',
    mixedLong: `${'é'.repeat(40)}日本😀${'a'.repeat(30)}`,
    cyrillic: 'привет, мир — это длинная строка больше двадцати четырёх символов',
  },
  'multi-byte keys': { clé: 1, 名前: 'x', '😀': true, ['ключ'.repeat(10)]: 2 },
  'lone surrogates (encoded as U+FFFD)': {
    a: '\uD800',
    b: '\uDC00x',
    c: '\uD800\uD800',
    d: '\uD800é',
    e: `${'a'.repeat(30)}\uD800\uD800`,
  },
  'ints at the int32 edges': { a: 0, b: 1, c: -1, d: 2147483647, e: -2147483648, f: 2147483648, g: -2147483649 },
  doubles: { a: 1.5, b: -0, c: 1e300, d: Number.MAX_SAFE_INTEGER, e: 2 ** 40, f: NaN, g: Infinity },
  'driver number classes': {
    i: new Int32(7),
    d: new Double(7),
    l: Long.fromNumber(2 ** 40),
    n: 5n,
    dec: Decimal128.fromString('123.456'),
  },
  'null and booleans': { a: null, b: true, c: false },
  'ObjectId, Date, Timestamp': {
    _id: new ObjectId(),
    at: new Date(1_700_000_000_000),
    ts: new Timestamp({ t: 1_700_000_000, i: 3 }),
  },
  'Binary, UUID, Buffer': {
    bin: new Binary(Buffer.alloc(37, 1)),
    uuid: new UUID(),
    buf: Buffer.from('abc'),
    empty: new Binary(Buffer.alloc(0)),
  },
  'regular expressions, code, symbols, min/max keys': {
    re: /ab+c/gi,
    bre: new BSONRegExp('^é+$', 'im'),
    code: new Code('function () { return 1; }'),
    scoped: new Code('x + 1', { x: 1, s: 'é' }),
    sym: new BSONSymbol('sym'),
    min: new MinKey(),
    max: new MaxKey(),
  },
  'nested objects': { a: { b: { c: { d: 'deep', e: [1, 2] } }, f: {} }, g: { h: null } },
  'arrays of scalars': {
    ints: [1, 2, 3],
    strs: ['a', 'bé', '😀'],
    mixed: [1, 'x', null, true, 2.5, new Date(0)],
    empty: [],
  },
  'arrays of objects': {
    comments: seq(12, (i) => ({ author: `u${i}`, text: 'é'.repeat(i), at: new Date(i), likes: i })),
  },
  'arrays of arrays': { grid: [[1, 2], [3], [], [[4, 5], ['x']]] },
  'arrays of ObjectIds and Binary': {
    refs: seq(5, () => new ObjectId()),
    blobs: [new Binary(Buffer.alloc(3)), new UUID()],
  },
  'arrays across key-width boundaries': {
    a9: seq(9, (i) => i),
    a10: seq(10, (i) => i),
    a11: seq(11, (i) => i),
    a100: seq(100, (i) => i),
    a101: seq(101, (i) => i),
    a1001: seq(1001, (i) => i),
    a10001: seq(10_001, () => 0),
  },
  'undefined array elements (encoded as null)': { a: [undefined, 1, undefined] },
  'blog post': {
    _id: new ObjectId(),
    title: 'Embedding versus referencing',
    tags: ['mongodb', 'schema'],
    createdAt: new Date(),
    views: 1234,
    score: 4.5,
    published: true,
    comments: seq(30, (i) => ({
      author: `user${i}`,
      text: `comment ${i} — ${'x'.repeat(i)}`,
      createdAt: new Date(i * 1000),
      likes: i * 3,
      replies: seq(i % 3, (j) => ({ text: `r${j}` })),
    })),
  },
};

describe('Profiler BSON sizes', () => {
  for (const [name, doc] of Object.entries(cases)) {
    it(`equals BSON.calculateObjectSize: ${name}`, () => {
      const p = new Profiler(null);
      const prof = p.profile(doc);
      expect(prof.bytes).toBe(bsonSize(doc));
      expect(prof.bytes).toBe(BSON.serialize(doc).length);
      // Top-level arrays: the array's own bytes as BSON encodes it.
      for (const a of prof.arrays) {
        if (a.path.includes('.')) continue;
        expect(a.bytes, a.path).toBe(valueSize(doc[a.path]));
      }
      // The largest fields: type byte + key + value.
      for (const f of prof.largestFields) expect(f.bytes, f.path).toBe(bsonSize({ [f.path]: doc[f.path] }) - 5);
    });
  }

  it('equals calculateObjectSize on documents as the driver deserializes them', () => {
    const p = new Profiler(null);
    for (const doc of Object.values(cases)) {
      const back = BSON.deserialize(BSON.serialize(doc));
      expect(p.profile(back).bytes).toBe(bsonSize(back));
    }
  });

  it('skips undefined fields, as the driver does when it serializes', () => {
    const doc = { a: 1, b: undefined, c: 'x' };
    expect(new Profiler(null).profile(doc).bytes).toBe(bsonSize(doc));
  });

  it('sums nested array paths over every occurrence in a document', () => {
    const doc = cases['blog post'] as { comments: { replies: unknown[] }[] };
    const prof = new Profiler(null).profile(doc);
    const replies = prof.arrays.find((a) => a.path === 'comments.replies');
    const expected = doc.comments.reduce((s, c) => s + valueSize(c.replies), 0);
    expect(replies).toMatchObject({
      occurrences: 30,
      bytes: expected,
      totalLength: doc.comments.reduce((s, c) => s + c.replies.length, 0),
      maxLength: 2,
      kinds: ELEMENT_KIND.object,
    });
  });
});

describe('Profiler census and array statistics', () => {
  it('counts each path and type across documents, in the order first seen', () => {
    const p = new Profiler(null);
    p.profile({ a: 1, b: 'x', tags: ['t', 2] });
    p.profile({ a: 'y', c: { d: null }, tags: [] });
    p.profile({ a: 2.5 });
    expect([...p.fields.keys()]).toEqual(['a', 'b', 'tags', 'tags.$[]', 'c', 'c.d']);
    expect(p.fields.get('a')).toEqual({ present: 3, types: { int: 1, string: 1, double: 1 } });
    expect(Object.keys(p.fields.get('a')?.types ?? {})).toEqual(['int', 'string', 'double']);
    expect(p.fields.get('tags.$[]')).toEqual({ present: 2, types: { string: 1, int: 1 } });
    expect(p.fields.get('tags')).toEqual({ present: 2, types: { array: 2 } });
    expect(p.fields.get('c')).toEqual({ present: 1, types: { object: 1 } });
    expect(p.fields.get('c.d')).toEqual({ present: 1, types: { null: 1 } });
  });

  it('counts fields of objects inside arrays under the array path, once per element', () => {
    const p = new Profiler(null);
    p.profile({ comments: [{ by: 'a', at: new Date(0) }, { by: 'b' }, { by: 3 }] });
    expect(p.fields.get('comments.by')).toEqual({ present: 3, types: { string: 2, int: 1 } });
    expect(p.fields.get('comments.at')).toEqual({ present: 1, types: { date: 1 } });
    expect(p.fields.has('comments.$[]')).toBe(false);
  });

  it('keeps a key holding a dot (`"a.b"`), a `$` key and an empty key apart from the nested paths', () => {
    const p = new Profiler(null);
    for (let i = 0; i < 3; i++) p.profile({ 'a.b': 1, a: { b: 'x', '': true, 'c.d': [1] }, $in: null });
    expect([...p.fields.keys()]).toEqual(['"a.b"', 'a', 'a.b', 'a.""', 'a."c.d"', 'a."c.d".$[]', '$in']);
    expect(p.fields.get('"a.b"')).toEqual({ present: 3, types: { int: 3 } });
    expect(p.fields.get('a.b')).toEqual({ present: 3, types: { string: 3 } });
    expect(p.fields.get('a.""')).toEqual({ present: 3, types: { bool: 3 } });
    expect(p.fields.get('$in')).toEqual({ present: 3, types: { null: 3 } });
  });

  it('reports each document its own arrays, in the order they end', () => {
    const p = new Profiler(null);
    const first = p.profile({ x: [1, 2, 3], y: [[1], [2, 3]] });
    const second = p.profile({ y: [[4]] });
    const third = p.profile({ z: 1 });
    expect(first.arrays.map((a) => a.path)).toEqual(['x', 'y.$[]', 'y']);
    expect(first.arrays.find((a) => a.path === 'y.$[]')).toMatchObject({
      occurrences: 2,
      maxLength: 2,
      totalLength: 3,
      kinds: ELEMENT_KIND.number,
    });
    expect(second.arrays).toEqual([
      {
        path: 'y.$[]',
        occurrences: 1,
        maxLength: 1,
        totalLength: 1,
        bytes: valueSize([4]),
        elementBytes: 4,
        kinds: ELEMENT_KIND.number,
      },
      {
        path: 'y',
        occurrences: 1,
        maxLength: 1,
        totalLength: 1,
        bytes: valueSize([[4]]),
        elementBytes: valueSize([4]),
        kinds: ELEMENT_KIND.array,
      },
    ]);
    expect(third.arrays).toEqual([]);
  });

  it('marks element kinds: objects, ObjectIds, strings, numbers and others', () => {
    const prof = new Profiler(null).profile({
      a: [{ x: 1 }, new ObjectId(), 's', 1, 2n, Long.fromNumber(1), true, new Date(0), null],
    });
    expect(prof.arrays[0]?.kinds).toBe(
      ELEMENT_KIND.object | ELEMENT_KIND.objectId | ELEMENT_KIND.string | ELEMENT_KIND.number | ELEMENT_KIND.other,
    );
  });

  it('keeps the three largest top-level fields, ties in document order', () => {
    const prof = new Profiler(null).profile({ a: 'xx', b: 'yy', c: 'z'.repeat(50), d: 'ww', e: 1 });
    expect(prof.largestFields).toEqual([
      { path: 'c', bytes: 2 + 1 + 5 + 50 },
      { path: 'a', bytes: 2 + 1 + 5 + 2 },
      { path: 'b', bytes: 2 + 1 + 5 + 2 },
    ]);
  });

  it('reads the creation time from an ObjectId _id or a date field, and nothing else', () => {
    const id = ObjectId.createFromTime(1_700_000_000);
    expect(new Profiler('_id').profile({ _id: id }).createdAt).toBe(1_700_000_000_000);
    expect(new Profiler('_id').profile({ _id: 'not an ObjectId' }).createdAt).toBeNull();
    expect(new Profiler('createdAt').profile({ createdAt: new Date(5) }).createdAt).toBe(5);
    expect(new Profiler('createdAt').profile({ createdAt: '2024-01-01' }).createdAt).toBeNull();
    expect(new Profiler(null).profile({ _id: id }).createdAt).toBeNull();
  });
});

/** `n` keys shaped like SKUs, from `from` on: `SKU-00042`. */
const skus = (from: number, n: number): string[] =>
  seq(n, (i) => `SKU-${String(from + i).padStart(5, '0')}`) as string[];

/** Everything a finished profile hands on, as one string: no map key may appear in it. */
const everything = (r: ReturnType<Profiler['finish']>): string =>
  JSON.stringify({ fields: [...r.fields], dynamicKeys: r.dynamicKeys, docs: r.docs });

describe('Profiler.finish: objects used as maps', () => {
  it('folds SKU-keyed maps to `<key>`: census, document profiles and sizes, with no key kept', () => {
    const p = new Profiler(null);
    const docs = seq(30, (i) => ({
      _id: i,
      itemsBySku: Object.fromEntries(skus(i * 3, 1 + (i % 3)).map((k, j) => [k, j + 1])),
      total: 3,
    })) as Record<string, unknown>[];
    const profiles = docs.map((d) => p.profile(d));
    profiles.forEach((prof, i) => expect(prof.bytes).toBe(bsonSize(docs[i] as Record<string, unknown>)));
    const r = p.finish(profiles);
    expect([...r.fields.keys()]).toEqual(['_id', 'itemsBySku', 'itemsBySku.<key>', 'total']);
    const keys = docs.reduce((s, d) => s + Object.keys(d.itemsBySku as object).length, 0);
    expect(r.fields.get('itemsBySku.<key>')).toEqual({ present: keys, types: { int: keys } });
    expect(r.dynamicKeys).toEqual([
      {
        path: 'itemsBySku',
        objects: 30,
        distinctKeys: keys,
        medianKeys: 2,
        sharedKeyShare: 0,
        keyShapes: { code: keys },
        valueTypes: { int: keys },
      },
    ]);
    expect(everything(r)).not.toMatch(/SKU-/);
  });

  it('folds values under the keys too, and sums the arrays of one document that fold to one path', () => {
    const p = new Profiler(null);
    const day = (d: number): string => `2024-01-${String(d).padStart(2, '0')}`;
    const docs = seq(12, (i) => ({
      byDay: Object.fromEntries(
        seq(3, (j) => [day(((i + j) % 28) + 1), { count: j, events: seq(j + 1, (k) => k) }]) as [string, unknown][],
      ),
    })) as Record<string, unknown>[];
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect([...r.fields.keys()]).toEqual([
      'byDay',
      'byDay.<key>',
      'byDay.<key>.count',
      'byDay.<key>.events',
      'byDay.<key>.events.$[]',
    ]);
    expect(r.fields.get('byDay.<key>.count')).toEqual({ present: 36, types: { int: 36 } });
    expect(r.dynamicKeys.map((m) => [m.path, m.keyShapes])).toEqual([['byDay', { date: 14 }]]);
    const first = docs[0] as { byDay: Record<string, { events: number[] }> };
    const events = Object.values(first.byDay).map((v) => v.events);
    expect(r.docs[0]?.arrays).toEqual([
      {
        path: 'byDay.<key>.events',
        occurrences: 3,
        maxLength: 3,
        totalLength: 6,
        bytes: events.reduce((s, e) => s + valueSize(e), 0),
        elementBytes: 6 * 4,
        kinds: ELEMENT_KIND.number,
      },
    ]);
    expect(everything(r)).not.toMatch(/2024-/);
  });

  it('folds a map of maps twice, and maps inside arrays of objects', () => {
    const p = new Profiler(null);
    const docs = seq(20, (i) => ({
      visits: Object.fromEntries(
        seq(2, (j) => [
          new ObjectId().toHexString(),
          Object.fromEntries(seq(2, (k) => [`${1000 + i * 10 + j * 3 + k}`, 1]) as [string, unknown][]),
        ]) as [string, unknown][],
      ),
      orders: [
        { qtyBySku: Object.fromEntries(skus(i * 2, 2).map((k) => [k, 1])) },
        { qtyBySku: Object.fromEntries(skus(500 + i, 1).map((k) => [k, 2])) },
      ],
    })) as Record<string, unknown>[];
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect(r.dynamicKeys.map((m) => [m.path, m.objects, m.keyShapes])).toEqual([
      ['visits', 20, { objectId: 40 }],
      ['visits.<key>', 40, { integer: 80 }],
      ['orders.qtyBySku', 40, { code: 60 }],
    ]);
    expect([...r.fields.keys()]).toEqual([
      'visits',
      'visits.<key>',
      'visits.<key>.<key>',
      'orders',
      'orders.qtyBySku',
      'orders.qtyBySku.<key>',
    ]);
    expect(everything(r)).not.toMatch(/SKU-|[0-9a-f]{24}|"1\d{3}"/);
  });

  it('folds word-shaped keys when each object holds few of many (user names as field names)', () => {
    const p = new Profiler(null);
    const names = [
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
      'frank',
      'grace',
      'heidi',
      'ivan',
      'judy',
      'mallory',
      'niaj',
      'olivia',
      'peggy',
      'rupert',
      'sybil',
      'trent',
      'victor',
      'walter',
      'yolanda',
    ];
    const docs = seq(40, (i) => ({
      likedBy: { [names[i % 20] as string]: true, [names[(i + 7) % 20] as string]: true },
    })) as Record<string, unknown>[];
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect(r.dynamicKeys).toMatchObject([
      { path: 'likedBy', objects: 40, distinctKeys: 20, medianKeys: 2, keyShapes: { word: 20 } },
    ]);
    expect(everything(r)).not.toMatch(/alice|yolanda/);
  });

  it('keeps sub-documents whose keys are a schema: shared fields, sparse optional fields, numbered fields', () => {
    const p = new Profiler(null);
    const flags = seq(12, (i) => `flag${String.fromCharCode(97 + i)}`) as string[];
    const docs = seq(50, (i) => ({
      address: { street: 's', city: 'c', zip: 'z', line1: 'a', line2: 'b', line3: 'c' },
      settings: Object.fromEntries(flags.filter((_, j) => (i + j) % 3 === 0).map((f) => [f, true])),
      meta: i % 2 ? { a: 1 } : { b: 2 },
    })) as Record<string, unknown>[];
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect(r.dynamicKeys).toEqual([]);
    expect(r.fields.has('address.line2')).toBe(true);
    expect(r.fields.has('settings.flagl')).toBe(true);
  });

  it('bounds memory: past maxKeysPerPath keys are counted, not kept, sizes stay exact, and the path folds', () => {
    const p = new Profiler(null, { maxKeysPerPath: 50 });
    const docs = seq(3, (i) => ({
      _id: i,
      byUser: Object.fromEntries(seq(200, (j) => [`user-${i * 200 + j}é`, { n: j }]) as [string, unknown][]),
    })) as Record<string, unknown>[];
    const profiles = docs.map((d) => p.profile(d));
    profiles.forEach((prof, i) => expect(prof.bytes).toBe(bsonSize(docs[i] as Record<string, unknown>)));
    // the census holds the 50 kept keys and one `<key>` for the rest, not 600 entries
    expect(p.fields.size).toBeLessThan(2 + 2 * 51 + 2);
    const r = p.finish(profiles);
    expect(r.dynamicKeys).toMatchObject([
      { path: 'byUser', objects: 3, distinctKeys: 600, medianKeys: 200, keyShapes: { code: 600 } },
    ]);
    expect(r.fields.get('byUser.<key>.n')).toEqual({ present: 600, types: { int: 600 } });
    expect(everything(r)).not.toMatch(/user-/);
  });

  it('leaves everything as it was when there is no map', () => {
    const p = new Profiler(null);
    const docs = seq(30, (i) => ({ _id: i, name: `n${i}`, a: [1, 2], address: { city: 'c' } })) as Record<
      string,
      unknown
    >[];
    const profiles = docs.map((d) => p.profile(d));
    const r = p.finish(profiles);
    expect(r.dynamicKeys).toEqual([]);
    expect(r.docs).toBe(profiles);
    expect(r.fields).toEqual(p.fields);
  });

  it('folds the document itself when its keys besides _id are data (dates as field names); _id stays', () => {
    const p = new Profiler(null);
    const day = (d: number): string => `2024-03-${String(d).padStart(2, '0')}`;
    const docs = seq(20, (i) => ({
      _id: i,
      ...Object.fromEntries(seq(3, (j) => [day(((i + j) % 28) + 1), { visits: [j, j + 1] }]) as [string, unknown][]),
    })) as Record<string, unknown>[];
    const profiles = docs.map((d) => p.profile(d));
    profiles.forEach((prof, i) => expect(prof.bytes).toBe(bsonSize(docs[i] as Record<string, unknown>)));
    const r = p.finish(profiles);
    expect(r.dynamicKeys).toMatchObject([
      { path: '', objects: 20, distinctKeys: 22, medianKeys: 3, keyShapes: { date: 22 } },
    ]);
    expect([...r.fields.keys()]).toEqual(['_id', '<key>', '<key>.visits', '<key>.visits.$[]']);
    expect(r.fields.get('<key>')).toEqual({ present: 60, types: { object: 60 } });
    expect(r.docs[0]?.arrays.map((a) => [a.path, a.occurrences])).toEqual([['<key>.visits', 3]]);
    expect(r.docs[0]?.largestFields.map((f) => f.path)).toEqual(['<key>', '<key>', '<key>']);
    expect(everything(r)).not.toMatch(/2024-/);
  });

  it('keeps a polymorphic collection: word-shaped top-level fields, each kind of document holding its own few', () => {
    const p = new Profiler(null);
    const verbs = ['click', 'view', 'buy', 'share', 'login', 'logout', 'search', 'rate', 'cart', 'refund'];
    const kinds = seq(10, (k) =>
      seq(3, (j) => `${verbs[k] as string}${['At', 'By', 'Ref'][j] as string}`),
    ) as string[][];
    const docs = seq(40, (i) => ({
      _id: i,
      ...Object.fromEntries((kinds[i % 10] as string[]).map((f) => [f, 1])),
    })) as Record<string, unknown>[];
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect(r.dynamicKeys).toEqual([]);
    expect(r.fields.has('clickAt')).toBe(true);
  });

  it("caps the document's own keys too (never _id): past maxKeysPerPath they fold, sizes stay exact", () => {
    const p = new Profiler(null, { maxKeysPerPath: 20 });
    const docs = seq(4, (i) => ({
      _id: `id${i}`,
      ...Object.fromEntries(seq(30, (j) => [`metric_${i * 30 + j}ü`, j]) as [string, unknown][]),
    })) as Record<string, unknown>[];
    const profiles = docs.map((d) => p.profile(d));
    profiles.forEach((prof, i) => expect(prof.bytes).toBe(bsonSize(docs[i] as Record<string, unknown>)));
    const r = p.finish(profiles);
    expect(r.dynamicKeys).toMatchObject([{ path: '', objects: 4, distinctKeys: 120 }]);
    expect([...r.fields.keys()]).toEqual(['_id', '<key>']);
    expect(r.fields.get('_id')).toEqual({ present: 4, types: { string: 4 } });
    expect(everything(r)).not.toMatch(/metric_/);
  });
});
