import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import type { Adapter, Doc } from '../../src/core/adapter';
import { dataHandlesFrom, serverStatus, type ServerStatusData } from '../../src/collect/server-status';
import type { DeploymentContext } from '../../src/core/collector';
import { resolveRules } from '../../src/core/options';
import type { Note } from '../../src/core/types';
import { collectionOf, ran, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';
import {
  foldedIndexes,
  foldedName,
  groupByPattern,
  indexSignature,
  namePatterns,
  type TenantGroup,
  tenantGroupsOf,
  totalsOf,
} from './analyze';
import {
  type DatabaseCount,
  type DeploymentInventory,
  type IndexDefinition,
  indexDefinitionOf,
  inventory,
} from './collect';

/** listIndexes firstBatch entries as the MongoDB manual shows them. */
const LIST_INDEXES = [
  { v: 2, key: { _id: 1 }, name: '_id_' },
  { v: 2, key: { userId: 1, createdAt: -1 }, name: 'userId_1_createdAt_-1' },
  { v: 2, key: { email: 1 }, name: 'email_1', unique: true },
];
const ORDERS: IndexDefinition[] = LIST_INDEXES.map(indexDefinitionOf);
/** Index sets that differ from ORDERS and from each other. */
const OTHER = (i: number): IndexDefinition[] => [
  ORDERS[0] as IndexDefinition,
  { name: `f${i}_1`, key: { [`f${i}`]: 1 } },
];

/** serverStatus().wiredTiger["data-handle"], field names as WiredTiger reports them. */
function serverStatusReply(active: number): Record<string, unknown> {
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

const wiredTiger = (active: number): ServerStatusData => ({
  storageEngine: 'wiredTiger',
  cacheBytes: 8 * 1024 ** 3,
  ...dataHandlesFrom(serverStatusReply(active), { flavor: 'mongodb', storageEngine: 'wiredTiger' }),
});
/** SecantusDB 0.7 (reports MongoDB 8.2.11): names wiredTiger, sends no wiredTiger section. */
const noSection = (): ServerStatusData => ({
  storageEngine: 'wiredTiger',
  cacheBytes: null,
  ...dataHandlesFrom(
    { storageEngine: { name: 'wiredTiger' }, ok: 1 },
    { flavor: 'mongodb', storageEngine: 'wiredTiger' },
  ),
});
const ferret = (): ServerStatusData => ({
  storageEngine: null,
  cacheBytes: null,
  ...dataHandlesFrom(
    { version: '7.0.42', ferretdbVersion: 'v1.24.0', ok: 1 },
    { flavor: 'ferretdb', storageEngine: null },
  ),
});

const TENANT_NAMES = [
  'acme',
  'globex',
  'initech',
  ...Array.from({ length: 997 }, (_, i) => `t${String(i).padStart(3, '0')}`),
];

/**
 * A database of `members` collections named `<prefix><tenant>` (sorted as the collector stores them), whose index
 * lists were read for the first `read`, all of index set 0 but the last `differing` of those read (sets 1, 2, …).
 */
function tenantsDb(
  members: number,
  { db = 'app', prefix = 'orders_', read = members, differing = 0, extra = 0 } = {},
): DatabaseCount {
  const names = TENANT_NAMES.slice(0, members).map((t) => `${prefix}${t}`);
  const sets = names.map((_, i) => (i >= read ? -1 : i >= read - differing ? 1 + (i % 4) : 0));
  return {
    name: db,
    collections: members + extra,
    views: 0,
    timeseries: 0,
    indexes: members * 3 + extra,
    collectionNames: { names, sets },
  };
}

function inventoryOf(over: Partial<DeploymentInventory> = {}): DeploymentInventory {
  return {
    databases: [
      {
        name: 'app',
        collections: 40,
        views: 1,
        timeseries: 0,
        indexes: 90,
        collectionNames: { names: ['orders'], sets: [0] },
      },
    ],
    indexSets: [ORDERS, OTHER(1), OTHER(2), OTHER(3), OTHER(4)],
    skipped: [],
    roundTrips: 3,
    ...over,
  };
}

const snap = (inv: DeploymentInventory | undefined, status: ServerStatusData | null = wiredTiger(300)) => {
  let s = snapshotOf([collectionOf('orders')]);
  if (status) s = withData(s, serverStatus, status);
  return inv ? withData(s, inventory, inv) : s;
};
const onFerret = (inv: DeploymentInventory) =>
  withServer(snap(inv, ferret()), { flavor: 'ferretdb', storageEngine: null, version: '7.0.42' });
const onSecantus = (inv: DeploymentInventory) => withServer(snap(inv, noSection()), { version: '8.2.11' });

/**
 * A snapshot of a database whose 50,000 tenants the core read as one group through 30 representatives (`indexesRead`
 * every member where the one-cursor catalogue answered), with the inventory's record of the same group.
 */
function groupSnapshot(members: number, indexesRead: number, empty: number) {
  const read = Array.from({ length: 30 }, (_, i) => `tenant_${i * 1000 + 7}`);
  const inv = inventoryOf({
    databases: [
      {
        name: 'app',
        collections: members + 1,
        views: 0,
        timeseries: 0,
        indexes: { min: members + 1, max: members * 64 + 1, unread: members - 30, estimate: members * 3 + 1 },
        collectionNames: { names: ['orders'], sets: [0] },
        groups: [
          {
            pattern: 'tenant_{id}',
            kind: 'collection',
            members,
            examples: ['tenant_0', 'tenant_1', 'tenant_10'],
            sets: read.map(() => 0),
          },
        ],
      },
    ],
  });
  const s = snap(inv);
  const db = s.databases[0];
  if (db)
    db.groups = [
      {
        pattern: 'tenant_{id}',
        kind: 'collection',
        members,
        examples: ['tenant_0', 'tenant_1', 'tenant_10'],
        read,
        evidence: {
          optionsRead: members,
          sameOptions: members,
          indexesRead,
          sameIndexes: indexesRead === members ? members - 10 : 30,
          empty,
          documents: 10,
        },
      },
    ];
  return s;
}

const onDb = (db = 'app') => ({ db });
const tenants = { db: 'app', collection: 'orders_acme' };
/** The fold of `orders_{id}` with the tenant field leading each index, unique per tenant. */
const fold = (field: string) => ({
  action: `fold into one collection \`orders\` with ${field} leading each index`,
  commands: [
    'db.getSiblingDB("app").createCollection("orders")',
    `db.getSiblingDB("app").getCollection("orders").createIndex({ ${field}: 1, userId: 1, createdAt: -1 })`,
    `db.getSiblingDB("app").getCollection("orders").createIndex({ ${field}: 1, email: 1 }, { unique: true })`,
    '// fill in the <…> first: ' +
      'db.getSiblingDB("app").getCollection("orders_acme")' +
      `.aggregate([{ $set: { ${field}: <tenant id> } }, { $merge: { into: ` +
      `"orders" } }])  // once per tenant collection`,
  ],
});
const SECANTUS_REASON =
  'the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section, so the ' +
  'data-handle figures could not be read';
const FERRET_REASON =
  'serverStatus has no wiredTiger section (FerretDB has no WiredTiger), so there are no data-handle figures';

ruleTester(rule, {
  valid: [
    { name: 'a small deployment', snapshot: snap(inventoryOf()), notes: [] },
    {
      name: 'no inventory in the snapshot (the collector failed: its own note says why)',
      snapshot: snap(undefined),
      notes: [],
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snap(inventoryOf())),
      notes: [
        {
          includes: ['collection-count: not checked', 'collector server-status, collection-count', 'was not collected'],
        },
      ],
    },
    {
      name: 'a name pattern whose members have different indexes (collection types, not tenants)',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(12, { prefix: 'acme_', differing: 9 })] })),
      notes: [],
    },
    { name: 'a group below the tenant minimum', snapshot: snap(inventoryOf({ databases: [tenantsDb(6)] })), notes: [] },
    {
      name: 'per-tenant collections in a database this run does not check: one line, no advice on another database',
      snapshot: snap(
        inventoryOf({ databases: [inventoryOf().databases[0] as DatabaseCount, tenantsDb(90, { db: 'billing' })] }),
      ),
      notes: [
        'collection-count: 1 group of per-tenant collections in another database (`billing`) not reported ' +
          'here: check it, or run audit for the whole deployment',
      ],
    },
    {
      name:
        'alike-named collections in another database whose index lists were not read: said as not judged, ' +
        'never as tenants',
      snapshot: snap(
        inventoryOf({
          databases: [
            inventoryOf().databases[0] as DatabaseCount,
            tenantsDb(90, { db: 'billing', read: 0 }),
            tenantsDb(30, { db: 'crm', prefix: 'c', read: 0 }),
          ],
        }),
      ),
      notes: [
        'collection-count: 2 groups of 10 or more alike-named collections in 2 other databases (`billing`, ' +
          '`crm`) not reported here: their index lists were not read, so whether they are per-tenant ' +
          'collections was not judged: check them, or run audit for the whole deployment',
      ],
    },
    {
      name: 'names of other databases not kept past the budget: said so',
      snapshot: snap(inventoryOf({ namesOmitted: { databases: 3, collections: 61_000 } })),
      notes: [
        'collection-count: the collection names of 3 databases the run does not check (61,000 collections) ' +
          'were not kept, past 50,000 names: their per-tenant collections were not looked for; check those ' +
          'databases, or run audit for the whole deployment',
      ],
    },
    {
      name: 'a group whose indexes could not be read',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(90, { read: 0 })] })),
      notes: [],
    },
    {
      name: 'FerretDB: no WiredTiger, so no data-handle figures, and the table count decides nothing',
      snapshot: onFerret(
        inventoryOf({
          databases: [
            { name: 'app', collections: 90, views: 0, timeseries: 0, indexes: { min: 90, max: 5_760, unread: 90 } },
          ],
        }),
      ),
      notes: [`collection-count: ${FERRET_REASON}`],
    },
    {
      name: 'WiredTiger without handle figures: tables under the line by their upper bound',
      snapshot: onSecantus(
        inventoryOf({
          databases: [
            { name: 'app', collections: 1, views: 0, timeseries: 0, indexes: 2 },
            { name: 'other', collections: 4, views: 0, timeseries: 0, indexes: { min: 4, max: 256, unread: 4 } },
          ],
        }),
      ),
      notes: [`collection-count: ${SECANTUS_REASON}`],
    },
    {
      name: 'a line set inside the bounds: could not tell, and said so',
      snapshot: onSecantus(
        inventoryOf({
          databases: [
            { name: 'app', collections: 1, views: 0, timeseries: 0, indexes: 2 },
            { name: 'other', collections: 4, views: 0, timeseries: 0, indexes: { min: 4, max: 256, unread: 4 } },
          ],
        }),
      ),
      options: { dataHandlesWarn: 100 },
      notes: [
        `collection-count: ${SECANTUS_REASON}`,
        'collection-count: could not tell whether the deployment holds 100 WiredTiger tables or more (the ' +
          'line for data handles, whose figures could not be read): its 5 collections hold 6–258 indexes, and ' +
          'the index lists of 4 collections were not read (each holds at most 64). Raise dataHandlesWarn, or ' +
          'run with the clusterMonitor role on MongoDB so the open handles are read',
      ],
    },
  ],
  invalid: [
    {
      name: 'over 100 collections in one database (Atlas)',
      snapshot: snap(
        inventoryOf({ databases: [{ name: 'app', collections: 150, views: 2, timeseries: 1, indexes: 400 }] }),
      ),
      findings: [
        {
          messageId: 'manyInDatabase',
          severity: 'info',
          target: onDb(),
          data: { db: 'app', collections: 150, indexes: '400', tables: '550', limit: 100 },
          message:
            'Database `app` holds 150 collections and 400 indexes (550 WiredTiger tables), over the 100 ' +
            'collections per database Atlas flags.',
          evidence: { collections: 150, indexes: 400, indexesMin: 400, indexesMax: 400, views: 2, timeseries: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name:
        '10,000 collections in the deployment (Compass), with the data-handle figures; index lists of one ' +
        'database not read',
      snapshot: snap(
        inventoryOf({
          databases: [
            { name: 'app', collections: 6000, views: 0, timeseries: 0, indexes: 18000 },
            {
              name: 'archive',
              collections: 4500,
              views: 0,
              timeseries: 0,
              indexes: { min: 4500, max: 288_000, unread: 4500 },
            },
          ],
        }),
        wiredTiger(14_250),
      ),
      findings: [
        {
          messageId: 'manyInDeployment',
          severity: 'warn',
          target: onDb(),
          message:
            'The deployment holds 10,500 collections and 22,500–306,000 indexes in 2 databases: ' +
            '33,000–316,500 WiredTiger tables, each with a file and a data handle (Compass flags 10,000 ' +
            'collections); WiredTiger holds 14,250 data handles open (4,321 sweeps so far).',
          evidence: {
            collections: 10500,
            indexes: null,
            indexesMin: 22_500,
            indexesMax: 306_000,
            indexListsUnread: 4500,
            dataHandlesActive: 14_250,
            dataHandleSweeps: 4321,
            dataHandlesClosedBySweep: 120,
          },
        },
        {
          messageId: 'manyInDatabase',
          severity: 'info',
          target: onDb('app'),
          messageIncludes: 'Database `app` holds 6,000 collections and 18,000 indexes (24,000 WiredTiger tables)',
        },
        {
          messageId: 'manyInDatabase',
          severity: 'info',
          target: onDb('archive'),
          messageIncludes: '4,500–288,000 indexes (9,000–292,500 WiredTiger tables)',
          evidence: { indexes: null, indexListsUnread: 4500 },
        },
      ],
    },
    {
      name: 'the deployment warning says data handles were not read, with the reason',
      snapshot: onSecantus(
        inventoryOf({ databases: [{ name: 'app', collections: 12_000, views: 0, timeseries: 0, indexes: 24_000 }] }),
      ),
      notes: [`collection-count: ${SECANTUS_REASON}`],
      findings: [
        {
          messageId: 'manyInDeploymentHandlesUnread',
          severity: 'warn',
          target: onDb(),
          message:
            `The deployment holds 12,000 collections and 24,000 indexes in 1 databases: 36,000 WiredTiger ` +
            `tables, each with a file and a data handle (Compass flags 10,000 collections); data handles not ` +
            `read: ${SECANTUS_REASON}.`,
          evidence: { dataHandlesActive: null, dataHandlesReason: SECANTUS_REASON },
        },
        { messageId: 'manyInDatabase', severity: 'info', target: onDb(), messageIncludes: '36,000 WiredTiger tables' },
      ],
    },
    {
      name: 'serverStatus refused: the reason is what its collector could not do',
      snapshot: {
        ...snap(
          inventoryOf({ databases: [{ name: 'app', collections: 12_000, views: 0, timeseries: 0, indexes: 24_000 }] }),
          null,
        ),
        collectors: [
          {
            id: 'server-status',
            version: 1,
            scope: 'deployment',
            couldNot: [
              'serverStatus was refused or not answered: the storage engine, cache size and data-handle ' +
                'figures need the clusterMonitor role',
            ],
          },
          { id: 'collection-count', version: inventory.version, scope: 'deployment', couldNot: [] },
        ],
      },
      notes: [],
      findings: [
        {
          messageId: 'manyInDeploymentHandlesUnread',
          severity: 'warn',
          target: onDb(),
          messageIncludes:
            '; data handles not read: serverStatus was refused or not answered: the storage engine, cache ' +
            'size and data-handle figures need the clusterMonitor role.',
        },
        { messageId: 'manyInDatabase', severity: 'info', target: onDb(), messageIncludes: '36,000 WiredTiger tables' },
      ],
    },
    {
      name: 'FerretDB: the deployment warning speaks of tables, WiredTiger tables on MongoDB',
      snapshot: onFerret(
        inventoryOf({
          databases: [
            {
              name: 'app',
              collections: 10_000,
              views: 0,
              timeseries: 0,
              indexes: { min: 10_000, max: 640_000, unread: 10_000 },
            },
          ],
        }),
      ),
      findings: [
        {
          messageId: 'manyInDeploymentOtherEngine',
          severity: 'warn',
          target: onDb(),
          message:
            `The deployment holds 10,000 collections and 10,000–640,000 indexes in 1 databases: ` +
            `20,000–650,000 tables (WiredTiger tables on MongoDB), each with a file and a data handle (Compass ` +
            `flags 10,000 collections); data handles not read: ${FERRET_REASON}.`,
        },
        {
          messageId: 'manyInDatabaseOtherEngine',
          severity: 'info',
          target: onDb(),
          messageIncludes: '(20,000–650,000 tables, WiredTiger tables on MongoDB)',
        },
      ],
    },
    {
      name: 'many open data handles in a deployment under the collection limit',
      snapshot: snap(inventoryOf(), wiredTiger(12_000)),
      findings: [
        {
          messageId: 'manyDataHandles',
          severity: 'warn',
          target: onDb(),
          data: { active: '12,000', limit: '10,000' },
          evidence: { dataHandlesActive: 12_000 },
        },
      ],
    },
    {
      name: 'WiredTiger without handle figures: 10,000 tables or more by their lower bound stand in for the handles',
      snapshot: onSecantus(
        inventoryOf({
          databases: [
            { name: 'app', collections: 20, views: 0, timeseries: 0, indexes: 40 },
            {
              name: 'other',
              collections: 5_000,
              views: 0,
              timeseries: 0,
              indexes: { min: 5_000, max: 320_000, unread: 5_000 },
            },
          ],
        }),
      ),
      findings: [
        {
          messageId: 'manyTables',
          severity: 'warn',
          target: onDb(),
          message:
            `The deployment holds 5,020 collections and 5,040–320,040 indexes in 2 databases: 10,060–325,060 ` +
            `WiredTiger tables (10,000 or more), each a file that holds a data handle for ~28 h once opened ` +
            `(close_idle_time=100000); a 2-core/4 GB node ran out of memory below 10,000 tables. Data handles ` +
            `not read: ${SECANTUS_REASON}.`,
          evidence: { indexesMin: 5_040, indexListsUnread: 5_000 },
        },
        {
          messageId: 'manyInDatabase',
          severity: 'info',
          target: onDb('other'),
          messageIncludes: 'Database `other` holds 5,000 collections',
        },
      ],
    },
    {
      name: 'per-tenant collections with the same indexes',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(250, { differing: 2 })] })),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'warn',
          target: tenants,
          message:
            '250 collections in `app` are named `orders_{id}` (e.g. `orders_acme`, `orders_globex`, ' +
            '`orders_initech`) and 248 of 250 read have the same indexes: one collection per tenant.',
          evidence: { tablesSaved: 250 * 4 - 4, foldedCollection: 'orders', tenantField: 'tenantId' },
          // each tenant index gets the tenant field in front, unique per tenant
          recommendation: { ...fold('tenantId'), reasonIncludes: 'unique index email_1' },
        },
        {
          messageId: 'manyInDatabaseGrouped',
          severity: 'info',
          target: onDb(),
          message:
            'Database `app` holds 250 collections and 750 indexes (1,000 WiredTiger tables), over the 100 ' +
            'collections per database Atlas flags; by name they fall into one group: `orders_{id}` (250).',
          evidence: { groups: 1, inGroups: 250 },
        },
      ],
    },
    {
      name: 'a sample of a group read (a check of one collection): judged on the members read',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(40, { read: 12 })] })),
      findings: [
        {
          messageId: 'tenantCollectionsSampled',
          severity: 'info',
          target: tenants,
          message:
            '40 collections in `app` are named `orders_{id}` (e.g. `orders_acme`, `orders_globex`, ' +
            '`orders_initech`): one collection per tenant. Indexes were read on 12 of them spread over the group, ' +
            'and 12 of the 12 have the same ones.',
          recommendation: {
            reasonIncludes: 'a variant that one member in ten carries shows in such a sample about 72%',
          },
        },
      ],
    },
    {
      name: 'a group the audit read through representatives: sizes, what was read, why, and how many were empty',
      snapshot: groupSnapshot(50_000, 30, 28),
      findings: [
        {
          messageId: 'tenantCollectionsGroup',
          severity: 'warn',
          target: { db: 'app', collection: 'tenant_0' },
          message:
            '50,000 collections in `app` are named `tenant_{id}` (e.g. `tenant_0`, `tenant_1`, `tenant_10`): one ' +
            'collection per tenant. The audit read 30 of them in full (indexes, counts, sampled documents), picked ' +
            'at random by name, so its cost follows the groups, not the collections: 30 of the 30 have the same ' +
            'indexes and 28 of the 30 are empty.',
          evidence: { members: 50_000, indexesRead: 30, sameIndexes: 30, emptyOfRead: 28 },
          recommendation: { reasonIncludes: 'shows in such a sample about 96% of the time' },
        },
        { messageId: 'manyInDeployment', severity: 'warn', target: onDb() },
        {
          messageId: 'manyInDatabaseGrouped',
          severity: 'info',
          target: onDb(),
          messageIncludes: 'by name they fall into one group: `tenant_{id}` (50,000), and 1 other collection.',
        },
      ],
    },
    {
      name: 'a group whose every member the catalogue gave: judged on all of them',
      snapshot: groupSnapshot(50_000, 50_000, 28),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'warn',
          target: { db: 'app', collection: 'tenant_0' },
          messageIncludes: 'and 49,990 of 50,000 read have the same indexes: one collection per tenant.',
          evidence: { indexesRead: 50_000, sameIndexes: 49_990, emptyOfRead: null },
        },
        { messageId: 'manyInDeployment', severity: 'warn', target: onDb() },
        {
          messageId: 'manyInDatabaseGrouped',
          severity: 'info',
          target: onDb(),
          messageIncludes: 'by name they fall into one group: `tenant_{id}` (50,000), and 1 other collection.',
        },
      ],
    },
    {
      name: 'a smaller tenant group is info',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(20, { differing: 1 })] })),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'info',
          target: tenants,
          messageIncludes: '20 collections in `app` are named `orders_{id}`',
          recommendation: fold('tenantId'),
        },
      ],
    },
    {
      name: 'the tenant field is an option',
      snapshot: snap(inventoryOf({ databases: [tenantsDb(30)] })),
      options: { tenantField: 'accountId' },
      findings: [
        { messageId: 'tenantCollections', severity: 'info', target: tenants, recommendation: fold('accountId') },
      ],
    },
    {
      name: 'time-series tenants: one time-series collection with the tenant in its metaField',
      snapshot: snap(
        inventoryOf({
          databases: [
            {
              name: 'app',
              collections: 12,
              views: 0,
              timeseries: 12,
              indexes: 12,
              collectionNames: { names: [], sets: [] },
              timeseriesNames: {
                names: Array.from({ length: 12 }, (_, i) => `metrics_${i + 1}`).sort(),
                sets: Array.from({ length: 12 }, () => 0),
              },
            },
          ],
        }),
      ),
      findings: [
        {
          messageId: 'tenantCollections',
          severity: 'info',
          target: { db: 'app', collection: 'metrics_1' },
          messageIncludes: 'one collection per tenant.',
          recommendation: {
            action: 'one time-series collection `metrics` with tenantId in its metaField',
            commands: [
              /^\/\/ fill in the <…> first: db\.getSiblingDB\("app"\)\.createCollection\("metrics", /,
              /^\/\/ fill in the <…> first: db\.getSiblingDB\("app"\)\.getCollection\("metrics_1"\)\.aggregate\(/,
            ],
          },
        },
      ],
    },
  ],
});

function group(over: Partial<TenantGroup> = {}): TenantGroup {
  return {
    db: 'app',
    pattern: 'orders_{id}',
    members: 250,
    examples: ['orders_acme', 'orders_globex', 'orders_initech'],
    kind: 'collection',
    indexesRead: 250,
    sameIndexes: 248,
    indexes: ORDERS.slice(1),
    ...over,
  };
}

describe('collection-count recommendation', () => {
  it('says what to do with text, 2d, hashed, wildcard and TTL indexes', () => {
    const specs = [
      {
        v: 2,
        key: { _fts: 'text', _ftsx: 1 },
        name: 'body_text',
        weights: { body: 1, title: 1 },
        default_language: 'english',
        language_override: 'language',
        textIndexVersion: 3,
      },
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
      'db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1, body: "text", title: "text" })',
      'db.getSiblingDB("app").getCollection("orders").createIndex({ loc: "2d", tenantId: 1 })',
      'db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1, place: "2dsphere" })',
      'db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1, h: "hashed" })',
      'db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1, "$**": 1 }, {' +
        ' wildcardProjection: { tenantId: 0 } })',
      'db.getSiblingDB("app").getCollection("orders").createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600 })',
      '// fill in the <…> first: db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1,' +
        ' status: 1 }, { partialFilterExpression: <copy ' +
        'it from the tenant collections> })',
    ]);
    expect(on70.notes.join('\n')).toMatch(/text index body_text: .*equality/);
    expect(on70.notes.join('\n')).toMatch(/2d index loc_2d: .*location/);
    expect(on70.notes.join('\n')).toMatch(/TTL index createdAt_1: .*single-field/);
    const on60 = foldedIndexes('orders', g, 'tenantId', [6, 0, 5, 0]);
    expect(on60.notes.join('\n')).toMatch(
      /wildcard index \$\*\*_1: compound wildcard indexes need MongoDB 7.0 \(this server is 6.0.5\)/,
    );
    expect(on60.commands).toContain('db.getSiblingDB("app").getCollection("orders").createIndex({ "$**": 1 })');
    const on42 = foldedIndexes('orders', g, 'tenantId', [4, 2, 0, 0]);
    expect(on42.notes.join('\n')).toMatch(/hashed index h_hashed: compound hashed indexes need MongoDB 4.4/);
  });

  it('prints a text index whose fields are unknown as a template: its `<text fields>` key is filled in first', () => {
    // A text index read without its weights (no textFields): the key holds a placeholder, never a runnable command.
    const text = { name: 'body_text', key: { _fts: 'text', _ftsx: 1 } };
    const plan = foldedIndexes('orders', group({ indexes: [text] }), 'tenantId', [7, 0]);
    expect(plan.commands).toEqual([
      '// fill in the <…> first: db.getSiblingDB("app").getCollection("orders").createIndex({ tenantId: 1, "<text ' +
        'fields>": "text" })',
    ]);
  });

  it('adds a plain tenant index when no index can lead with the tenant field', () => {
    const plan = foldedIndexes('events', group({ indexes: [] }), 'tenantId', [7, 0]);
    expect(plan.commands).toEqual(['db.getSiblingDB("app").getCollection("events").createIndex({ tenantId: 1 })']);
  });
});

describe('tenant name patterns', () => {
  it('names the folded collection after the pattern', () => {
    expect(foldedName('orders_{id}')).toBe('orders');
    expect(foldedName('{id}_orders')).toBe('orders');
    expect(foldedName('app.{id}.events')).toBe('app.events');
    expect(foldedName('tenant{id}')).toBe('tenant');
    expect(foldedName('{id}')).toBe('tenants');
    // never a collection the database already holds: the printed createIndex and $merge would write into it
    expect(foldedName('orders_{id}', new Set(['orders']))).toBe('orders_folded');
    expect(foldedName('orders_{id}', new Set(['orders', 'orders_folded']))).toBe('orders_folded_2');
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
    expect(groups).toEqual([
      { pattern: 'customer{id}', members: Array.from({ length: 12 }, (_, i) => `customer${1000 + i}`) },
    ]);
  });

  it('compares index sets without their names', () => {
    const a: IndexDefinition[] = LIST_INDEXES.map(indexDefinitionOf);
    const b: IndexDefinition[] = LIST_INDEXES.map((s) => indexDefinitionOf({ ...s, name: `${s.name}_renamed` }));
    expect(indexSignature(a)).toBe(indexSignature(b.map((d) => (d.key._id ? { ...d, name: '_id_' } : d))));
    expect(indexSignature(a)).not.toBe(indexSignature(a.slice(0, 2)));
  });

  it('reads no filter values from a partial index, and text fields from its weights', () => {
    const d = indexDefinitionOf({
      v: 2,
      key: { _fts: 'text', _ftsx: 1 },
      name: 't',
      weights: { title: 10, body: 1 },
      partialFilterExpression: { secret: 'value' },
    });
    expect(d).toEqual({ name: 't', key: { _fts: 'text', _ftsx: 1 }, partial: true, textFields: ['body', 'title'] });
    expect(JSON.stringify(d)).not.toContain('value');
  });

  it('explains a missing data-handle section in one line', () => {
    expect(
      dataHandlesFrom({ ok: 1, storageEngine: { name: 'inMemory' } }, { flavor: 'mongodb', storageEngine: 'inMemory' })
        .dataHandlesReason,
    ).toBe(
      'serverStatus has no wiredTiger section (the storage engine is inMemory, not WiredTiger), so there ' +
        'are no data-handle figures',
    );
    expect(
      dataHandlesFrom(serverStatusReply(31), { flavor: 'mongodb', storageEngine: 'wiredTiger' }).dataHandles,
    ).toEqual({ active: 31, sweeps: 4321, closedBySweep: 120 });
  });

  it('reads the figures from the section the reply carries, not from the engine it names', () => {
    // SecantusDB 0.7 (reports MongoDB 8.2.11): serverStatus names storageEngine wiredTiger but has no wiredTiger
    // section, where MongoDB's manual documents serverStatus().wiredTiger on WiredTiger servers. Keys as that server
    // sent them.
    const secantus = {
      host: 'secantus',
      version: '8.2.11',
      storageEngine: { name: 'wiredTiger', supportsCommittedReads: true, persistent: false },
      ok: 1,
    };
    const r = dataHandlesFrom(secantus, { flavor: 'mongodb', storageEngine: 'wiredTiger' });
    expect(r.dataHandles).toBeNull();
    expect(r.dataHandlesReason).toBe(
      'the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section, so the ' +
        'data-handle figures could not be read',
    );
    expect(r.dataHandlesReason).not.toMatch(/not WiredTiger/);
    // a wiredTiger section without the data-handle figures says which part is missing
    expect(
      dataHandlesFrom({ ...secantus, wiredTiger: { cache: {} } }, { flavor: 'mongodb', storageEngine: 'wiredTiger' })
        .dataHandlesReason,
    ).toContain('no "data-handle" section');
    expect(dataHandlesFrom({ ok: 1 }, { flavor: 'ferretdb', storageEngine: null }).dataHandlesReason).toContain(
      'FerretDB has no WiredTiger',
    );
  });
});

describe('tenant groups from the inventory', () => {
  it('folds beside a real collection of the same name into another: nothing printed writes into `orders`', () => {
    const d = tenantsDb(30);
    const list = d.collectionNames as NonNullable<typeof d.collectionNames>;
    d.collectionNames = { names: ['orders', ...list.names], sets: [-1, ...(list.sets ?? [])] };
    const f = runRule(rule, snap(inventoryOf({ databases: [d] }))).find((x) => x.target.collection === 'orders_acme');
    expect(f?.recommendation?.action).toBe('fold into one collection `orders_folded` with tenantId leading each index');
    const commands = f?.recommendation?.commands ?? [];
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) expect(c).not.toMatch(/"orders"/);
  });

  it('takes the most common index set of the members read, and counts only those', () => {
    const inv = inventoryOf({ databases: [tenantsDb(30, { read: 20, differing: 5 })] });
    const [g] = tenantGroupsOf(inv);
    expect(g).toMatchObject({
      db: 'app',
      pattern: 'orders_{id}',
      members: 30,
      indexesRead: 20,
      sameIndexes: 15,
      kind: 'collection',
      examples: ['orders_acme', 'orders_globex', 'orders_initech'],
    });
    expect(g?.indexes.map((i) => i.name)).toEqual(['userId_1_createdAt_-1', 'email_1']);
  });

  it('compares sets by their keys and options, not their names', () => {
    const renamed = ORDERS.map((d) => (d.name === '_id_' ? d : { ...d, name: `${d.name}_renamed` }));
    const inv = inventoryOf({
      databases: [
        {
          ...tenantsDb(10),
          collectionNames: { names: tenantsDb(10).collectionNames?.names ?? [], sets: [0, 0, 0, 0, 0, 5, 5, 5, 5, 5] },
        },
      ],
      indexSets: [ORDERS, OTHER(1), OTHER(2), OTHER(3), OTHER(4), renamed],
    });
    expect(tenantGroupsOf(inv)[0]).toMatchObject({ indexesRead: 10, sameIndexes: 10 });
  });

  it('never looks for tenants in admin, local or config', () => {
    expect(tenantGroupsOf(inventoryOf({ databases: [tenantsDb(30, { db: 'config' })] }))).toEqual([]);
  });

  it('adds the bounds of unread index lists to the totals', () => {
    const t = totalsOf(
      inventoryOf({
        databases: [
          { name: 'a', collections: 2, views: 1, timeseries: 0, indexes: 3 },
          { name: 'b', collections: 5, views: 0, timeseries: 1, indexes: { min: 4, max: 260, unread: 4 } },
        ],
      }),
    );
    expect(t).toEqual({
      databases: 2,
      collections: 7,
      views: 1,
      timeseries: 1,
      indexes: { min: 7, max: 263 },
      tables: { min: 14, max: 270 },
      unread: 4,
    });
  });
});

/** A server's catalog: per database, collections with their type and index count. */
type Catalog = Record<string, Record<string, { type?: 'collection' | 'view' | 'timeseries'; indexes?: Doc[] }>>;

/** An adapter answering listDatabases, listCollections and listIndexes from a catalog, counting what it is sent. */
function catalogAdapter(catalog: Catalog): Adapter & { sent: string[] } {
  const sent: string[] = [];
  let n = 0;
  const batch = (firstBatch: Doc[]) => ({ cursor: { id: 0, ns: 'x.y', firstBatch }, ok: 1 });
  return {
    kind: 'driver',
    source: 'mongodb://catalog/',
    bson: { objectId: () => ({}), uuid: () => ({}), long: (v) => v },
    get roundTrips() {
      return n;
    },
    sent,
    async command(db: string, cmd: Doc): Promise<Doc> {
      n++;
      const name = Object.keys(cmd)[0] ?? '';
      sent.push(`${name} ${db}`);
      if (name === 'listDatabases') return { databases: Object.keys(catalog).map((d) => ({ name: d })), ok: 1 };
      const colls = catalog[db] ?? {};
      if (name === 'listCollections')
        return batch(Object.entries(colls).map(([c, v]) => ({ name: c, type: v.type ?? 'collection' })));
      if (name === 'listIndexes') {
        const c = colls[String(cmd.listIndexes)];
        if (!c) throw Object.assign(new Error(`ns does not exist: ${db}.${String(cmd.listIndexes)}`), { code: 26 });
        return batch(c.indexes ?? [{ v: 2, key: { _id: 1 }, name: '_id_' }]);
      }
      throw new Error(`unexpected command ${name}`);
    },
    close: async () => undefined,
  };
}

const twoIndexes = (): Doc[] => [LIST_INDEXES[0] as Doc, LIST_INDEXES[1] as Doc];
const SERVER = snapshotOf([]).server;

/** The collector's context for a run of `run` (databases and the collections the core read) on that catalog. */
function contextOf(
  adapter: Adapter,
  catalog: Catalog,
  run: Record<string, string[]>,
  over: Partial<DeploymentContext> = {},
): DeploymentContext & { notes: string[] } {
  const notes: string[] = [];
  const databases = Object.entries(run).map(([db, read]) => ({
    name: db,
    collections: read.map((c) =>
      collectionOf(c, {
        db,
        indexes: (catalog[db]?.[c]?.indexes ?? [LIST_INDEXES[0] as Doc]).map((i) => ({
          ...indexDefinitionOf(i),
          sizeBytes: null,
        })),
      }),
    ),
  }));
  const listed = Object.fromEntries(
    Object.keys(run).map((db) => [
      db,
      Object.entries(catalog[db] ?? {}).map(([name, v]) => ({ name, type: v.type ?? 'collection', options: {} })),
    ]),
  );
  return {
    adapter,
    server: SERVER,
    maxTimeMS: 1000,
    serverStatus: serverStatusReply(50),
    note: (m: string, _o?: { level?: Note['level'] }) => notes.push(m),
    run: new Map(),
    databases,
    databaseNames: null,
    listed,
    notes,
    ...over,
  };
}

const schemaCheck = new Ajv({ strict: true, allowUnionTypes: true }).compile(inventory.schema);

describe('the inventory collector', () => {
  const fiveDbs = (): Catalog =>
    Object.fromEntries(['rt_a', 'rt_b', 'rt_c', 'rt_d', 'rt_e'].map((d) => [d, { posts: { indexes: twoIndexes() } }]));

  it(
    'five one-collection databases: listDatabases and one listCollections per other database, no ' + 'listIndexes',
    async () => {
      const catalog = fiveDbs();
      const a = catalogAdapter(catalog);
      const ctx = contextOf(a, catalog, { rt_a: ['posts'] });
      const out = await inventory.collect(ctx);
      expect(a.sent).toEqual([
        'listDatabases admin',
        'listCollections rt_b',
        'listCollections rt_c',
        'listCollections rt_d',
        'listCollections rt_e',
      ]);
      expect(out?.roundTrips).toBe(5);
      expect(out?.databases.map((d) => [d.name, d.collections, d.indexes])).toEqual([
        ['rt_a', 1, 2],
        ['rt_b', 1, { min: 1, max: 64, unread: 1 }],
        ['rt_c', 1, { min: 1, max: 64, unread: 1 }],
        ['rt_d', 1, { min: 1, max: 64, unread: 1 }],
        ['rt_e', 1, { min: 1, max: 64, unread: 1 }],
      ]);
      expect(schemaCheck(out), JSON.stringify(schemaCheck.errors)).toBe(true);
      expect(ctx.notes).toEqual([]);
    },
  );

  it("never lists admin, local or config (the server's own few collections) unless the run reads them", async () => {
    const catalog: Catalog = {
      admin: { 'system.version': {} },
      config: { 'system.sessions': {} },
      local: { startup_log: {} },
      app: { posts: {} },
    };
    const a = catalogAdapter(catalog);
    const out = await inventory.collect(contextOf(a, catalog, { app: ['posts'] }));
    expect(a.sent).toEqual(['listDatabases admin']);
    expect(out?.databases.map((d) => d.name)).toEqual(['app']);
    const b2 = catalogAdapter(catalog);
    const own = await inventory.collect(contextOf(b2, catalog, { config: [] }));
    expect(own?.databases.map((d) => [d.name, d.collections, d.indexes, d.collectionNames])).toEqual([
      ['app', 1, { min: 1, max: 64, unread: 1 }, { names: ['posts'] }],
      ['config', 1, 1, undefined],
    ]);
  });

  it('reuses the database names the core read, and sends nothing more for the databases it listed', async () => {
    const catalog = fiveDbs();
    const a = catalogAdapter(catalog);
    await inventory.collect(
      contextOf(a, catalog, { rt_a: ['posts'], rt_b: ['posts'] }, { databaseNames: Object.keys(catalog) }),
    );
    expect(a.sent).toEqual(['listCollections rt_c', 'listCollections rt_d', 'listCollections rt_e']);
  });

  it(
    'a check of one collection: reads a spread sample of its name-pattern groups, up to 50, and keeps the ' + 'names',
    async () => {
      const tenantsOf = (k: number) =>
        Object.fromEntries(
          Array.from({ length: k }, (_, i) => [`tenant_${String(i).padStart(3, '0')}`, { indexes: twoIndexes() }]),
        );
      const catalog: Catalog = { app: { ...tenantsOf(120), settings: {} }, other: tenantsOf(30) };
      const a = catalogAdapter(catalog);
      const out = await inventory.collect(contextOf(a, catalog, { app: ['tenant_000'] }));
      const lists = a.sent.filter((s) => s.startsWith('listIndexes'));
      expect(lists.length).toBe(49); // 50 spread over the group, tenant_000 already read by the core
      expect(lists.every((s) => s === 'listIndexes app')).toBe(true); // none in the database the run does not check
      const [g] = tenantGroupsOf(out as DeploymentInventory).filter((x) => x.db === 'app');
      expect(g).toMatchObject({ pattern: 'tenant_{id}', members: 120, indexesRead: 50, sameIndexes: 50 });
      const other = tenantGroupsOf(out as DeploymentInventory).find((x) => x.db === 'other');
      expect(other).toMatchObject({ members: 30, indexesRead: 0 });
      expect(out?.indexSets.length).toBe(1);
      expect(schemaCheck(out), JSON.stringify(schemaCheck.errors)).toBe(true);
    },
  );

  it('a text index the core read gets its fields from one more listIndexes per distinct index set', async () => {
    const text = [
      LIST_INDEXES[0] as Doc,
      { v: 2, key: { _fts: 'text', _ftsx: 1 }, name: 'body_text', weights: { body: 1 } },
    ];
    const catalog: Catalog = {
      app: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`notes_${i}`, { indexes: text }])),
    };
    const a = catalogAdapter(catalog);
    const out = await inventory.collect(
      contextOf(a, catalog, { app: Object.keys(catalog.app ?? {}) }, { databaseNames: ['app'] }),
    );
    expect(a.sent).toEqual(['listIndexes app']);
    expect(tenantGroupsOf(out as DeploymentInventory)[0]?.indexes).toEqual([
      { name: 'body_text', key: { _fts: 'text', _ftsx: 1 }, textFields: ['body'] },
    ]);
  });

  it(
    'WiredTiger without handle figures: reads other index lists only while the table count could fall on ' +
      'either side of 10,000',
    async () => {
      const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`c${i}`, { indexes: twoIndexes() }]));
      const catalog: Catalog = { app: { posts: { indexes: twoIndexes() } }, other: many };
      const a = catalogAdapter(catalog);
      const out = await inventory.collect(
        contextOf(a, catalog, { app: ['posts'] }, { serverStatus: { storageEngine: { name: 'wiredTiger' }, ok: 1 } }),
      );
      // 201 collections: 402 to 13,002 tables before any read; 64 lists read bring the top under 10,000
      expect(a.sent.filter((s) => s === 'listIndexes other').length).toBe(64);
      const t = totalsOf(out as DeploymentInventory);
      expect(t.tables.max).toBeLessThan(10_000);
      expect(out?.databases.find((d) => d.name === 'other')?.indexes).toEqual({
        min: 64 * 2 + 136,
        max: 64 * 2 + 136 * 64,
        unread: 136,
      });
    },
  );

  it("reads other index lists against the user's dataHandlesWarn (the run's options), not the default", async () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`c${i}`, { indexes: twoIndexes() }]));
    const catalog: Catalog = { app: { posts: { indexes: twoIndexes() } }, other: many };
    const lists = async (dataHandlesWarn: number | null): Promise<number> => {
      const a = catalogAdapter(catalog);
      const settings = dataHandlesWarn === null ? {} : { rules: { [rule.id]: { options: { dataHandlesWarn } } } };
      const options = new Map(resolveRules([rule], settings).map((r) => [r.rule.id, r.options]));
      const over = { serverStatus: { storageEngine: { name: 'wiredTiger' }, ok: 1 }, options };
      await inventory.collect(contextOf(a, catalog, { app: ['posts'] }, over));
      return a.sent.filter((s) => s === 'listIndexes other').length;
    };
    // 402 to 13,002 tables before any read: 10,000 (the default) lies inside and needs 64 lists; 300 lies under the
    // fewest tables there can be, 20,000 over the most: decided without a list
    expect(await lists(null)).toBe(64);
    expect(await lists(10_000)).toBe(64);
    expect(await lists(300)).toBe(0);
    expect(await lists(20_000)).toBe(0);
  });

  it('with handle figures, or on FerretDB, the table count decides nothing: no index list is read for it', async () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`c${i}`, {}]));
    const catalog: Catalog = { app: { posts: {} }, other: many };
    const withHandles = catalogAdapter(catalog);
    await inventory.collect(contextOf(withHandles, catalog, { app: ['posts'] }));
    expect(withHandles.sent.filter((s) => s.startsWith('listIndexes'))).toEqual([]);
    const ferretdb = catalogAdapter(catalog);
    await inventory.collect(
      contextOf(
        ferretdb,
        catalog,
        { app: ['posts'] },
        { server: { ...SERVER, flavor: 'ferretdb', storageEngine: null }, serverStatus: { ok: 1 } },
      ),
    );
    expect(ferretdb.sent.filter((s) => s.startsWith('listIndexes'))).toEqual([]);
  });

  it('10,000 collections in another database: names only, each index set once, no listIndexes', async () => {
    const catalog: Catalog = {
      app: { posts: {} },
      other: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`tenant_${i}`, {}])),
    };
    const a = catalogAdapter(catalog);
    const out = await inventory.collect(contextOf(a, catalog, { app: ['posts'] }));
    expect(a.sent.filter((s) => s.startsWith('listIndexes'))).toEqual([]);
    const bytes = Buffer.byteLength(JSON.stringify(out));
    console.log(
      `[collection-count] inventory of 10,000 collections in another database: ${bytes.toLocaleString('en-US')} bytes`,
    );
    expect(bytes).toBeLessThan(10_000 * 20);
    expect(schemaCheck(out)).toBe(true);
  });

  it('a database it cannot list is said once, and the others are counted', async () => {
    const catalog = fiveDbs();
    const a = catalogAdapter(catalog);
    const refusing: Adapter = {
      ...a,
      command: async (db, cmd) =>
        db === 'rt_c' && 'listCollections' in cmd
          ? Promise.reject(new Error('not authorized on rt_c to execute command'))
          : a.command(db, cmd),
    };
    const ctx = contextOf(refusing, catalog, { rt_a: ['posts'] });
    const out = await inventory.collect(ctx);
    expect(out?.databases.map((d) => d.name)).toEqual(['rt_a', 'rt_b', 'rt_d', 'rt_e']);
    expect(out?.skipped.map((x) => x.db)).toEqual(['rt_c']);
    expect(out?.skipped[0]?.reason).toMatch(/^listCollections failed: .*not authorized on rt_c/);
    expect(ctx.notes).toEqual([
      expect.stringMatching(
        /^collection-count: database rt_c was not counted: listCollections failed: .*not authorized on rt_c/,
      ),
    ]);
  });
});
