import { OWN_COMMENT } from '../core/names';
import type { Doc } from './types';

/**
 * Commands the advisor tags with its comment. find and aggregate take `comment` on every MongoDB version the advisor
 * reads (3.6 and later; "comment" in the find and aggregate command pages of MongoDB's manual); other commands took
 * it only from 4.4, where older servers refuse an unknown field, so they are sent as they are.
 */
const TAGGED = new Set(['find', 'aggregate']);

/** `cmd` with the advisor's comment added when it is a find or an aggregate without a comment of its own. */
export function tagged(cmd: Doc): Doc {
  const name = Object.keys(cmd)[0] ?? '';
  return TAGGED.has(name) && cmd.comment === undefined ? { ...cmd, comment: OWN_COMMENT } : cmd;
}
