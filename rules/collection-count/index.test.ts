import { describe, expect, it } from 'vitest';
import { dataHandlesFrom, groupByPattern, indexDefinitionOf, indexSignature, namePatterns } from '../../src/collect/deployment';
import type { DeploymentInventory, IndexDefinition, TenantGroup } from '../../src/core/types';
import { collectionOf, snapshotOf } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import rule from './index';
import { foldedIndexes, foldedName } from './analyze';

/** listIndexes firstBatch entries as the MongoDB manual shows them. */
const LIST_INDEXES = [
  { v: 2, key: { _id: 1 }, name: '_id_' },
  { v: 2, key: { userId: 1, createdAt: -1 }, name: 'userId_1_createdAt_-1' },
  { v: 2, key: { email: 1 }, name: 'email_1', unique: true },
];

/** serverStatus().wiredTiger["data-handle"], field names as WiredTiger reports them. */
function serverStatus(active: number): Record<string, unknown> {
  return {
    host: 'db0:27017',
    version: '7.0.12',
    storageEngine: { name: 'wiredTiger', supportsCommittedReads: true, persistent: true },
    wiredTiger: {
      'data-handle': {
        'connection data handle size': 456,
        'connection data handles currently active': active,
        'connection sweep candidate became referenced': 0,
        'connection sweep dhandles closed': 120,
        'connection sweep dhandles removed from hash list': 42,
        'connection sweep time-of-death sets': 900,
        'connection sweeps': 4321,
        'session dhandles swept': 7,
        'session sweep attempts': 88,
      },
    },
    ok: 1,
  };
}

function group(over: Partial<TenantGroup> = {}): TenantGroup {
  const defs = LIST_INDEXES.map(indexDefinitionOf).filter((d) => d.name !== '_id_');
  return { db: 'app', pattern: 'orders_{id}', members: 250, examples: ['orders_acme', 'orders_globex', 'orders_initech'], kind: 'collection', indexesRead: 250, sameIndexes: 248, indexes: defs, ...over };
}

function inventory(over: Partial<DeploymentInventory> = {}): DeploymentInventory {
  return {
    databases: [{ name: 'app', collections: 40, views: 1, timeseries: 0, indexes: 90 }],
    totals: { databases: 1, collections: 40, views: 1, timeseries: 0, indexes: 90 },
    tenantGroups: [],
    ...dataHandlesFrom(serverStatus(300), { flavor: 'mongodb', storageEngine: 'wiredTiger' }),
    skipped: [],
    roundTrips: 3,
    ...over,
  };
}

const snap = (inv: DeploymentInventory | undefined) => snapshotOf([collectionOf('orders')], inv ? { deployment: inv } : {});

const onDb = (db = 'app') => ({ db });
const tenants = { db: 'app', collection: 'orders_acme' };
/** The fold of `orders_{id}` with the tenant field leading each index, unique per tenant. */
const fold = (field: string) => ({
  action: `fold into one collection with ${field} leading each index`,
  commands: [
    'db.createCollection("orders")',
    `db.getCollection("orders").createIndex({ ${field}: 1, userId: 1, createdAt: -1 })`,
    `db.getCollection("orders").createIndex({ ${field}: 1, email: 1 }, { unique: true })`,
    `db.getCollection("orders_acme").aggregate([{ $set: { ${field}: "<tenant id>" } }, { $merge: { into: "orders" } }])  // once per tenant collection`,
  ],
});

ruleTester(rule, {
  valid: [
    { name: 'a small deployment', snapshot: snap(inventory()) },
    { name: 'no inventory in the snapshot (collected by an older version)', snapshot: snap(undefined) },
    {
      name: 'a name pattern whose members have different indexes (collection types, not tenants)',
      snapshot: snap(inventory({ tenantGroups: [group({ pattern: 'acme_{id}', members: 12, indexesRead: 12, sameIndexes: 3 })] })),
    },
    { name: 'a group below the tenant minimum', snapshot: snap(inventory({ tenantGroups: [group({ members: 6, indexesRead: 6, sameIndexes: 6 })] })) },
    {
      name: 'per-tenant collections in a database this run does not check: one line, no advice on another database',
      snapshot: snap(inventory({ tenantGroups: [group({ db: 'billing' })] })),
      notes: ['collection-count: 1 group of per-tenant collections in another database (`billing`) not reported here: check it, or run audit for the whole deployment'],
    },
    { name: 'a group whose indexes could not be read', snapshot: snap(inventory({ tenantGroups: [group({ indexesRead: 0, sameIndexes: 0 })] })) },
    {
      name: 'FerretDB: no WiredTiger, so no data-handle figures',
      snapshot: snap(inventory(dataHandlesFrom({ version: '7.0.42', ferretdbVersion: 'v1.24.0', ok: 1 }, { flavor: 'ferretdb', storageEngine: null }))),
    },
  ],
  invalid: [
    {
      name: 'over 100 collections in one database (Atlas)',
      snapshot: snap(inventory({ databases: [{ name: 'app', collections: 150, views: 2, timeseries: 1, indexes: 400 }], totals: { databases: 1, collections: 150, views: 2, timeseries: 1, indexes: 400 } })),
      findings: [
        {
          messageId: 'manyInDatabase',
          severity: 'info',
          target: onDb(),
          messageIncludes: ['550 WiredTiger tables', '2 views are not counted'],
          data: {
            db: 'app',
            collections: '150',
            indexes: '400',
            tables: '550 WiredTiger tables',
            limit: '100',
            extra: ' 2 views are not counted: a view has no table of its own. 1 time-series collections count through their system.buckets collections.',
          },
          evidence: { collections: 150, indexes: 400, views: 2, timeseries: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: '10,000 collections in the deployment (Compass), with the data-handle figures',
      snapshot: snap(
        inventory({
          databases: [
            { name: 'app', collections: 6000, views: 0, timeseries: 0, indexes: 18000 },
            { name: 'archive', collections: 4500, views: 0, timeseries: 0, indexes: null },
          ],
          totals: { databases: 2, collections: 10500, views: 0, timeseries: 0, indexes: null },
          ...dataHandlesFrom(serverStatus(14_250), { flavor: 'mongodb', storageEngine: 'wiredTiger' }),
        }),
      ),
      findings: [
        {
          messageId: 'manyInDeployment',
          severity: 'warn',
          target: onDb(),
          message:
            'The deployment holds 10,500 collections and an unknown number of indexes in 2 databases: 10,500+ WiredTiger tables (index count unknown), each with a file and a data handle (Compass flags 10,000 collections); WiredTiger holds 14,250 data handles open (4,321 sweeps so far).',
          evidence: { collections: 10500, indexes: null, dataHandlesActive: 14_250, dataHandleSweeps: 4321, dataHandlesClosedBySweep: 120 },
        },
        { messageId: 'manyInDatabase', severity: 'info', target: onDb('app'), messageIncludes: 'Database `app` holds 6,000 collections and 18,000 indexes (24,000 WiredTiger tables)' },
        { messageId: 'manyInDatabase', severity: 'info', target: onDb('archive'), messageIncludes: 'index count unknown' },
      ],
    },
    {
      name: 'the deployment warning says data handles were not read, with the reason',
      snapshot: snap(
        inventory({
          totals: { databases: 1, collections: 12_000, views: 0, timeseries: 0, indexes: 24_000 },
          ...dataHandlesFrom({ storageEngine: { name: 'wiredTiger' }, ok: 1 }, { flavor: 'mongodb', storageEngine: 'wiredTiger' }),
        }),
      ),
      findings: [
        {
          messageId: 'manyInDeployment',
          severity: 'warn',
          target: onDb(),
          messageIncludes: '; data handles not read: the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section',
          evidence: { dataHandlesActive: null },
        },
      ],
    },
    {
      name: 'many open data handles in a deployment under the collection limit',
      snapshot: snap(inventory(dataHandlesFrom(serverStatus(12_000), { flavor: 'mongodb', storageEngine: 'wiredTiger' }))),
      findings: [{ messageId: 'manyDataHandles', severity: 'warn', target: onDb(), data: { active: '12,000', limit: '10,000' }, evidence: { dataHandlesActive: 12_000 } }],
    },
    {
      name: 'per-tenant collections with the same indexes',
      snapshot: snap(inventory({ tenantGroups: [group()] })),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'warn',
          target: tenants,
          message:
            '250 collections in `app` are named `orders_{id}` (e.g. `orders_acme`, `orders_globex`, `orders_initech`) and 248 of 250 read have the same indexes: one collection per tenant. Fold them into one `orders` collection with a `tenantId` field leading each index.',
          evidence: { tablesSaved: 250 * 4 - 4, foldedCollection: 'orders', tenantField: 'tenantId' },
          // each tenant index gets the tenant field in front, unique per tenant
          recommendation: { ...fold('tenantId'), reasonIncludes: 'unique index email_1' },
        },
      ],
    },
    {
      name: 'a smaller tenant group is info',
      snapshot: snap(inventory({ tenantGroups: [group({ members: 20, indexesRead: 20, sameIndexes: 19 })] })),
      findings: [{ messageId: 'tenantCollections', severity: 'info', target: tenants, messageIncludes: '20 collections in `app` are named `orders_{id}`', recommendation: fold('tenantId') }],
    },
    {
      name: 'the tenant field is an option',
      snapshot: snap(inventory({ tenantGroups: [group()] })),
      options: { tenantField: 'accountId' },
      findings: [{ messageId: 'tenantCollections', severity: 'warn', target: tenants, messageIncludes: '`accountId` field leading each index', recommendation: fold('accountId') }],
    },
    {
      name: 'time-series tenants: one time-series collection with the tenant in its metaField',
      snapshot: snap(inventory({ tenantGroups: [group({ kind: 'timeseries', pattern: 'metrics_{id}', examples: ['metrics_1'] })] })),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'warn',
          target: { db: 'app', collection: 'metrics_1' },
          messageIncludes: 'Fold them into one `metrics` collection',
          recommendation: {
            action: 'one time-series collection with tenantId in its metaField',
            commands: [/^db\.createCollection\("metrics", \{ timeseries: \{ timeField/, /^db\.getCollection\("metrics_1"\)\.aggregate\(\[\{ \$set: \{ "meta\.tenantId": "<tenant id>" \} \}/],
          },
        },
      ],
    },
  ],
});

describe('collection-count recommendation', () => {
  it('says what to do with text, 2d, hashed, wildcard and TTL indexes', () => {
    const specs = [
      { v: 2, key: { _fts: 'text', _ftsx: 1 }, name: 'body_text', weights: { body: 1, title: 1 }, default_language: 'english', language_override: 'language', textIndexVersion: 3 },
      { v: 2, key: { loc: '2d' }, name: 'loc_2d' },
      { v: 2, key: { place: '2dsphere' }, name: 'place_2dsphere', '2dsphereIndexVersion': 3 },
      { v: 2, key: { h: 'hashed' }, name: 'h_hashed' },
      { v: 2, key: { '$**': 1 }, name: '$**_1' },
      { v: 2, key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: 3600 },
      { v: 2, key: { status: 1 }, name: 'status_1', partialFilterExpression: { status: { $eq: 'open' } } },
    ];
    const g = group({ indexes: specs.map(indexDefinitionOf) });
    const on70 = foldedIndexes('orders', g, 'tenantId', [7, 0, 12, 0]);
    expect(on70.commands).toEqual([
      'db.getCollection("orders").createIndex({ tenantId: 1, body: "text", title: "text" })',
      'db.getCollection("orders").createIndex({ loc: "2d", tenantId: 1 })',
      'db.getCollection("orders").createIndex({ tenantId: 1, place: "2dsphere" })',
      'db.getCollection("orders").createIndex({ tenantId: 1, h: "hashed" })',
      'db.getCollection("orders").createIndex({ tenantId: 1, "$**": 1 }, { wildcardProjection: {"tenantId":0} })',
      'db.getCollection("orders").createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 })',
      'db.getCollection("orders").createIndex({ tenantId: 1, status: 1 }, { partialFilterExpression: <copy it from the tenant collections> })',
    ]);
    expect(on70.notes.join('\n')).toMatch(/text index body_text: .*equality/);
    expect(on70.notes.join('\n')).toMatch(/2d index loc_2d: .*location/);
    expect(on70.notes.join('\n')).toMatch(/TTL index createdAt_1: .*single-field/);
    const on60 = foldedIndexes('orders', g, 'tenantId', [6, 0, 5, 0]);
    expect(on60.notes.join('\n')).toMatch(/wildcard index \$\*\*_1: compound wildcard indexes need MongoDB 7.0 \(this server is 6.0.5\)/);
    expect(on60.commands).toContain('db.getCollection("orders").createIndex({ "$**": 1 })');
    const on42 = foldedIndexes('orders', g, 'tenantId', [4, 2, 0, 0]);
    expect(on42.notes.join('\n')).toMatch(/hashed index h_hashed: compound hashed indexes need MongoDB 4.4/);
  });

  it('adds a plain tenant index when no index can lead with the tenant field', () => {
    const plan = foldedIndexes('events', group({ indexes: [] }), 'tenantId', [7, 0]);
    expect(plan.commands).toEqual(['db.getCollection("events").createIndex({ tenantId: 1 })']);
  });

});

describe('tenant name patterns', () => {
  it('names the folded collection after the pattern', () => {
    expect(foldedName('orders_{id}')).toBe('orders');
    expect(foldedName('{id}_orders')).toBe('orders');
    expect(foldedName('app.{id}.events')).toBe('app.events');
    expect(foldedName('tenant{id}')).toBe('tenant');
    expect(foldedName('{id}')).toBe('tenants');
  });

  it('offers each token and a trailing number as the varying part', () => {
    expect(namePatterns('orders_acme').sort()).toEqual(['orders_{id}', '{id}_acme']);
    expect(namePatterns('tenant42')).toEqual(['tenant{id}']);
    expect(namePatterns('users')).toEqual([]);
  });

  it('lets the largest pattern claim its names first', () => {
    const tenants = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const names = [...tenants.map((t) => `${t}_orders`), ...tenants.map((t) => `${t}_users`), 'settings', 'audit_log'];
    const groups = groupByPattern(names);
    expect(groups.map((g) => [g.pattern, g.members.length])).toEqual([
      ['{id}_orders', 30],
      ['{id}_users', 30],
    ]);
  });

  it('groups numbered collections without a separator', () => {
    const groups = groupByPattern(Array.from({ length: 12 }, (_, i) => `customer${1000 + i}`));
    expect(groups).toEqual([{ pattern: 'customer{id}', members: Array.from({ length: 12 }, (_, i) => `customer${1000 + i}`) }]);
  });

  it('compares index sets without their names', () => {
    const a: IndexDefinition[] = LIST_INDEXES.map(indexDefinitionOf);
    const b: IndexDefinition[] = LIST_INDEXES.map((s) => indexDefinitionOf({ ...s, name: `${s.name}_renamed` }));
    expect(indexSignature(a)).toBe(indexSignature(b.map((d) => (d.key._id ? { ...d, name: '_id_' } : d))));
    expect(indexSignature(a)).not.toBe(indexSignature(a.slice(0, 2)));
  });

  it('reads no filter values from a partial index, and text fields from its weights', () => {
    const d = indexDefinitionOf({ v: 2, key: { _fts: 'text', _ftsx: 1 }, name: 't', weights: { title: 10, body: 1 }, partialFilterExpression: { secret: 'value' } });
    expect(d).toEqual({ name: 't', key: { _fts: 'text', _ftsx: 1 }, partial: true, textFields: ['body', 'title'] });
    expect(JSON.stringify(d)).not.toContain('value');
  });

  it('explains a missing data-handle section in one line', () => {
    expect(dataHandlesFrom({ ok: 1, storageEngine: { name: 'inMemory' } }, { flavor: 'mongodb', storageEngine: 'inMemory' }).dataHandlesReason).toBe(
      'serverStatus has no wiredTiger section (the storage engine is inMemory, not WiredTiger), so there are no data-handle figures',
    );
    expect(dataHandlesFrom(serverStatus(31), { flavor: 'mongodb', storageEngine: 'wiredTiger' }).dataHandles).toEqual({ active: 31, sweeps: 4321, closedBySweep: 120 });
  });

  it('reads the figures from the section the reply carries, not from the engine it names', () => {
    // SecantusDB 0.7 (reports MongoDB 8.2.11): serverStatus names storageEngine wiredTiger but has no wiredTiger
    // section, where MongoDB's manual documents serverStatus().wiredTiger on WiredTiger servers. Keys as that server sent them.
    const secantus = { host: 'secantus', version: '8.2.11', storageEngine: { name: 'wiredTiger', supportsCommittedReads: true, persistent: false }, ok: 1 };
    const r = dataHandlesFrom(secantus, { flavor: 'mongodb', storageEngine: 'wiredTiger' });
    expect(r.dataHandles).toBeNull();
    expect(r.dataHandlesReason).toBe('the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section, so the data-handle figures could not be read');
    expect(r.dataHandlesReason).not.toMatch(/not WiredTiger/);
    // a wiredTiger section without the data-handle figures says which part is missing
    expect(dataHandlesFrom({ ...secantus, wiredTiger: { cache: {} } }, { flavor: 'mongodb', storageEngine: 'wiredTiger' }).dataHandlesReason).toContain('no "data-handle" section');
    expect(dataHandlesFrom({ ok: 1 }, { flavor: 'ferretdb', storageEngine: null }).dataHandlesReason).toContain('FerretDB has no WiredTiger');
  });

});
