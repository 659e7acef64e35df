import { formatNumber } from '../../src/core/format';
import { defineRule } from '../../src/core/rule';
import type { DeploymentInventory, TenantGroup } from '../../src/core/types';
import { type CollectionCountOptions, foldedIndexes, foldedName } from './analyze';
import { confirmCollectionCount } from './confirm';

export const collectionCountOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
  properties: {
    perDatabaseInfo: { type: 'integer', minimum: 1, default: 100, description: 'Collections in one database worth a look: Atlas flags more than 100 collections per database (the many-collections field report).' },
    deploymentWarn: { type: 'integer', minimum: 1, default: 10_000, description: "Collections in the whole deployment to warn at: Compass's too-many-collections signal is 10,000 (the field reports)." },
    dataHandlesWarn: {
      type: 'integer',
      minimum: 1,
      default: 10_000,
      description: 'Open WiredTiger data handles to warn at: each collection and index holds one, idle handles close only after ~28 h (close_idle_time=100000), and a 2-core/4 GB node ran out of memory below 10,000 tables (the many-collections field report).',
    },
    tenantMinCollections: { type: 'integer', minimum: 3, default: 10, description: 'Fewest collections sharing a name pattern and an index set to call them per-tenant collections: our choice, a tenth of the Atlas 100-per-database line (the many-collections field report).' },
    tenantSameIndexShare: { type: 'number', minimum: 0, maximum: 1, default: 0.8, description: 'Share of a group (of those whose indexes were read) that must have the same indexes: our choice, so a few collections with an extra index do not hide the pattern.' },
    tenantField: { type: 'string', minLength: 1, default: 'tenantId', description: 'Field name proposed for the tenant id in the folded collection (the many-collections field report: a tenant field leading the indexes).' },
  },
};

const n = (x: number): string => formatNumber(x);

function tablesText(d: { collections: number; indexes: number | null }, kind: string): string {
  return d.indexes === null ? `${n(d.collections)}+ ${kind} (index count unknown)` : `${n(d.collections + d.indexes)} ${kind}`;
}

function handlesText(inv: DeploymentInventory): string {
  if (inv.dataHandles) return `; WiredTiger holds ${n(inv.dataHandles.active)} data handles open${inv.dataHandles.sweeps !== null ? ` (${n(inv.dataHandles.sweeps)} sweeps so far)` : ''}`;
  return inv.dataHandlesReason ? `; data handles not read: ${inv.dataHandlesReason}` : '';
}

function handleEvidence(inv: DeploymentInventory): Record<string, number | string | null> {
  return {
    dataHandlesActive: inv.dataHandles?.active ?? null,
    dataHandleSweeps: inv.dataHandles?.sweeps ?? null,
    dataHandlesClosedBySweep: inv.dataHandles?.closedBySweep ?? null,
    dataHandlesReason: inv.dataHandlesReason ?? null,
  };
}

function isTenantGroup(g: TenantGroup, o: CollectionCountOptions): boolean {
  return g.members >= o.tenantMinCollections && g.indexesRead > 0 && g.sameIndexes / g.indexesRead >= o.tenantSameIndexShare;
}

export default defineRule<CollectionCountOptions>({
  id: 'collection-count',
  needs: ['serverStatus', 'deployment'],
  scope: 'snapshot',
  meta: {
    description: 'Collections and indexes in the deployment (each a WiredTiger table and data handle), and per-tenant collections',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/reduce-collections/',
    severity: 'warn',
    messages: {
      manyInDeployment:
        'The deployment holds {{collections}} collections and {{indexes}} indexes in {{databases}} databases: {{tables}}, each with a file and a data handle (Compass flags {{limit}} collections){{handles}}.{{extra}}',
      manyInDatabase: 'Database `{{db}}` holds {{collections}} collections and {{indexes}} indexes ({{tables}}), over the {{limit}} collections per database Atlas flags.{{extra}}',
      manyDataHandles: 'WiredTiger holds {{active}} data handles open ({{limit}} or more): each collection and index opened in the last ~28 h keeps one (close_idle_time=100000), and their memory grows with them.',
      tenantCollections:
        '{{members}} collections in `{{db}}` are named `{{pattern}}` (e.g. {{examples}}) and {{same}} of {{read}} read have the same indexes: one collection per tenant. Fold them into one `{{target}}` collection with a `{{field}}` field leading each index.',
    },
    options: collectionCountOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    const inv = snapshot.deployment;
    if (!inv) return;
    const t = inv.totals;
    const server = snapshot.server;
    const onWiredTiger = server.storageEngine === 'wiredTiger' || (server.storageEngine === null && server.flavor === 'mongodb');
    const tables = onWiredTiger ? 'WiredTiger tables' : 'tables (WiredTiger tables on MongoDB)';
    const extra = (views: number, ts: number): string =>
      [views ? ` ${n(views)} views are not counted: a view has no table of its own.` : '', ts ? ` ${n(ts)} time-series collections count through their system.buckets collections.` : ''].join('');
    const warnedDeployment = t.collections >= options.deploymentWarn;
    if (warnedDeployment) {
      report({
        messageId: 'manyInDeployment',
        target: { db: snapshot.databases[0]?.name ?? '' },
        data: { collections: n(t.collections), indexes: t.indexes === null ? 'an unknown number of' : n(t.indexes), databases: n(t.databases), tables: tablesText(t, tables), limit: n(options.deploymentWarn), handles: handlesText(inv), extra: extra(t.views, t.timeseries) },
        evidence: { collections: t.collections, indexes: t.indexes, databases: t.databases, views: t.views, timeseries: t.timeseries, ...handleEvidence(inv) },
      });
    }
    if (!warnedDeployment && inv.dataHandles && inv.dataHandles.active >= options.dataHandlesWarn) {
      report({
        messageId: 'manyDataHandles',
        target: { db: snapshot.databases[0]?.name ?? '' },
        data: { active: n(inv.dataHandles.active), limit: n(options.dataHandlesWarn) },
        evidence: { collections: t.collections, indexes: t.indexes, ...handleEvidence(inv) },
      });
    }
    for (const d of inv.databases) {
      if (d.collections <= options.perDatabaseInfo) continue;
      report({
        messageId: 'manyInDatabase',
        severity: 'info',
        target: { db: d.name },
        data: { db: d.name, collections: n(d.collections), indexes: d.indexes === null ? 'an unknown number of' : n(d.indexes), tables: tablesText(d, tables), limit: n(options.perDatabaseInfo), extra: extra(d.views, d.timeseries) },
        evidence: { collections: d.collections, indexes: d.indexes, views: d.views, timeseries: d.timeseries },
      });
    }
    // Per-tenant advice only for the databases this run checks: a check of one database should not advise on
    // another's collections (audit reads them all). The others are counted in one line.
    const checked = new Set(snapshot.databases.map((d) => d.name));
    const elsewhere = inv.tenantGroups.filter((g) => isTenantGroup(g, options) && !checked.has(g.db));
    if (elsewhere.length > 0) {
      const dbs = [...new Set(elsewhere.map((g) => g.db))];
      note(`${elsewhere.length === 1 ? '1 group' : `${elsewhere.length} groups`} of per-tenant collections in ${dbs.length === 1 ? 'another database' : `${dbs.length} other databases`} (${dbs.slice(0, 5).map((d) => `\`${d}\``).join(', ')}${dbs.length > 5 ? ', …' : ''}) not reported here: check ${dbs.length === 1 ? 'it' : 'them'}, or run audit for the whole deployment`);
    }
    for (const g of inv.tenantGroups) {
      if (!isTenantGroup(g, options) || !checked.has(g.db)) continue;
      const target = foldedName(g.pattern);
      const field = options.tenantField;
      const plan = foldedIndexes(target, g, field, snapshot.server.versionArray);
      const ts = g.kind === 'timeseries';
      const examples = g.examples.map((e) => `\`${e}\``).join(', ');
      report({
        messageId: 'tenantCollections',
        severity: g.members >= options.perDatabaseInfo ? 'warn' : 'info',
        target: { db: g.db, collection: g.examples[0] ?? target },
        data: { members: n(g.members), db: g.db, pattern: g.pattern, examples, same: n(g.sameIndexes), read: n(g.indexesRead), target, field },
        evidence: {
          pattern: g.pattern,
          members: g.members,
          kind: g.kind,
          indexesRead: g.indexesRead,
          sameIndexes: g.sameIndexes,
          indexesPerMember: g.indexes.length + 1,
          tablesPerMember: g.indexes.length + 2,
          tablesSaved: g.members * (g.indexes.length + 2) - (plan.commands.length + 2),
          foldedCollection: target,
          tenantField: field,
          example: g.examples[0] ?? null,
        },
        recommendation: ts
          ? {
              action: `one time-series collection with ${field} in its metaField`,
              reason: `Each of the ${n(g.members)} time-series collections is a bucket collection with its own tables. One time-series collection with the tenant inside the metaField groups each tenant's measurements into their own buckets, and the metaField is indexed.`,
              commands: [
                `db.createCollection(${JSON.stringify(target)}, { timeseries: { timeField: "<time field>", metaField: "meta" } })`,
                `db.getCollection(${JSON.stringify(g.examples[0] ?? '<tenant collection>')}).aggregate([{ $set: { "meta.${field}": "<tenant id>" } }, { $merge: { into: ${JSON.stringify(target)} } }])  // per tenant; $merge into time-series needs 7.0+, else insert from the client`,
              ],
            }
          : {
              action: `fold into one collection with ${field} leading each index`,
              reason: `${n(g.members)} collections with ${g.indexes.length + 1} indexes each are ${n(g.members * (g.indexes.length + 2))} ${onWiredTiger ? 'WiredTiger tables and data handles' : 'tables (on MongoDB, WiredTiger tables and data handles)'}; one collection needs ${plan.commands.length + 2}. At hundreds of thousands of tables, nodes ran out of memory and startup took hours; a shared-table design was 10-100x faster (the many-collections field report).${plan.notes.length ? ` ${plan.notes.join('. ')}.` : ''}`,
              commands: [
                `db.createCollection(${JSON.stringify(target)})`,
                ...plan.commands,
                `db.getCollection(${JSON.stringify(g.examples[0] ?? '<tenant collection>')}).aggregate([{ $set: { ${field}: "<tenant id>" } }, { $merge: { into: ${JSON.stringify(target)} } }])  // once per tenant collection`,
              ],
            },
      });
    }
  },
  confirm: { describe: 'first access over N new collections vs the same documents in one collection with a tenant field', run: confirmCollectionCount },
});
