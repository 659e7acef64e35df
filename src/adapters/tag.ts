import { OWN_COMMENT } from '../core/names';
import type { Doc } from './types';

/**
 * Commands the advisor tags with its comment, so that a profiler at level 2 (and the slow-query log) can tell its
 * reads from the application's, and the workload readers leave them out (src/workload/record.ts `exclusionOf`).
 *
 * - find and aggregate take `comment` on every MongoDB version the advisor reads (3.6 and later; "comment" in the find
 *   and aggregate command pages of MongoDB's manual): always tagged.
 * - count and distinct take it from MongoDB 4.4 ("comment: … New in version 4.4" on the count and distinct command
 *   pages); an older server refuses an unknown field, so they are tagged only once the server is known to be 4.4 or
 *   later (`versionArray` of its buildInfo reply, which the collect probe reads first: src/collect/probe.ts).
 */
const ALWAYS = new Set(['find', 'aggregate']);
const FROM_4_4 = new Set(['count', 'distinct']);

/** Whether a version array is 4.4 or later. */
function atLeast44(version: readonly number[] | undefined): boolean {
  const [major = 0, minor = 0] = version ?? [];
  return major > 4 || (major === 4 && minor >= 4);
}

/**
 * `cmd` with the advisor's comment added when it is a find or an aggregate (any version), or a count or a distinct on a
 * server known to be 4.4 or later (`version`: its buildInfo `versionArray`; unknown: not tagged), without a comment of
 * its own.
 */
export function tagged(cmd: Doc, version?: readonly number[]): Doc {
  const name = Object.keys(cmd)[0] ?? '';
  if (cmd.comment !== undefined) return cmd;
  if (ALWAYS.has(name) || (FROM_4_4.has(name) && atLeast44(version))) return { ...cmd, comment: OWN_COMMENT };
  return cmd;
}

/** The server's version from a buildInfo reply, when `cmd` was a buildInfo and the reply says it; else undefined. */
export function versionOfReply(cmd: Doc, reply: Doc): number[] | undefined {
  if (Object.keys(cmd)[0] !== 'buildInfo' && Object.keys(cmd)[0] !== 'buildinfo') return undefined;
  const v = reply.versionArray;
  return Array.isArray(v) && v.length >= 2 && v.every((x) => Number.isFinite(Number(x))) ? v.map(Number) : undefined;
}
