/**
 * Server gaps that more than one place can hit, each with one key and one cause, so the human reports print one line
 * per gap (`collapseGaps` in src/report/group.ts) that names every place it affected, where each place's note would
 * otherwise say the same gap again in its own words. A note keeps its whole message for JSON and snapshots.
 */
import type { Gap } from './types';

/** $collStats counts a collection's documents but gives 0 bytes for it (SecantusDB: every size reads 0). */
export const COLLSTATS_ZERO_SIZES = {
  key: 'collstats-zero-sizes',
  cause:
    '$collStats counted documents but reported sizes of 0 bytes: this server does not measure them, ' +
    'so those sizes are unknown, not 0 B',
} as const;

/** A gap as a note carries it: its key and cause, and what this place could not check because of it. */
export function gapOf(g: { key: string; cause: string }, effect: string): Gap {
  return { key: g.key, cause: g.cause, effect };
}
