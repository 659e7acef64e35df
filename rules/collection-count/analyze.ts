import { newCollectionName } from '../../src/lib/new-collection';
import { formatNumber } from '../../src/core/format';
import type { OptionsOf, OptionsSchema } from '../../src/core/rule';
import type { ServerInfo } from '../../src/core/types';
import type { DeploymentInventory, IndexBounds, IndexDefinition } from './inventory';
import { versionAtLeast } from '../../src/lib/version';
import { keyOfEntries } from '../../src/lib/names-as-data';
import { shellCall, shellCode, shellTemplate } from '../../src/lib/shell';
import { groupByPattern as groupNames } from '../../src/lib/name-groups';

export { namePatterns } from '../../src/lib/name-groups';

/*
 * The pure analysis of the deployment inventory (./collect.ts): name patterns and tenant groups, the modal index set,
 * the table counts and their bounds, and the folded collection's indexes. The collector stores what it read (counts,
 * names, deduplicated index sets); everything judged is computed here, from the snapshot, every time.
 */

/**
 * The rule's options. The collector reads the defaults too (`dataHandlesWarn`: whether exact index counts could
 * change the verdict); a lower value set by the user is judged here on bounds, never on a guess.
 */
export const collectionCountOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    perDatabaseInfo: {
      type: 'integer',
      minimum: 1,
      default: 100,
      description: 'Collections in one database worth a look: Atlas flags more than 100 collections per database.',
    },
    deploymentWarn: {
      type: 'integer',
      minimum: 1,
      default: 10_000,
      description: "Collections in the whole deployment to warn at: Compass's too-many-collections signal is 10,000.",
    },
    dataHandlesWarn: {
      type: 'integer',
      minimum: 1,
      default: 10_000,
      description:
        'Open WiredTiger data handles to warn at, and, where the handle figures cannot be read, WiredTiger ' +
        'tables (collections + indexes): each collection and index holds one, idle handles close only after ' +
        '~28 h (close_idle_time=100000), and a 2-core/4 GB node ran out of memory below 10,000 tables (a ' +
        'test with 2 indexes per collection).',
    },
    tenantMinCollections: {
      type: 'integer',
      minimum: 3,
      default: 10,
      description:
        'Fewest collections sharing a name pattern and an index set to call them per-tenant collections: ' +
        'our choice, a tenth of the Atlas 100-per-database line.',
    },
    tenantSameIndexShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.8,
      description:
        'Share of a group (of those whose indexes were read) that must have the same indexes: our choice, ' +
        'so a few collections with an extra index do not hide the pattern.',
    },
    tenantField: {
      type: 'string',
      minLength: 1,
      default: 'tenantId',
      description:
        'Field name proposed for the tenant id in the folded collection (one collection with a tenant field ' +
        'leading the indexes is the advice that works today).',
    },
  },
} as const satisfies OptionsSchema;

export type CollectionCountOptions = OptionsOf<typeof collectionCountOptionsSchema>;

/** Groups smaller than this are not looked for: the lowest `tenantMinCollections` the schema allows. */
export const MIN_GROUP_RECORDED = collectionCountOptionsSchema.properties.tenantMinCollections.minimum;
/** MongoDB allows at most 64 indexes per collection
 * (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Number-of-Indexes-per-Collection). */
export const MAX_INDEXES_PER_COLLECTION = 64;
/** The server's own databases: counted, never searched for tenants. */
export const INTERNAL_DBS: ReadonlySet<string> = new Set(['admin', 'local', 'config']);

/** Fewest indexes an unread collection can have: the `_id` index every collection outside `local` lists; system
 * collections (time-series buckets, system.profile) may have none. */
export function minIndexes(db: string, name: string): number {
  return db === 'local' || name.startsWith('system.') ? 0 : 1;
}

/** Whether the server stores collections as WiredTiger tables (a FerretDB or in-memory server does not). */
export function onWiredTiger(server: Pick<ServerInfo, 'storageEngine' | 'flavor'>): boolean {
  return server.storageEngine === 'wiredTiger' || (server.storageEngine === null && server.flavor === 'mongodb');
}

/** Groups names that share a pattern (src/lib/name-groups.ts); groups under `minMembers` are dropped. */
export function groupByPattern(
  names: readonly string[],
  minMembers = MIN_GROUP_RECORDED,
): { pattern: string; members: string[] }[] {
  return groupNames(names, minMembers);
}

/** The index set's identity, names left out (tenants' auto-generated names may differ only by accident). */
export function indexSignature(defs: readonly IndexDefinition[]): string {
  return defs
    .filter((d) => d.name !== '_id_')
    .map((d) =>
      JSON.stringify([
        d.key,
        d.unique ?? false,
        d.sparse ?? false,
        d.partial ?? false,
        d.expireAfterSeconds ?? null,
        d.textFields ?? null,
      ]),
    )
    .sort()
    .join('|');
}

/** Collections that share a name pattern, with their most common index set: per-tenant collections when they agree. */
export interface TenantGroup {
  db: string;
  /** The shared name with the varying part as `{id}`, e.g. `orders_{id}`. */
  pattern: string;
  members: number;
  /** Up to three member names (collection names are metadata, not document values). */
  examples: string[];
  /** 'timeseries' when the members are time-series collections. */
  kind: 'collection' | 'timeseries';
  /** Members whose indexes were read, and how many of those share the most common index set. */
  indexesRead: number;
  sameIndexes: number;
  /** The most common index set, `_id_` left out. */
  indexes: IndexDefinition[];
}

/**
 * The name-pattern groups of every database whose names the inventory kept, each with the most common index set of
 * the members whose index lists were read (none read: `indexesRead` 0, so nothing can be said of its indexes).
 */
export function tenantGroupsOf(inv: DeploymentInventory): TenantGroup[] {
  const signatures = new Map<number, string>();
  const signatureOf = (set: number): string => {
    let s = signatures.get(set);
    if (s === undefined) signatures.set(set, (s = indexSignature(inv.indexSets[set] ?? [])));
    return s;
  };
  const out: TenantGroup[] = [];
  const modalOf = (sets: readonly number[]): { read: number; modal: { count: number; set: number } | undefined } => {
    const bySignature = new Map<string, { count: number; set: number }>();
    let read = 0;
    for (const set of sets) {
      if (set < 0) continue;
      read++;
      const sig = signatureOf(set);
      const entry = bySignature.get(sig);
      if (entry) entry.count++;
      else bySignature.set(sig, { count: 1, set });
    }
    return { read, modal: [...bySignature.values()].sort((a, b) => b.count - a.count)[0] };
  };
  for (const d of inv.databases) {
    if (INTERNAL_DBS.has(d.name)) continue;
    // Groups the core read through representatives: their evidence is the representatives' index sets.
    for (const g of d.groups ?? []) {
      const { read, modal } = modalOf(g.sets);
      out.push({
        db: d.name,
        pattern: g.pattern,
        members: g.members,
        examples: g.examples.slice(0, 3),
        kind: g.kind,
        indexesRead: read,
        sameIndexes: modal?.count ?? 0,
        indexes: (modal ? (inv.indexSets[modal.set] ?? []) : []).filter((x) => x.name !== '_id_'),
      });
    }
    for (const [kind, list] of [
      ['collection', d.collectionNames],
      ['timeseries', d.timeseriesNames],
    ] as const) {
      if (!list) continue;
      const position = new Map(list.names.map((name, i) => [name, i]));
      for (const g of groupByPattern(list.names)) {
        const { read, modal } = modalOf(g.members.map((m) => list.sets?.[position.get(m) ?? -1] ?? -1));
        out.push({
          db: d.name,
          pattern: g.pattern,
          members: g.members.length,
          examples: g.members.slice(0, 3),
          kind,
          indexesRead: read,
          sameIndexes: modal?.count ?? 0,
          indexes: (modal ? (inv.indexSets[modal.set] ?? []) : []).filter((x) => x.name !== '_id_'),
        });
      }
    }
  }
  return out.sort((a, b) => b.members - a.members || a.db.localeCompare(b.db) || a.pattern.localeCompare(b.pattern));
}

/** Per-tenant collections, by the options: enough members, and most of those read share one index set. */
export function isTenantGroup(
  g: TenantGroup,
  o: Pick<CollectionCountOptions, 'tenantMinCollections' | 'tenantSameIndexShare'>,
): boolean {
  return (
    g.members >= o.tenantMinCollections && g.indexesRead > 0 && g.sameIndexes / g.indexesRead >= o.tenantSameIndexShare
  );
}

/** A count known exactly (min = max) or only within bounds. */
export interface Range {
  min: number;
  max: number;
  /** Where groups were read through representatives: the count with each member counted as they are. */
  estimate?: number;
}

export function indexRange(indexes: number | IndexBounds): Range {
  if (typeof indexes === 'number') return { min: indexes, max: indexes };
  const r: Range = { min: indexes.min, max: indexes.max };
  if (indexes.estimate !== undefined) r.estimate = indexes.estimate;
  return r;
}

/** `1,234`, `about 1,234` (estimated from groups' representatives), or `1,000–64,000` for a count within bounds. */
export function rangeText(r: Range): string {
  if (r.min === r.max) return formatNumber(r.min);
  if (r.estimate !== undefined) return `about ${formatNumber(r.estimate)}`;
  return `${formatNumber(r.min)}–${formatNumber(r.max)}`;
}

export interface Totals {
  databases: number;
  collections: number;
  views: number;
  timeseries: number;
  indexes: Range;
  /** WiredTiger tables: collections + indexes. */
  tables: Range;
  /** Collections whose index lists were not read (their indexes are bounds). */
  unread: number;
}

export function totalsOf(inv: DeploymentInventory): Totals {
  const t: Totals = {
    databases: inv.databases.length,
    collections: 0,
    views: 0,
    timeseries: 0,
    indexes: { min: 0, max: 0 },
    tables: { min: 0, max: 0 },
    unread: 0,
  };
  let estimate = 0;
  let estimated = false;
  for (const d of inv.databases) {
    t.collections += d.collections;
    t.views += d.views;
    t.timeseries += d.timeseries;
    const r = indexRange(d.indexes);
    t.indexes.min += r.min;
    t.indexes.max += r.max;
    estimate += r.estimate ?? r.min;
    if (r.estimate !== undefined) estimated = true;
    if (typeof d.indexes !== 'number') t.unread += d.indexes.unread;
  }
  t.tables = { min: t.collections + t.indexes.min, max: t.collections + t.indexes.max };
  if (estimated) {
    t.indexes.estimate = estimate;
    t.tables.estimate = t.collections + estimate;
  }
  return t;
}

/**
 * The folded collection's name: the pattern without its `{id}` and the separators around it; when the database already
 * holds a collection of that name (`orders` beside `orders_{id}`), `<name>_folded` (then `_folded_2`…): the printed
 * createIndex and $merge must never write into a collection that holds other data.
 */
export function foldedName(pattern: string, taken: ReadonlySet<string> = new Set()): string {
  const name =
    pattern
      .replace(/([_\-.:])\{id\}([_\-.:])/, '$1')
      .replace('{id}', '')
      .replace(/^[_\-.:]+|[_\-.:]+$/g, '') || 'tenants';
  return taken.has(name) ? newCollectionName(`${name}_folded`, taken) : name;
}

/**
 * The createIndex command for the folded collection; a partial index's filter, or a key, that is a placeholder to fill
 * in makes the line a template (a comment), not a command that fails or does the wrong thing when pasted.
 */
function createCommand(
  db: string,
  target: string,
  key: Record<string, number | string>,
  d: IndexDefinition,
  extra: Record<string, unknown> = {},
): string {
  const o: Record<string, unknown> = {
    ...(d.unique ? { unique: true } : {}),
    ...(d.sparse ? { sparse: true } : {}),
    ...(d.expireAfterSeconds !== undefined ? { expireAfterSeconds: d.expireAfterSeconds } : {}),
    ...extra,
    ...(d.partial ? { partialFilterExpression: shellCode('<copy it from the tenant collections>') } : {}),
  };
  const command = Object.keys(o).length
    ? shellCall(db, target, 'createIndex', key, o)
    : shellCall(db, target, 'createIndex', key);
  // a key that is a placeholder (`<text fields>`, when the text index's fields are unknown) is filled in first too
  return d.partial || Object.keys(key).some((k) => /^<.*>$/.test(k)) ? shellTemplate(command) : command;
}

export interface FoldedIndexPlan {
  commands: string[];
  /** One line per index that cannot simply lead with the tenant field, saying why and what instead. */
  notes: string[];
}

/** The indexes of the folded collection: each tenant index with the tenant field in front, where the index type allows
 * it. */
export function foldedIndexes(target: string, g: TenantGroup, field: string, version: number[]): FoldedIndexPlan {
  const commands: string[] = [];
  const notes: string[] = [];
  let leads = false;
  for (const d of g.indexes) {
    const values = Object.values(d.key);
    const fields = Object.keys(d.key);
    if (fields[0] === field) {
      commands.push(createCommand(g.db, target, d.key, d));
      leads = true;
      continue;
    }
    if (d.expireAfterSeconds !== undefined) {
      commands.push(createCommand(g.db, target, d.key, d));
      notes.push(`TTL index ${d.name}: a TTL index must be single-field, so it stays without ${field}`);
      continue;
    }
    if (d.key._fts === 'text') {
      // fields are names: `textKey.__proto__ = 'text'` would set no key
      const textKey = keyOfEntries<number | string>([
        [field, 1],
        ...(d.textFields ?? ['<text fields>']).map((f): [string, string] => [f, 'text']),
      ]);
      commands.push(createCommand(g.db, target, textKey, d));
      notes.push(`text index ${d.name}: with ${field} in front, every $text query must give ${field} by equality`);
      leads = true;
      continue;
    }
    if (values.includes('2d')) {
      commands.push(createCommand(g.db, target, { ...d.key, [field]: 1 }, d));
      notes.push(
        `2d index ${d.name}: a 2d index must start with the location, so ${field} comes second (or move to ` +
          `2dsphere, which can lead with ${field})`,
      );
      continue;
    }
    if (fields.some((f) => f === '$**' || f.endsWith('.$**'))) {
      if (!versionAtLeast(version, 7, 0)) {
        commands.push(createCommand(g.db, target, d.key, d));
        notes.push(
          `wildcard index ${d.name}: compound wildcard indexes need MongoDB 7.0 (this server ` +
            `is ${version.slice(0, 3).join('.')}), so it stays as is and queries filter on ${field} through ` +
            `another index`,
        );
        continue;
      }
      const projection = fields.includes('$**') ? { wildcardProjection: { [field]: 0 } } : {};
      commands.push(createCommand(g.db, target, { [field]: 1, ...d.key }, d, projection));
      const leftOut = fields.includes('$**') ? `, with ${field} left out of its projection as the server requires` : '';
      notes.push(`wildcard index ${d.name}: a compound wildcard index (7.0+)${leftOut}`);
      leads = true;
      continue;
    }
    if (values.includes('hashed') && !versionAtLeast(version, 4, 4)) {
      commands.push(createCommand(g.db, target, d.key, d));
      notes.push(`hashed index ${d.name}: compound hashed indexes need MongoDB 4.4, so it stays as is`);
      continue;
    }
    commands.push(createCommand(g.db, target, { [field]: 1, ...d.key }, d));
    if (d.unique)
      notes.push(`unique index ${d.name}: with ${field} in front it stays unique per tenant, as it was per collection`);
    leads = true;
  }
  if (!leads) commands.unshift(shellCall(g.db, target, 'createIndex', { [field]: 1 }));
  return { commands, notes };
}
