import type { IndexDefinition, TenantGroup } from '../../src/core/types';

export interface CollectionCountOptions extends Record<string, unknown> {
  perDatabaseInfo: number;
  deploymentWarn: number;
  dataHandlesWarn: number;
  tenantMinCollections: number;
  tenantSameIndexShare: number;
  tenantField: string;
}

/** The folded collection's name: the pattern without its `{id}` and the separators around it. */
export function foldedName(pattern: string): string {
  const name = pattern
    .replace(/([_\-.:])\{id\}([_\-.:])/, '$1')
    .replace('{id}', '')
    .replace(/^[_\-.:]+|[_\-.:]+$/g, '');
  return name || 'tenants';
}

function versionAtLeast(v: number[], major: number, minor: number): boolean {
  const [a = 0, b = 0] = v;
  return a > major || (a === major && b >= minor);
}

const keyText = (key: Record<string, number | string>): string =>
  `{ ${Object.entries(key).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${typeof v === 'string' ? JSON.stringify(v) : v}`).join(', ')} }`;

function optionsText(d: IndexDefinition, extra: Record<string, unknown> = {}): string {
  const o: string[] = [];
  if (d.unique) o.push('unique: true');
  if (d.sparse) o.push('sparse: true');
  if (d.expireAfterSeconds !== undefined) o.push(`expireAfterSeconds: ${d.expireAfterSeconds}`);
  for (const [k, v] of Object.entries(extra)) o.push(`${k}: ${JSON.stringify(v)}`);
  if (d.partial) o.push('partialFilterExpression: <copy it from the tenant collections>');
  return o.length ? `, { ${o.join(', ')} }` : '';
}

export interface FoldedIndexPlan {
  commands: string[];
  /** One line per index that cannot simply lead with the tenant field, saying why and what instead. */
  notes: string[];
}

/** The indexes of the folded collection: each tenant index with the tenant field in front, where the index type allows it. */
export function foldedIndexes(target: string, g: TenantGroup, field: string, version: number[]): FoldedIndexPlan {
  const commands: string[] = [];
  const notes: string[] = [];
  const coll = `db.getCollection(${JSON.stringify(target)})`;
  let leads = false;
  for (const d of g.indexes) {
    const values = Object.values(d.key);
    const fields = Object.keys(d.key);
    if (fields[0] === field) {
      commands.push(`${coll}.createIndex(${keyText(d.key)}${optionsText(d)})`);
      leads = true;
      continue;
    }
    if (d.expireAfterSeconds !== undefined) {
      commands.push(`${coll}.createIndex(${keyText(d.key)}${optionsText(d)})`);
      notes.push(`TTL index ${d.name}: a TTL index must be single-field, so it stays without ${field}`);
      continue;
    }
    if (d.key._fts === 'text') {
      const textKey: Record<string, number | string> = { [field]: 1 };
      for (const f of d.textFields ?? ['<text fields>']) textKey[f] = 'text';
      commands.push(`${coll}.createIndex(${keyText(textKey)}${optionsText(d)})`);
      notes.push(`text index ${d.name}: with ${field} in front, every $text query must give ${field} by equality`);
      leads = true;
      continue;
    }
    if (values.includes('2d')) {
      commands.push(`${coll}.createIndex(${keyText({ ...d.key, [field]: 1 })}${optionsText(d)})`);
      notes.push(`2d index ${d.name}: a 2d index must start with the location, so ${field} comes second (or move to 2dsphere, which can lead with ${field})`);
      continue;
    }
    if (fields.some((f) => f === '$**' || f.endsWith('.$**'))) {
      if (!versionAtLeast(version, 7, 0)) {
        commands.push(`${coll}.createIndex(${keyText(d.key)}${optionsText(d)})`);
        notes.push(`wildcard index ${d.name}: compound wildcard indexes need MongoDB 7.0 (this server is ${version.slice(0, 3).join('.')}), so it stays as is and queries filter on ${field} through another index`);
        continue;
      }
      commands.push(`${coll}.createIndex(${keyText({ [field]: 1, ...d.key })}${optionsText(d, fields.includes('$**') ? { wildcardProjection: { [field]: 0 } } : {})})`);
      notes.push(`wildcard index ${d.name}: a compound wildcard index (7.0+)${fields.includes('$**') ? `, with ${field} left out of its projection as the server requires` : ''}`);
      leads = true;
      continue;
    }
    if (values.includes('hashed') && !versionAtLeast(version, 4, 4)) {
      commands.push(`${coll}.createIndex(${keyText(d.key)}${optionsText(d)})`);
      notes.push(`hashed index ${d.name}: compound hashed indexes need MongoDB 4.4, so it stays as is`);
      continue;
    }
    commands.push(`${coll}.createIndex(${keyText({ [field]: 1, ...d.key })}${optionsText(d)})`);
    if (d.unique) notes.push(`unique index ${d.name}: with ${field} in front it stays unique per tenant, as it was per collection`);
    leads = true;
  }
  if (!leads) commands.unshift(`${coll}.createIndex({ ${field}: 1 })`);
  return { commands, notes };
}
