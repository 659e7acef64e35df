/**
 * Hide first, drop later: the commands and words for taking an index away, shared by every finding that advises it
 * (index-usage's unused and redundant indexes, query-indexes' prefixes a proposal makes redundant). A hidden index is
 * still maintained but invisible to the planner (MongoDB 4.4+), and `unhideIndex` brings it back at once.
 */
import { versionAtLeast } from './version';
import { shellCollection } from './shell';

/** The server facts hiding depends on. */
export interface HideServer {
  flavor: string;
  versionArray: readonly number[];
}

/** db.collection.hideIndex() exists on MongoDB 4.4 and later (not on FerretDB). */
export function canHide(server: HideServer): boolean {
  return server.flavor === 'mongodb' && versionAtLeast(server.versionArray, 4, 4);
}

/** The hideIndex then dropIndex commands, or dropIndex alone where the server cannot hide. */
export function hideThenDrop(server: HideServer, coll: string, index: string): string[] {
  const c = shellCollection(coll);
  return canHide(server)
    ? [`${c}.hideIndex(${JSON.stringify(index)})`, `${c}.dropIndex(${JSON.stringify(index)})`]
    : [`${c}.dropIndex(${JSON.stringify(index)})`];
}

/** The action that goes with hideThenDrop's commands: "hide it, then drop it" only where hideIndex exists. */
export function hideThenDropAction(server: HideServer): string {
  return canHide(server) ? 'hide it, then drop it' : 'drop it';
}

/** Why hide first, or why this server cannot. */
export function hideFirst(server: HideServer, index: string): string {
  return canHide(server)
    ? `Hide it first: \`db.collection.hideIndex("${index}")\` keeps it maintained but invisible to the ` +
        `planner, and \`unhideIndex\` brings it back at once if a query slows down; drop it once nothing has.`
    : `This server has no \`hideIndex\` (MongoDB 4.4+ has it, to take an index out of the planner's choices ` +
        `before dropping it), so rebuilding it is the way back if a query slows down.`;
}
