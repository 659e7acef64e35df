/*
 * The streamed fold of a database's listing into groups (src/collect/groups.ts): issue 29's case of one real
 * collection among 50,000 tenants, whatever the order the server lists them in, with only the groups and the
 * collections outside them held once the listing is folded.
 */
import { describe, expect, it } from 'vitest';
import type { ListedCollection } from '../src/core/collector';
import { groupByPattern } from '../src/lib/name-groups';
import {
  GROUP_DEFAULTS,
  GroupStream,
  LISTING_BATCH,
  catalogEntry,
  indexSpecsSignature,
  nameRank,
  planGroups,
} from '../src/collect/groups';
import * as catalog from './fixtures/mongodb/list-catalog';

const row = (name: string, type = 'collection'): ListedCollection => ({ name, type, options: {} });

/** Feeds rows in cursor batches of `batch`, as the listing does. */
function fold(rows: readonly ListedCollection[], batch = LISTING_BATCH): GroupStream {
  const s = new GroupStream({});
  for (let i = 0; i < rows.length; i += batch) {
    for (const r of rows.slice(i, i + batch)) s.add(r);
    s.endBatch();
  }
  return s;
}

/** A fixed shuffle (mulberry32), so a failure reproduces. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('one real collection among 50,000 tenants, streamed', () => {
  const tenants = Array.from({ length: 50_000 }, (_, i) => row(`tenant_${i}`));
  const orders = row('orders');
  const orders_ = [
    ['orders first', [orders, ...tenants]],
    ['orders last', [...tenants, orders]],
    ['orders in the middle', [...tenants.slice(0, 25_000), orders, ...tenants.slice(25_000)]],
    ['shuffled', shuffled([...tenants, orders], 29)],
    ['reversed', [...tenants, orders].reverse()],
  ] as const;

  const folds = new Map<string, GroupStream>();
  const folded = (label: string, rows: readonly ListedCollection[]): GroupStream => {
    let s = folds.get(label);
    if (!s) folds.set(label, (s = fold(rows)));
    return s;
  };

  for (const [label, rows] of orders_) {
    it(`reads the real collection in full and the tenants as one group (${label})`, () => {
      const s = folded(label, rows);
      expect(s.grouped).toBe(true);
      // Once folded, the stream holds the real collection alone name by name: the tenants are counts.
      expect(s.heldEntries).toBe(1);
      const plan = s.finish(false);
      expect(plan.total).toBe(50_001);
      expect(plan.groups).toHaveLength(1);
      const [g] = plan.groups;
      expect(g).toMatchObject({ pattern: 'tenant_{id}', kind: 'collection', members: 50_000, sameOptions: 50_000 });
      expect(g?.examples).toEqual(['tenant_0', 'tenant_1', 'tenant_10']);
      expect(g?.read).toHaveLength(GROUP_DEFAULTS.groupSample);
      expect(plan.chosen.map((c) => c.name)).toEqual(['orders', ...(g?.read ?? [])]);
    });
  }

  it('picks the same representatives whatever the listing order: the lowest name ranks', () => {
    const byRank = [...tenants]
      .sort((a, b) => nameRank(a.name) - nameRank(b.name))
      .slice(0, GROUP_DEFAULTS.groupSample)
      .map((r) => r.name)
      .sort();
    for (const [label, rows] of orders_) expect(folded(label, rows).finish(false).groups[0]?.read).toEqual(byRank);
  });
});

describe('the streamed fold against the whole-listing grouping', () => {
  it('groups per type, not per tenant, when the server lists tenant by tenant', () => {
    const types = ['orders', 'users', 'items', 'carts', 'notes', 'logs', 'tags', 'rates', 'taxes', 'links', 'x', 'y'];
    const names = Array.from({ length: 300 }, (_, t) => types.map((k) => `t${t}_${k}`)).flat();
    const plan = fold(names.map((n) => row(n))).finish(false);
    const whole = groupByPattern([...names].sort(), GROUP_DEFAULTS.groupMin);
    expect(plan.groups.map((g) => [g.pattern, g.members]).sort()).toEqual(
      whole.map((g) => [g.pattern, g.members.length]).sort(),
    );
    expect(plan.groups.map((g) => g.pattern)).toContain('{id}_orders');
  });

  it('reads a database of groupAbove collections or fewer whole', () => {
    const rows = Array.from({ length: GROUP_DEFAULTS.groupAbove }, (_, i) => row(`tenant_${i}`));
    const s = fold([...rows, row('system.views')]);
    expect(s.grouped).toBe(false);
    expect(s.whole().map((r) => r.name)).toEqual([...rows.map((r) => r.name), 'system.views']);
  });

  it('keeps kinds apart and system collections out of groups', () => {
    const rows = [
      ...Array.from({ length: 150 }, (_, i) => row(`tenant_${i}`)),
      ...Array.from({ length: 20 }, (_, i) => row(`tenant_v${i}`, 'view')),
      row('system.views'),
    ];
    const plan = planGroups(rows, {}, null);
    expect(plan.groups.map((g) => [g.kind, g.pattern, g.members])).toEqual([
      ['collection', 'tenant_{id}', 150],
      ['view', 'tenant_{id}', 20],
    ]);
    expect(plan.all.at(-1)?.name).toBe('system.views');
    expect(plan.total).toBe(170);
  });

  it('tallies the options and, from the catalogue, the index sets of every member', () => {
    const rows = Array.from({ length: 200 }, (_, i) =>
      i % 10 === 0 ? { ...row(`tenant_${i}`), options: { capped: true } } : row(`tenant_${i}`),
    );
    const indexes = new Map(rows.map((r, i) => [r.name, i < 150 ? 'a' : 'b']));
    const [g] = planGroups(rows, {}, indexes).groups;
    expect(g).toMatchObject({ members: 200, sameOptions: 180, sameIndexes: 150 });
  });
});

describe('$listCatalog entries (test/fixtures/mongodb/list-catalog.ts)', () => {
  it('reads name, kind and options, and the index set from md.indexes[].spec', () => {
    const simple = catalogEntry(catalog.simple);
    expect(simple.listed).toEqual({ name: 'simple', type: 'collection', options: {} });
    expect(simple.indexes).toBe(indexSpecsSignature(catalog.simple.md.indexes.map((i) => i.spec)));
    expect(simple.indexes).not.toBe(catalogEntry(catalog.clustered).indexes);
    expect(catalogEntry(catalog.clustered).listed.options).toEqual(catalog.clustered.md.options);
    expect(catalogEntry(catalog.view).listed).toEqual({
      name: 'simple_view',
      type: 'view',
      options: { viewOn: 'simple' },
    });
    expect(catalogEntry(catalog.timeseries).listed.type).toBe('timeseries');
  });

  it("gives every member's index set to the group, not only its representatives'", () => {
    const s = new GroupStream({});
    for (let i = 0; i < 200; i++) {
      const entry = i < 170 ? catalog.simple : catalog.clustered;
      const e = catalogEntry({ ...entry, name: `tenant_${i}`, ns: `${catalog.DB}.tenant_${i}` });
      s.add(e.listed, e.indexes);
    }
    s.endBatch();
    const [g] = s.finish(true).groups;
    expect(g).toMatchObject({ pattern: 'tenant_{id}', members: 200, sameIndexes: 170, sameOptions: 170 });
  });
});
