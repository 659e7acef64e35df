import { BSONRegExp, Decimal128, Double, Int32, Long, ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  collationOf,
  formatShape,
  inBucket,
  shapesOf,
  typeOf,
  type Predicate,
  type QueryShape,
} from '../../src/workload/shape';

const one = (cmd: Record<string, unknown>, db = 'shop'): QueryShape => {
  const s = shapesOf(cmd, db);
  expect(s).toHaveLength(1);
  return s[0] as QueryShape;
};
const pred = (s: { predicates: Predicate[] }, path: string): Predicate | undefined =>
  s.predicates.find((p) => p.path === path);

describe('typeOf: values become their placeholder type', () => {
  it('names every numeric width "number", as the server shape does', () => {
    for (const v of [1, 1.5, 2n, new Int32(3), new Long(4), new Double(5.5), Decimal128.fromString('6.1')]) {
      expect(typeOf(v)).toBe('number');
    }
  });
  it('names other BSON types', () => {
    expect([typeOf('x'), typeOf(true), typeOf(null), typeOf(new Date()), typeOf(new ObjectId())]).toEqual([
      'string',
      'bool',
      'null',
      'date',
      'objectId',
    ]);
    const types = [typeOf([1]), typeOf({ a: 1 }), typeOf(/x/), typeOf(new BSONRegExp('x'))];
    expect(types).toEqual(['array', 'object', 'regex', 'regex']);
  });
  it('buckets $in sizes at 1, 10 and 200', () => {
    expect([1, 2, 10, 11, 200, 201].map(inBucket)).toEqual(['1', '2-10', '2-10', '11-200', '11-200', '>200']);
  });
});

describe('shapesOf: values and predicate order do not matter', () => {
  const sort = { createdAt: -1 };
  const a = { find: 'orders', filter: { status: 'paid', customerId: new ObjectId() }, sort, limit: 5 };
  const b = { find: 'orders', filter: { customerId: new ObjectId(), status: 'open' }, sort, limit: 50 };
  it('gives one id to commands that differ only in values and key order', () => {
    expect(one(a).id).toBe(one(b).id);
    expect(one(a).id).toMatch(/^[0-9a-f]{16}$/);
  });
  it('keeps types, sort direction, collection and database apart', () => {
    const ids = new Set([
      one(a).id,
      one({ ...a, filter: { status: 1, customerId: new ObjectId() } }).id,
      one({ ...a, sort: { createdAt: 1 } }).id,
      one({ ...a, find: 'carts' }).id,
      one(a, 'other').id,
      one({ ...a, sort: { createdAt: -1, _id: 1 } }).id,
    ]);
    expect(ids.size).toBe(6);
  });
  it('notes a $natural sort instead of reading it as a field', () => {
    const s = one({ find: 'e', filter: { a: 1 }, sort: { $natural: -1 } });
    expect([s.sort, s.unindexable]).toEqual([[], [{ op: '$natural' }]]);
  });
  it('keeps sort keys in their order', () => {
    const s = one({ find: 'e', filter: {}, sort: { b: 1, a: -1 } });
    expect(s.sort).toEqual([
      { path: 'b', direction: 1 },
      { path: 'a', direction: -1 },
    ]);
  });
});

describe('shapesOf: what each operator counts as', () => {
  it('implicit and $eq equalities, one-element $in as an equality', () => {
    const s = one({ find: 'o', filter: { a: 1, b: { $eq: 'x' }, c: { $in: ['y'] } } });
    expect(s.predicates.map((p) => [p.path, p.role, Object.keys(p.ops)])).toEqual([
      ['a', 'equality', ['$eq']],
      ['b', 'equality', ['$eq']],
      ['c', 'equality', ['$eq']],
    ]);
    expect(one({ find: 'o', filter: { c: { $in: ['y'] } } }).id).toBe(one({ find: 'o', filter: { c: 'z' } }).id);
  });
  it('$in of several values is an equality with its size bucket', () => {
    const s = one({ find: 'o', filter: { c: { $in: Array.from({ length: 250 }, (_, i) => i) } } });
    expect(pred(s, 'c')).toMatchObject({ role: 'equality', in: '>200', ops: { $in: ['number'] } });
    expect(one({ find: 'o', filter: { c: { $in: [1, 2] } } }).id).not.toBe(s.id);
  });
  it('comparisons, $ne, $nin, $exists and $type are ranges; merged per path', () => {
    const filter = {
      d: { $gte: new Date(), $lt: new Date() },
      e: { $ne: 1 },
      f: { $nin: [1, 'a'] },
      g: { $exists: true },
      h: { $type: 'string' },
    };
    const s = one({ find: 'o', filter });
    expect(s.predicates.every((p) => p.role === 'range')).toBe(true);
    expect(pred(s, 'd')?.ops).toEqual({ $gte: ['date'], $lt: ['date'] });
    expect(pred(s, 'f')?.ops).toEqual({ $nin: ['number', 'string'] });
  });
  it('$all is an equality (the index bounds one element)', () => {
    expect(pred(one({ find: 'o', filter: { tags: { $all: ['a', 'b'] } } }), 'tags')?.role).toBe('equality');
  });
  it('keeps regex anchoring and the i flag, in every spelling', () => {
    const facts = (f: Record<string, unknown>): unknown => pred(one({ find: 'o', filter: f }), 'sku')?.regex;
    expect(facts({ sku: /^AB-1/ })).toEqual({ anchored: true, caseInsensitive: false });
    expect(facts({ sku: /ab/i })).toEqual({ anchored: false, caseInsensitive: true });
    expect(facts({ sku: new BSONRegExp('^ab', 'i') })).toEqual({ anchored: true, caseInsensitive: true });
    expect(facts({ sku: { $regex: '^a|b' } })).toEqual({ anchored: false, caseInsensitive: false });
    expect(facts({ sku: { $regex: '^(a|b)', $options: 'i' } })).toEqual({ anchored: false, caseInsensitive: true });
    expect(facts({ sku: { $regex: '^ab(c|d)' } })).toEqual({ anchored: true, caseInsensitive: false });
    expect(facts({ sku: { $regex: '\\Aab[|]' } })).toEqual({ anchored: true, caseInsensitive: false });
    expect(facts({ sku: { $regex: '^\\.ab' } })).toEqual({ anchored: true, caseInsensitive: false });
  });
  it('anchors as the server bounds: no ^ under m, no optional or special first character', () => {
    const anchored = (f: Record<string, unknown>): boolean | undefined =>
      pred(one({ find: 'o', filter: f }), 'k')?.regex?.anchored;
    expect([anchored({ k: /^ab/m }), anchored({ k: new BSONRegExp('\\Aab', 'm') })]).toEqual([false, true]);
    expect([anchored({ k: /^f?oo/ }), anchored({ k: /^.x/ }), anchored({ k: /^\d+/ }), anchored({ k: /^/ })]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(pred(one({ find: 'o', filter: { sku: /^a/ } }), 'sku')?.role).toBe('range');
  });
  it('notes $where, $expr, $text, geo and $meta sorts as unindexable', () => {
    const s = one({
      find: 'o',
      filter: { $where: 'x', $expr: { $gt: ['$a', '$b'] }, $text: { $search: 'q' }, loc: { $near: [0, 0] } },
      sort: { score: { $meta: 'textScore' } },
    });
    expect(s.unindexable).toEqual([
      { op: '$expr' },
      { op: '$meta', path: 'score' },
      { op: '$near', path: 'loc' },
      { op: '$text' },
      { op: '$where' },
    ]);
    expect(s.predicates).toEqual([]);
  });
});

describe('shapesOf: logical operators, arrays and paths', () => {
  it('flattens $and and sorts predicates by path', () => {
    const flat = one({ find: 'o', filter: { b: 1, a: { $gt: 2 } } });
    const anded = one({ find: 'o', filter: { $and: [{ a: { $gt: 3 } }, { $and: [{ b: 4 }] }] } });
    expect(anded.id).toBe(flat.id);
    expect(anded.predicates.map((p) => p.path)).toEqual(['a', 'b']);
  });
  it('keeps each $or branch as its own filter, in canonical order', () => {
    const x = one({ find: 'o', filter: { s: 1, $or: [{ a: 1 }, { b: { $gt: 2 }, c: 3 }] } });
    const y = one({ find: 'o', filter: { $or: [{ c: 9, b: { $gt: 1 } }, { a: 7 }], s: 2 } });
    expect(x.id).toBe(y.id);
    expect(x.or).toHaveLength(1);
    expect(x.or[0]?.map((b) => b.predicates.map((p) => p.path))).toEqual([['a'], ['b', 'c']]);
    expect(one({ find: 'o', filter: { $or: [{ a: 1 }] } }).id).toBe(one({ find: 'o', filter: { a: 2 } }).id);
  });
  it('walks $elemMatch fields under the array path', () => {
    const items = { $elemMatch: { sku: 'a', qty: { $gt: 1 } } };
    const filter = { items, scores: { $elemMatch: { $gte: 1, $lt: 9 } } };
    const s = one({ find: 'o', filter });
    expect(s.predicates.map((p) => [p.path, p.role, p.elemMatch])).toEqual([
      ['items.qty', 'range', 'items'],
      ['items.sku', 'equality', 'items'],
      ['scores', 'range', 'scores'],
    ]);
  });
  it('keeps dotted paths as written', () => {
    expect(pred(one({ find: 'o', filter: { 'address.city': 'x' } }), 'address.city')?.role).toBe('equality');
  });
  it('reads an object literal as an equality on the whole field', () => {
    expect(pred(one({ find: 'o', filter: { address: { city: 'x' } } }), 'address')?.ops).toEqual({ $eq: ['object'] });
  });
});

describe('shapesOf: every command that queries', () => {
  it('aggregate: leading $match, $sort and $limit, and $lookup foreign fields', () => {
    const shapes = shapesOf(
      {
        aggregate: 'customers',
        pipeline: [
          { $match: { region: 'EU' } },
          { $sort: { since: -1 } },
          { $match: { tier: 1 } },
          { $limit: 10 },
          { $lookup: { from: 'orders', localField: '_id', foreignField: 'customerId', as: 'orders' } },
          { $match: { late: true } },
        ],
        cursor: {},
      },
      'shop',
    );
    expect(shapes.map((s) => [s.coll, s.command])).toEqual([
      ['customers', 'aggregate'],
      ['orders', 'lookup'],
    ]);
    expect(shapes[0]?.predicates.map((p) => p.path)).toEqual(['region', 'tier']);
    expect(shapes[0]?.sort).toEqual([{ path: 'since', direction: -1 }]);
    expect(shapes[0]?.limit).toBe(true);
    expect(shapes[1]?.predicates).toEqual([{ path: 'customerId', role: 'equality', ops: { $eq: [] } }]);
  });
  it('update and delete: one shape per distinct statement', () => {
    const u = shapesOf(
      {
        update: 'orders',
        updates: [
          { q: { status: 'a', date: { $lt: new Date() } }, u: { $set: { x: 1 } }, multi: true },
          { q: { status: 'b', date: { $lt: new Date() } }, u: { $set: { x: 2 } }, multi: true },
          { q: { _id: 1 }, u: { x: 3 } },
        ],
      },
      'shop',
    );
    const roles = u.map((s) => s.predicates.map((p) => `${p.path}:${p.role}`));
    expect(roles).toEqual([['date:range', 'status:equality'], ['_id:equality']]);
    const d = shapesOf({ delete: 'events', deletes: [{ q: { type: 'x' }, limit: 0 }] }, 'shop');
    expect(d.map((s) => [s.command, s.predicates[0]?.path])).toEqual([['delete', 'type']]);
  });
  it('count, distinct and findAndModify', () => {
    expect(one({ count: 'o', query: { a: 1 } }).predicates[0]?.path).toBe('a');
    const dist = one({ distinct: 'o', key: 'sku', query: { a: { $gt: 1 } } });
    expect([dist.distinctKey, dist.predicates[0]?.role]).toEqual(['sku', 'range']);
    const fam = one({ findAndModify: 'q', query: { state: 'new' }, sort: { at: 1 }, update: { $set: { state: 'x' } } });
    expect([fam.command, fam.sort[0]?.path, fam.predicates[0]?.path]).toEqual(['findAndModify', 'at', 'state']);
  });
  it('has no shape for an insert or a getMore', () => {
    expect(shapesOf({ insert: 'o', documents: [{ a: 1 }] }, 'shop')).toEqual([]);
    expect(shapesOf({ getMore: new Long(1), collection: 'o' }, 'shop')).toEqual([]);
  });
});

describe('no value reaches a shape or its printed form', () => {
  const MARK = 'MARKER_7f3a';
  const NUM = 918273645;
  const cmds: Record<string, unknown>[] = [
    {
      find: 'orders',
      filter: { status: MARK, n: NUM, s: { $in: [MARK, `${MARK}2`] }, r: new RegExp(`^${MARK}`, 'i') },
      sort: { at: -1 },
      limit: NUM,
    },
    { find: 'o', filter: { $or: [{ a: MARK }, { b: { $gt: NUM } }], c: { $nin: [MARK] }, d: { $not: { $eq: MARK } } } },
    { find: 'orders', filter: { items: { $elemMatch: { sku: MARK, qty: { $lte: NUM } } }, t: { $all: [MARK] } } },
    { find: 'o', filter: { $where: `this.x == "${MARK}"`, $expr: { $eq: ['$a', MARK] }, loc: { $near: [NUM, 1] } } },
    { aggregate: 'orders', pipeline: [{ $match: { a: { $regex: MARK, $options: 'i' } } }, { $limit: NUM }] },
    { update: 'orders', updates: [{ q: { a: MARK, b: { $gte: new Date(NUM) } }, u: { $set: { c: MARK } } }] },
    { delete: 'orders', deletes: [{ q: { a: new ObjectId(), b: new Long(NUM) }, limit: 1 }] },
    { count: 'orders', query: { a: MARK } },
    { distinct: 'orders', key: 'k', query: { a: { $type: MARK } } },
    { findAndModify: 'orders', query: { a: MARK }, sort: { b: 1 }, update: { $set: { c: NUM } } },
  ];
  it('plants markers in every operator and finds none in the shapes or their text', () => {
    let count = 0;
    for (const cmd of cmds) {
      for (const s of shapesOf(cmd, 'shop')) {
        count++;
        for (const text of [JSON.stringify(s), formatShape(s)]) {
          expect(text).not.toContain(MARK);
          expect(text).not.toContain(String(NUM));
          expect(text).not.toContain(MARK.toLowerCase());
        }
      }
    }
    expect(count).toBe(cmds.length);
  });
  it('prints placeholders, regex anchoring and $in buckets', () => {
    const [s] = shapesOf(cmds[0] as Record<string, unknown>, 'shop');
    expect(formatShape(s as QueryShape)).toBe(
      'db.orders.find({ n: ?number, r: /^…/i, s: { $in: [?string ×2-10] }, status: ?string })' +
        '.sort({ at: -1 }).limit(?)',
    );
  });
});

describe('shapesOf with placeholders: a shape the server made ($queryStats)', () => {
  it('reads "?type" placeholders as the types a real command of that shape has', () => {
    const sort = { createdAt: -1 };
    const filter = { status: { $eq: '?string' }, createdAt: { $gte: '?date' } };
    const server = { find: 'orders', filter, sort, limit: '?number' };
    const real = { find: 'orders', filter: { createdAt: { $gte: new Date() }, status: 'paid' }, sort, limit: 5 };
    const [s] = shapesOf(server, 'shop', { placeholders: true });
    expect(s?.id).toBe(one(real).id);
    expect(one(server).id).not.toBe(s?.id);
  });
  it('reads an "?array<…>" $in as an equality of unknown size, and leaves other strings alone', () => {
    const filter = { a: { $in: '?array<?number>' }, b: '?nonsense', c: '?int' };
    const [s] = shapesOf({ find: 'o', filter }, 'db', { placeholders: true });
    expect(s?.predicates).toEqual([
      { path: 'a', role: 'equality', ops: { $in: ['number'] } },
      { path: 'b', role: 'equality', ops: { $eq: ['string'] } },
      { path: 'c', role: 'equality', ops: { $eq: ['number'] } },
    ]);
  });
});

describe('collation: a setting, kept when not simple', () => {
  it('keeps known settings with well-formed values and drops the rest', () => {
    expect(collationOf({ locale: 'en', strength: 2, caseLevel: true, backwards: 'yes', extra: 'x' })).toEqual({
      locale: 'en',
      strength: 2,
      caseLevel: true,
    });
    expect(collationOf({ locale: 'de@collation=phonebook', caseFirst: 'upper' })).toEqual({
      locale: 'de@collation=phonebook',
      caseFirst: 'upper',
    });
    const dropped = [collationOf({ locale: 'simple' }), collationOf({ locale: 'Not A Locale' }), collationOf(null)];
    expect(dropped).toEqual([undefined, undefined, undefined]);
  });
  it('gives a query under a collation its own shape, and a $lookup the pipeline collation', () => {
    const base = { find: 'o', filter: { name: 'x' } };
    expect(one({ ...base, collation: { locale: 'en', strength: 2 } }).id).not.toBe(one(base).id);
    expect(one({ ...base, collation: { locale: 'simple' } }).id).toBe(one(base).id);
    const shapes = shapesOf(
      {
        aggregate: 'c',
        pipeline: [{ $lookup: { from: 'o', localField: 'a', foreignField: 'b', as: 'x' } }],
        collation: { locale: 'fr' },
      },
      'db',
    );
    expect(shapes.map((s) => s.collation)).toEqual([{ locale: 'fr' }, { locale: 'fr' }]);
    const u = shapesOf({ update: 'o', updates: [{ q: { a: 'x' }, u: {}, collation: { locale: 'en' } }] }, 'db');
    expect(u[0]?.collation).toEqual({ locale: 'en' });
  });
  it('keeps no marker planted in a collation', () => {
    const s = one({ find: 'o', filter: {}, collation: { locale: 'MARKER_c0ll', caseFirst: 'MARKER_c0ll' } });
    expect(JSON.stringify(s)).not.toContain('MARKER');
  });
});
