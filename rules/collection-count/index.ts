import { serverStatus, type ServerStatusData } from '../../src/collect/server-status';
import { dataOf } from '../../src/core/collector';
import { formatNumber } from '../../src/core/format';
import { gapOf, noWiredTiger } from '../../src/core/gaps';
import { defineRule, type NoteFn, type Report, sentence } from '../../src/core/rule';
import type { Snapshot } from '../../src/core/types';
import {
  type CollectionCountOptions,
  type TenantGroup,
  type Totals,
  collectionCountOptionsSchema,
  foldedIndexes,
  foldedName,
  indexRange,
  isTenantGroup,
  onWiredTiger,
  rangeText,
  tenantGroupsOf,
  totalsOf,
} from './analyze';
import { type DeploymentInventory, OTHER_NAMES_MAX, inventory } from './collect';
import { codeSpan, shellCall, shellCode, shellDbCall, shellTemplate } from '../../src/lib/shell';
import { CONFIRM_MESSAGES, confirmCollectionCount } from './confirm';

export { collectionCountOptionsSchema, type CollectionCountOptions };

const n = (x: number): string => formatNumber(x);

const DEPLOYMENT =
  'The deployment holds {{collections}} collections and {{indexes}} indexes in {{databases}} databases: ';
const WT_TABLES =
  '{{tables}} WiredTiger tables, each with a file and a data handle (Compass flags {{limit}} collections)';

function handleEvidence(
  status: ServerStatusData | undefined,
  reason: string | null,
): Record<string, number | string | null> {
  return {
    dataHandlesActive: status?.dataHandles?.active ?? null,
    dataHandleSweeps: status?.dataHandles?.sweeps ?? null,
    dataHandlesClosedBySweep: status?.dataHandles?.closedBySweep ?? null,
    dataHandlesReason: reason,
  };
}

function countEvidence(t: Pick<Totals, 'indexes'> & { unread: number }): Record<string, number | null> {
  return {
    indexes: t.indexes.min === t.indexes.max ? t.indexes.min : null,
    indexesMin: t.indexes.min,
    indexesMax: t.indexes.max,
    indexListsUnread: t.unread,
    indexesEstimate: t.indexes.estimate ?? null,
  };
}

/** Why there are no data-handle figures: the server-status data says, or what its collector could not do. */
function handlesReason(snapshot: Snapshot, status: ServerStatusData | undefined): string | null {
  if (status?.dataHandles) return null;
  if (status) return status.dataHandlesReason ?? null;
  return snapshot.collectors.find((c) => c.id === serverStatus.id)?.couldNot[0] ?? 'serverStatus was not read';
}

const MESSAGES = {
  manyInDeployment: sentence(
    `${DEPLOYMENT}${WT_TABLES}; WiredTiger holds {{active}} data handles open ({{sweeps}} sweeps `,
    `so far).`,
  ),
  manyInDeploymentNoSweeps: `${DEPLOYMENT}${WT_TABLES}; WiredTiger holds {{active}} data handles open.`,
  manyInDeploymentHandlesUnread: `${DEPLOYMENT}${WT_TABLES}; data handles not read: {{reason}}.`,
  manyInDeploymentOtherEngine: sentence(
    `${DEPLOYMENT}{{tables}} tables (WiredTiger tables on MongoDB), each with a file and a data handle `,
    `(Compass flags {{limit}} collections); data handles not read: {{reason}}.`,
  ),
  manyInDatabase: sentence(
    'Database `{{db}}` holds {{collections}} collections and {{indexes}} indexes ({{tables}} WiredTiger ',
    'tables), over the {{limit}} collections per database Atlas flags.',
  ),
  manyInDatabaseOtherEngine: sentence(
    'Database `{{db}}` holds {{collections}} collections and {{indexes}} indexes ({{tables}} tables, ',
    'WiredTiger tables on MongoDB), over the {{limit}} collections per database Atlas flags.',
  ),
  manyInDatabaseGrouped: sentence(
    'Database `{{db}}` holds {{collections}} collections and {{indexes}} indexes ({{tables}} WiredTiger ',
    'tables), over the {{limit}} collections per database Atlas flags; by name they fall into {{groups}}.',
  ),
  manyInDatabaseGroupedOtherEngine: sentence(
    'Database `{{db}}` holds {{collections}} collections and {{indexes}} indexes ({{tables}} tables, ',
    'WiredTiger tables on MongoDB), over the {{limit}} collections per database Atlas flags; by name they fall ',
    'into {{groups}}.',
  ),
  manyDataHandles: sentence(
    'WiredTiger holds {{active}} data handles open ({{limit}} or more): each collection and index opened in ',
    'the last ~28 h keeps one (close_idle_time=100000), and their memory grows with them.',
  ),
  manyTables: sentence(
    `${DEPLOYMENT}{{tables}} WiredTiger tables ({{limit}} or more), each a file that holds a data handle for `,
    `~28 h once opened (close_idle_time=100000); a 2-core/4 GB node ran out of memory below 10,000 tables. `,
    `Data handles not read: {{reason}}.`,
  ),
  tenantCollections: sentence(
    '{{members}} collections in `{{db}}` are named `{{pattern}}` (e.g. {{examples}}) and {{same}} of ',
    '{{read}} read have the same indexes: one collection per tenant.',
  ),
  tenantCollectionsSampled: sentence(
    '{{members}} collections in `{{db}}` are named `{{pattern}}` (e.g. {{examples}}): one collection per tenant. ',
    'Indexes were read on {{read}} of them spread over the group, and {{same}} of the {{read}} have the same ones.',
  ),
  tenantCollectionsGroup: sentence(
    '{{members}} collections in `{{db}}` are named `{{pattern}}` (e.g. {{examples}}): one collection per tenant. ',
    'The audit read {{read}} of them in full (indexes, counts, sampled documents), picked at random by name, so ',
    'its cost follows the groups, not the collections: {{same}} of the {{read}} have the same indexes and ',
    '{{empty}} of the {{read}} are empty.',
  ),
} as const;

type Messages = typeof MESSAGES;

/** What the analysis steps share: the snapshot, the resolved options and the rule's report and note. */
interface Analysis {
  snapshot: Snapshot;
  options: CollectionCountOptions;
  report: Report<Messages>;
  note: NoteFn;
}

/** What the deployment-wide and per-database findings read. */
interface Figures {
  inv: DeploymentInventory;
  t: Totals;
  wt: boolean;
  status: ServerStatusData | undefined;
  handles: ServerStatusData['dataHandles'] | null;
}

/** The deployment: its collections against deploymentWarn, data handles (or tables) against dataHandlesWarn. */
function deploymentFindings({ snapshot, options, report, note }: Analysis, { t, wt, status, handles }: Figures): void {
  const reason = handlesReason(snapshot, status);
  const none = noWiredTiger(snapshot.server);
  const gap = none ? gapOf(none, 'open data handles') : undefined;
  if (status && !handles && reason) note(reason, undefined, 'skipped', gap);
  const target = { db: snapshot.databases[0]?.name ?? '' };
  const { collections, databases, views, timeseries } = t;
  const counts = { collections, indexes: rangeText(t.indexes), databases, tables: rangeText(t.tables) };
  const handleFigures = handleEvidence(status, reason);
  const evidence = { collections, ...countEvidence(t), databases, views, timeseries, ...handleFigures };

  const warnedDeployment = t.collections >= options.deploymentWarn;
  if (warnedDeployment) {
    const limit = options.deploymentWarn;
    const unread = { ...counts, limit, reason: reason ?? '' };
    if (handles && handles.sweeps !== null) {
      const data = { ...counts, limit, active: handles.active, sweeps: handles.sweeps };
      report({ messageId: 'manyInDeployment', target, data, evidence });
    } else if (handles) {
      const data = { ...counts, limit, active: handles.active };
      report({ messageId: 'manyInDeploymentNoSweeps', target, data, evidence });
    } else if (wt) report({ messageId: 'manyInDeploymentHandlesUnread', target, data: unread, evidence });
    else report({ messageId: 'manyInDeploymentOtherEngine', target, data: unread, evidence });
  } else if (handles) {
    const data = { active: handles.active, limit: options.dataHandlesWarn };
    if (handles.active >= options.dataHandlesWarn) report({ messageId: 'manyDataHandles', target, data, evidence });
  } else if (wt) {
    // No handle figures on a WiredTiger server: the tables that would hold them stand in, judged on their bounds.
    const limit = options.dataHandlesWarn;
    const data = { ...counts, limit, reason: reason ?? '' };
    if (t.tables.min >= limit) report({ messageId: 'manyTables', target, data, evidence });
    else if (t.tables.max >= limit) {
      note(
        `could not tell whether the deployment holds ${n(limit)} WiredTiger tables or more (the line for ` +
          `data handles, whose figures could not be read): its ${n(t.collections)} collections ` +
          `hold ${rangeText(t.indexes)} indexes, and the index lists of ${n(t.unread)} collections were not ` +
          `read (each holds at most 64). Raise dataHandlesWarn, or run with the clusterMonitor role on MongoDB ` +
          `so the open handles are read`,
      );
    }
  }
}

/** Each database over perDatabaseInfo collections: one info finding. */
function databaseFindings({ options, report }: Analysis, { inv, wt, handles }: Figures): void {
  const groups = tenantGroupsOf(inv);
  for (const d of inv.databases) {
    if (d.collections <= options.perDatabaseInfo) continue;
    const r = indexRange(d.indexes);
    const tables = rangeText({
      min: d.collections + r.min,
      max: d.collections + r.max,
      ...(r.estimate !== undefined ? { estimate: d.collections + r.estimate } : {}),
    });
    const limit = options.perDatabaseInfo;
    const data = { db: d.name, collections: d.collections, indexes: rangeText(r), tables, limit };
    const unread = typeof d.indexes === 'number' ? 0 : d.indexes.unread;
    const counts = countEvidence({ indexes: r, unread });
    const ev = { collections: d.collections, ...counts, views: d.views, timeseries: d.timeseries };
    const named = groups.filter((g) => g.db === d.name && g.members >= options.tenantMinCollections);
    if (named.length === 0) {
      const messageId = wt || handles ? 'manyInDatabase' : 'manyInDatabaseOtherEngine';
      report({ messageId, severity: 'info', target: { db: d.name }, data, evidence: ev });
      continue;
    }
    // The groups by size, the largest five: where the count comes from, whether or not they are tenants.
    const top = named.slice(0, 5).map((g) => `${codeSpan(g.pattern)} (${n(g.members)})`);
    const inGroups = named.reduce((sum, g) => sum + g.members, 0);
    const rest = d.collections - inGroups;
    const list =
      `${named.length === 1 ? 'one group' : `${n(named.length)} groups`}: ${top.join(', ')}` +
      `${named.length > 5 ? `, and ${n(named.length - 5)} more` : ''}` +
      `${rest > 0 ? `, and ${n(rest)} other collection${rest === 1 ? '' : 's'}` : ''}`;
    const messageId = wt || handles ? 'manyInDatabaseGrouped' : 'manyInDatabaseGroupedOtherEngine';
    const evidence = { ...ev, groups: named.length, inGroups };
    report({ messageId, severity: 'info', target: { db: d.name }, data: { ...data, groups: list }, evidence });
  }
}

/** The per-tenant groups: advice for the checked databases, a note for the groups of other databases. */
function tenantFindings(a: Analysis, { inv, wt }: Figures): void {
  const { snapshot, options, note } = a;
  // Per-tenant advice only for the databases this run checks: a check of one database should not advise on
  // another's collections (audit reads them all). The others are counted in one line.
  const checked = new Set(snapshot.databases.map((d) => d.name));
  const groups = tenantGroupsOf(inv);
  const elsewhere = groups.filter((g) => !checked.has(g.db) && isTenantGroup(g, options));
  const unjudged = groups.filter(
    (g) => !checked.has(g.db) && g.members >= options.tenantMinCollections && g.indexesRead === 0,
  );
  if (elsewhere.length > 0) {
    const what = groupCount(elsewhere.length, 'per-tenant collections');
    note(`${what} ${inOthers(elsewhere)} not reported here: ${checkThem(elsewhere)}`);
  }
  if (unjudged.length > 0) {
    const what = groupCount(unjudged.length, `${n(options.tenantMinCollections)} or more alike-named collections`);
    note(
      `${what} ${inOthers(unjudged)} not reported here: their index lists were not read, so whether they are ` +
        `per-tenant collections was ` +
        `not judged: ${checkThem(unjudged)}`,
    );
  }
  if (inv.namesOmitted) {
    note(
      `the collection names of ${n(inv.namesOmitted.databases)} ` +
        `database${inv.namesOmitted.databases === 1 ? '' : 's'} the run does not check ` +
        `(${n(inv.namesOmitted.collections)} collections) were not kept, past ${n(OTHER_NAMES_MAX)} names: ` +
        `their per-tenant collections were not looked for; check those databases, or run audit for the whole ` +
        `deployment`,
    );
  }
  for (const g of groups) {
    if (!isTenantGroup(g, options) || !checked.has(g.db)) continue;
    const d = inv.databases.find((x) => x.name === g.db);
    reportTenantGroup(a, g, wt, new Set([...(d?.collectionNames?.names ?? []), ...(d?.timeseriesNames?.names ?? [])]));
  }
}

/**
 * What the finding says was read of a group: every member's indexes (the inventory's lists, or the one-cursor
 * catalogue's through the core's group), a sample the core read in full (its representatives: how many were empty
 * too), or a sample of index lists; and, for a sample, how likely it was to show a variant.
 */
function whatWasRead(snapshot: Snapshot, g: TenantGroup) {
  const examples = g.examples.map((e) => codeSpan(e)).join(', ');
  const core = snapshot.databases
    .find((d) => d.name === g.db)
    ?.groups?.find((c) => c.pattern === g.pattern && c.kind === g.kind);
  const everyMember = core !== undefined && core.evidence.indexesRead >= g.members;
  const read = everyMember ? core.evidence.indexesRead : g.indexesRead;
  const same = everyMember ? core.evidence.sameIndexes : g.sameIndexes;
  const base = { members: n(g.members), db: g.db, pattern: g.pattern, examples, same: n(same), read: n(read) };
  const sampled = read < g.members;
  // The chance a sample of this size shows a variant one member in ten carries: why a sample can stand for the group.
  const seen = Math.round((1 - 0.9 ** read) * 100);
  const sampleWhy = sampled
    ? ` The indexes were read on ${n(read)} of the ${n(g.members)} members: a variant that one member in ten ` +
      `carries shows in such a sample about ${seen}% of the time; check a few more before folding if the tenants ` +
      `were created by different versions of the application.`
    : '';
  const message = !sampled
    ? ({ messageId: 'tenantCollections', data: base } as const)
    : core
      ? ({ messageId: 'tenantCollectionsGroup', data: { ...base, empty: n(core.evidence.empty) } } as const)
      : ({ messageId: 'tenantCollectionsSampled', data: base } as const);
  return { message, read, same, empty: core && sampled ? core.evidence.empty : null, sampleWhy };
}

/** One group of per-tenant collections: fold them into one collection (or one time-series collection). */
function reportTenantGroup(
  { snapshot, options, report }: Analysis,
  g: TenantGroup,
  wt: boolean,
  taken: ReadonlySet<string>,
): void {
  const target = foldedName(g.pattern, taken);
  const field = options.tenantField;
  const plan = foldedIndexes(target, g, field, snapshot.server.versionArray);
  const ts = g.kind === 'timeseries';
  const tables = wt ? 'WiredTiger tables and data handles' : 'tables (on MongoDB, WiredTiger tables and data handles)';
  const { message, read, same, empty, sampleWhy } = whatWasRead(snapshot, g);
  report({
    ...message,
    severity: g.members >= options.perDatabaseInfo ? 'warn' : 'info',
    target: { db: g.db, collection: g.examples[0] ?? target },
    // The advice lives in the recommendation only, so a refuted confirmation withdraws all of it (confirm/index.ts).
    evidence: {
      pattern: g.pattern,
      members: g.members,
      kind: g.kind,
      indexesRead: read,
      sameIndexes: same,
      emptyOfRead: empty,
      indexesPerMember: g.indexes.length + 1,
      tablesPerMember: g.indexes.length + 2,
      tablesSaved: g.members * (g.indexes.length + 2) - (plan.commands.length + 2),
      foldedCollection: target,
      tenantField: field,
      example: g.examples[0] ?? null,
    },
    recommendation: ts
      ? {
          action: `one time-series collection ${codeSpan(target)} with ${field} in its metaField`,
          reason:
            `Each of the ${n(g.members)} time-series collections is a bucket collection with its own tables. ` +
            `One time-series collection with the tenant inside the metaField groups each tenant's measurements ` +
            `into their own buckets, and the metaField is indexed.${sampleWhy}`,
          commands: [
            shellTemplate(
              shellDbCall(g.db, 'createCollection', target, {
                timeseries: { timeField: shellCode('<time field>'), metaField: 'meta' },
              }),
            ),
            shellTemplate(
              `${shellCall(g.db, g.examples[0] ?? '<tenant collection>', 'aggregate', [
                { $set: { [`meta.${field}`]: shellCode('<tenant id>') } },
                { $merge: { into: target } },
              ])}  // per tenant; $merge into time-series needs 7.0+, else insert from the client`,
            ),
          ],
        }
      : {
          action: `fold into one collection ${codeSpan(target)} with ${field} leading each index`,
          reason:
            `${n(g.members)} collections with ${g.indexes.length + 1} indexes each ` +
            `are ${n(g.members * (g.indexes.length + 2))} ${tables}; ` +
            `one collection needs ${plan.commands.length + 2}. At hundreds of thousands of tables, nodes ran ` +
            `out of memory and startup took hours; in a test at 500,000 collections, one shared table for all ` +
            `collections (keys prefixed per collection) made reads and writes 10-100x faster and startup fall ` +
            `from hours to under a minute.${plan.notes.length ? ` ${plan.notes.join('. ')}.` : ''}${sampleWhy}`,
          commands: [
            shellDbCall(g.db, 'createCollection', target),
            ...plan.commands,
            shellTemplate(
              `${shellCall(g.db, g.examples[0] ?? '<tenant collection>', 'aggregate', [
                { $set: { [field]: shellCode('<tenant id>') } },
                { $merge: { into: target } },
              ])}  // once per tenant collection`,
            ),
          ],
        },
  });
}

export default defineRule({
  id: 'collection-count',
  needs: [serverStatus, inventory],
  scope: 'snapshot',
  meta: {
    description:
      'Collections and indexes in the deployment (each a WiredTiger table and data handle), and per-tenant collections',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/reduce-collections/',
    severity: 'warn',
    messages: MESSAGES,
    options: collectionCountOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    const inv = dataOf(inventory, snapshot);
    if (!inv) return; // the collector failed: its note says why
    const status = dataOf(serverStatus, snapshot);
    const handles = status?.dataHandles ?? null;
    const figures: Figures = { inv, t: totalsOf(inv), wt: onWiredTiger(snapshot.server), status, handles };
    const a: Analysis = { snapshot, options, report, note };
    deploymentFindings(a, figures);
    databaseFindings(a, figures);
    tenantFindings(a, figures);
  },
  confirm: {
    describe: 'first access over N new collections vs the same documents in one collection with a tenant field',
    messages: CONFIRM_MESSAGES,
    run: confirmCollectionCount,
  },
});

function groupCount(k: number, what: string): string {
  return `${k === 1 ? '1 group' : `${n(k)} groups`} of ${what}`;
}

function inOthers(groups: readonly { db: string }[]): string {
  const dbs = [...new Set(groups.map((g) => g.db))];
  return `in ${dbs.length === 1 ? 'another database' : `${dbs.length} other databases`} (${dbs
    .slice(0, 5)
    .map((d) => codeSpan(d))
    .join(', ')}${dbs.length > 5 ? ', …' : ''})`;
}

function checkThem(groups: readonly { db: string }[]): string {
  return `check ${new Set(groups.map((g) => g.db)).size === 1 ? 'it' : 'them'}, or run audit for the whole deployment`;
}
