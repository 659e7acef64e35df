import type { Snapshot } from '../core/types';

/**
 * The name a printed command gives a collection it creates or writes a copy into: `name` when the database read holds
 * no collection of that name, else `name_2`, `name_3`…. A pasted createIndex, insert or `$out` must never write into
 * a collection that already holds other data (`$out` replaces it whole).
 */
export function newCollectionName(name: string, taken: ReadonlySet<string>): string {
  let out = name;
  for (let i = 2; taken.has(out); i++) out = `${name}_${i}`;
  return out;
}

/** The collection names the snapshot holds for `db` (what the run listed of it). */
export function collectionNamesIn(snapshot: Pick<Snapshot, 'databases'>, db: string): Set<string> {
  return new Set(snapshot.databases.find((d) => d.name === db)?.collections.map((c) => c.name));
}
