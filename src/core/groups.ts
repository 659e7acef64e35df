import type { Snapshot } from './types';

/**
 * Collections of a snapshot: every one the databases hold (group members counted, src/collect/groups.ts) and those
 * read in full (the snapshot's rows). A database read whole has no groups: both are its rows.
 */
export function collectionTotals(snapshot: Pick<Snapshot, 'databases'>): { total: number; read: number } {
  let total = 0;
  let read = 0;
  for (const d of snapshot.databases) {
    read += d.collections.length;
    total += d.collections.length;
    for (const g of d.groups ?? []) total += Math.max(0, g.members - g.read.length);
  }
  return { total, read };
}
