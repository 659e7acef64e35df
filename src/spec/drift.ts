import type { CollectionSnapshot, IndexSnapshot, Note, Snapshot } from '../core/types';
import { type DeclaredCollection, type DeclaredIndex, dbOf, defaultIndexName, type Spec } from './format';
import type { SpecFindingInput } from './static';
import { shellCall } from '../lib/shell';

const keyText = (key: Record<string, number | string>): string => JSON.stringify(key);
const sameKey = (a: Record<string, number | string>, b: Record<string, number | string>): boolean =>
  JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));

/** Canonical JSON (sorted keys) so declared and stored validators compare by content, not key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function indexDifferences(d: DeclaredIndex, live: IndexSnapshot): string[] {
  const diffs: string[] = [];
  const flag = (name: string, declared: boolean, actual: boolean): void => {
    if (declared !== actual) diffs.push(`${name}: declared ${declared}, live ${actual}`);
  };
  flag('unique', d.unique === true, live.unique === true);
  flag('sparse', d.sparse === true, live.sparse === true);
  flag('hidden', d.hidden === true, live.hidden === true);
  // The snapshot records only that a partial filter exists, not the filter (it may hold values).
  flag('partial', d.partialFilterExpression !== undefined, live.partial === true);
  if ((d.expireAfterSeconds ?? null) !== (live.expireAfterSeconds ?? null))
    diffs.push(
      `expireAfterSeconds: declared ${d.expireAfterSeconds ?? 'none'}, live ${live.expireAfterSeconds ?? 'none'}`,
    );
  if (d.collation !== undefined || live.collation !== undefined) {
    const locale = (c: Record<string, unknown> | undefined): string =>
      typeof c?.locale === 'string' ? c.locale : 'simple';
    const dl = locale(d.collation);
    const ll = locale(live.collation);
    if (dl !== ll) diffs.push(`collation locale: declared ${dl}, live ${ll}`);
  }
  if (d.name && d.name !== live.name) diffs.push(`name: declared ${d.name}, live ${live.name}`);
  return diffs;
}

function collectionDifferences(d: DeclaredCollection, live: CollectionSnapshot): string[] {
  const o = d.options ?? {};
  const diffs: string[] = [];
  if ((o.clusteredIndex !== undefined) !== live.clustered)
    diffs.push(`clustered: declared ${o.clusteredIndex !== undefined}, live ${live.clustered}`);
  if ((o.capped === true) !== live.capped) diffs.push(`capped: declared ${o.capped === true}, live ${live.capped}`);
  const declaredValidator = o.validator !== undefined && Object.keys(o.validator).length > 0;
  if (declaredValidator !== live.validator.present)
    diffs.push(`validator: ${declaredValidator ? 'declared, missing on the live collection' : 'live, not declared'}`);
  else if (declaredValidator && o.validator) {
    const dj = o.validator.$jsonSchema;
    if (
      dj !== undefined &&
      live.validator.jsonSchema !== undefined &&
      canonical(dj) !== canonical(live.validator.jsonSchema)
    )
      diffs.push('validator: the live $jsonSchema differs from the declared one');
    if ((dj !== undefined) !== (live.validator.jsonSchema !== undefined))
      diffs.push(
        `validator: declared ${dj !== undefined ? 'a $jsonSchema' : 'query operators'}, ` +
          `live ${live.validator.jsonSchema !== undefined ? 'a $jsonSchema' : 'query operators'}`,
      );
  }
  if (declaredValidator || live.validator.present) {
    const level = (x: string | undefined): string => x ?? 'strict';
    const action = (x: string | undefined): string => x ?? 'error';
    if (level(o.validationLevel) !== level(live.validator.validationLevel))
      diffs.push(
        `validationLevel: declared ${level(o.validationLevel)}, live ${level(live.validator.validationLevel)}`,
      );
    if (action(o.validationAction) !== action(live.validator.validationAction))
      diffs.push(
        `validationAction: declared ${action(o.validationAction)}, live ${action(live.validator.validationAction)}`,
      );
  }
  return diffs;
}

/**
 * Drift between a spec and what was collected: declared but missing, live but undeclared, different options.
 * Only databases the snapshot covers are compared; the others get a note.
 */
export function specDrift(spec: Spec, snapshot: Snapshot): { findings: SpecFindingInput[]; notes: Note[] } {
  const findings: SpecFindingInput[] = [];
  const notes: Note[] = [];
  const declaredDbs = [...new Set(spec.collections.map((c) => dbOf(c, spec)))];
  for (const db of declaredDbs) {
    const liveDb = snapshot.databases.find((d) => d.name === db);
    if (!liveDb) {
      const message =
        `drift not checked for database ${db}: the snapshot does not cover it (collect it with ` + `--db ${db})`;
      notes.push({ level: 'skipped', target: { db }, message });
      continue;
    }
    const declared = spec.collections.filter((c) => dbOf(c, spec) === db);
    for (const d of declared) {
      findings.push(
        ...collectionDrift(
          db,
          d,
          liveDb.collections.find((c) => c.name === d.name),
        ),
      );
    }
    if (spec.reportUndeclared !== false) findings.push(...undeclaredCollections(db, declared, liveDb.collections));
  }
  return { findings, notes };
}

/** One declared collection against the live one: missing, other options, then its indexes. */
function collectionDrift(db: string, d: DeclaredCollection, live: CollectionSnapshot | undefined): SpecFindingInput[] {
  const target = { db, collection: d.name };
  if (!live) {
    const n = d.indexes?.length ?? 0;
    const indexes = n ? ` (nor its ${n} declared index${n === 1 ? '' : 'es'})` : '';
    return [
      {
        ruleId: 'spec-drift',
        messageId: 'missingCollection',
        target,
        message: `${db}.${d.name} is declared but does not exist on the server${indexes}.`,
        evidence: { declaredIndexes: d.indexes?.length ?? 0 },
        recommendation: {
          action: 'create it as declared',
          reason:
            'Options such as clustering cannot be added later: create the collection before the application ' +
            'writes to it.',
        },
      },
    ];
  }
  const findings: SpecFindingInput[] = [];
  const diffs = collectionDifferences(d, live);
  if (diffs.length) {
    const message = `${db}.${d.name} differs from its declaration: ${diffs.join('; ')}.`;
    const evidence = { differences: diffs.length };
    findings.push({ ruleId: 'spec-drift', messageId: 'collectionOptions', target, message, evidence });
  }
  const liveIndexes = live.indexes.filter((i) => !(i.name === '_id_'));
  for (const di of d.indexes ?? []) findings.push(...declaredIndexDrift(db, d.name, di, liveIndexes));
  for (const li of liveIndexes) {
    if ((d.indexes ?? []).some((di) => sameKey(li.key, di.key))) continue;
    findings.push({
      ruleId: 'spec-drift',
      messageId: 'undeclaredIndex',
      target: { ...target, index: li.name },
      message:
        `Index ${li.name} ${keyText(li.key)} exists on ${db}.${d.name} but is not declared: every write ` +
        `maintains it.`,
      evidence: { key: keyText(li.key), sizeBytes: li.sizeBytes },
      recommendation: {
        action: 'declare it or drop it',
        reason: 'An index built by hand drifts out of review; declare it if the application needs it.',
      },
    });
  }
  return findings;
}

/** One declared index: not built, or built with other options. */
function declaredIndexDrift(
  db: string,
  collection: string,
  di: DeclaredIndex,
  liveIndexes: readonly IndexSnapshot[],
): SpecFindingInput[] {
  const target = { db, collection };
  const match = liveIndexes.find((li) => sameKey(li.key, di.key));
  if (!match) {
    const create = di.name
      ? shellCall(db, collection, 'createIndex', di.key, { name: di.name })
      : shellCall(db, collection, 'createIndex', di.key);
    return [
      {
        ruleId: 'spec-drift',
        messageId: 'missingIndex',
        target: { ...target, index: di.name ?? defaultIndexName(di.key) },
        message: `Index ${keyText(di.key)} is declared on ${db}.${collection} but not built on the server.`,
        evidence: { key: keyText(di.key) },
        recommendation: { action: 'build it', reason: 'Queries written for it scan instead.', commands: [create] },
      },
    ];
  }
  const idiffs = indexDifferences(di, match);
  if (!idiffs.length) return [];
  return [
    {
      ruleId: 'spec-drift',
      messageId: 'indexOptions',
      target: { ...target, index: match.name },
      message: `Index ${match.name} on ${db}.${collection} differs from its declaration: ${idiffs.join('; ')}.`,
      evidence: { differences: idiffs.length },
    },
  ];
}

/** Live collections the spec does not declare (info: the spec may cover part of the database on purpose). */
function undeclaredCollections(
  db: string,
  declared: readonly DeclaredCollection[],
  live: readonly CollectionSnapshot[],
): SpecFindingInput[] {
  return live
    .filter((c) => !declared.some((d) => d.name === c.name))
    .map((c) => ({
      ruleId: 'spec-drift',
      messageId: 'undeclaredCollection',
      severity: 'info',
      target: { db, collection: c.name },
      message: `${db}.${c.name} exists on the server but is not declared in the spec.`,
      evidence: { type: c.type },
    }));
}
