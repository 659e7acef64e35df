/**
 * Hide first, drop later: the commands and words for taking an index away, shared by every finding that advises it
 * (index-usage's unused and redundant indexes, query-indexes' prefixes a proposal makes redundant). A hidden index is
 * still maintained but invisible to the planner (MongoDB 4.4+), and `unhideIndex` brings it back at once.
 */
import type { Recommendation } from '../core/types';
import { formatKey, type IndexShape } from './index-keys';
import { versionAtLeast } from './version';
import { codeSpan, shellCall, shellCommentOut } from './shell';

/** The server facts hiding depends on. */
export interface HideServer {
  flavor: string;
  versionArray: readonly number[];
}

/** The steps of taking an index away: the runnable block now, the drop later (Recommendation's two parts). */
export interface HideDropSteps {
  commands: string[];
  later?: { when: string; commands: string[] };
}

/** When the drop may follow the hide. */
export const DROP_WHEN =
  'after a full business cycle (a month-end, a quarter-end) with the index hidden and no query slower';

/** db.collection.hideIndex() exists on MongoDB 4.4 and later (not on FerretDB). */
export function canHide(server: HideServer): boolean {
  return server.flavor === 'mongodb' && versionAtLeast(server.versionArray, 4, 4);
}

/**
 * Hide now, drop later: the runnable step hides the index and says (as a comment) how to unhide it; the drop is a
 * later step, printed commented out, so pasting the first block cannot drop anything. Where the server cannot hide,
 * the drop is the step.
 */
export function hideThenDrop(server: HideServer, db: string, coll: string, index: string): HideDropSteps {
  const drop = shellCall(db, coll, 'dropIndex', index);
  if (!canHide(server)) return { commands: [drop] };
  return {
    commands: [
      shellCall(db, coll, 'hideIndex', index),
      shellCommentOut(`to undo, if a query slows down: ${shellCall(db, coll, 'unhideIndex', index)}`),
    ],
    later: { when: DROP_WHEN, commands: [drop] },
  };
}

/** Several indexes' steps as one: the hides now, the drops later. */
export function hideThenDropAll(
  server: HideServer,
  db: string,
  coll: string,
  indexes: readonly string[],
): HideDropSteps {
  const steps = indexes.map((ix) => hideThenDrop(server, db, coll, ix));
  const later = steps.flatMap((s) => s.later?.commands ?? []);
  return {
    commands: steps.flatMap((s) => s.commands),
    ...(later.length ? { later: { when: DROP_WHEN, commands: later } } : {}),
  };
}

/** The action that goes with hideThenDrop's commands: "hide it, then drop it" only where hideIndex exists. */
export function hideThenDropAction(server: HideServer): string {
  return canHide(server) ? 'hide it, then drop it' : 'drop it';
}

/** Why hide first, or why this server cannot; the command quoted is built like the one printed. */
export function hideFirst(server: HideServer, db: string, coll: string, index: string): string {
  return canHide(server)
    ? `Hide it first: ${codeSpan(shellCall(db, coll, 'hideIndex', index))} keeps it maintained but invisible to ` +
        `the planner, and \`unhideIndex\` brings it back at once if a query slows down; drop it once nothing has.`
    : `This server has no \`hideIndex\` (MongoDB 4.4+ has it, to take an index out of the planner's choices ` +
        `before dropping it), so rebuilding it is the way back if a query slows down.`;
}

/** Commands to run first (a createIndex), then the hides, with the drops as the later step. */
export function withHides(first: readonly string[], steps: HideDropSteps): HideDropSteps {
  return { commands: [...first, ...steps.commands], ...(steps.later ? { later: steps.later } : {}) };
}

/**
 * A proposal's recommendation with the existing indexes it makes redundant prefixes of, said in the same finding
 * (Atlas Performance Advisor lists them beside its proposal): create the new index, then hide the prefixes now and
 * drop them later. Without a server to hide on (a declared spec, lint offline), the words alone: remove them once it
 * is built. The one builder for query-indexes and `lint --queries`.
 */
export function withRedundantPrefixes(
  create: { action: string; reason: string; commands: string[] },
  redundant: readonly IndexShape[],
  on: { db: string; coll: string; server?: HideServer | undefined },
): Recommendation {
  if (redundant.length === 0) return create;
  const one = redundant.length === 1;
  const names = redundant.map((ix) => `${codeSpan(ix.name)} ${formatKey(ix.key)}`).join(' and ');
  const which = one ? 'is a prefix of it and redundant' : 'are prefixes of it and redundant';
  const serves =
    `${one ? 'That index serves' : 'Those indexes serve'} nothing the new one does not (the same leading fields, ` +
    `directions and options) and ${one ? 'costs' : 'cost'} every write:`;
  if (!on.server)
    return {
      ...create,
      action: `${create.action}; then remove ${names}, which ${which} once it is built`,
      reason:
        `${create.reason} ${serves} hide the shorter index before dropping it, and drop it once nothing has ` +
        'slowed.',
    };
  const names2 = redundant.map((ix) => ix.name);
  const first = names2[0] ?? '';
  return {
    action: `${create.action}; then hide and drop ${names}, which ${which} once it is built`,
    reason: `${create.reason} ${serves} build the new index first; ${hideFirst(on.server, on.db, on.coll, first)}`,
    ...withHides(create.commands, hideThenDropAll(on.server, on.db, on.coll, names2)),
  };
}
