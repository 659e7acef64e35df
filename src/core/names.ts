/**
 * Database and collection names as MongoDB defines them, checked before any command is sent, and the server's own
 * databases and collections, which the advisor never checks nor copies.
 *
 * Naming rules: MongoDB manual, "MongoDB Limits and Thresholds", Naming Restrictions
 * (https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions): a database name is not empty, is
 * shorter than 64 bytes, and holds none of `/\. "$` nor the null character (the set the manual gives for Unix and
 * Linux; `*<>:|?` are refused only by a server on Windows, so a database named with them may exist elsewhere); a
 * collection name is not empty, holds no `$` and no null character, and
 * does not begin with `system.` (reserved); database and collection together ("db.collection") take at most 255 bytes.
 * System collections: the manual's "System Collections" page
 * (https://www.mongodb.com/docs/manual/reference/system-collections/).
 */
import { UserError } from './errors';

/** Every database the advisor writes to starts with this; nothing else is ever written. */
export const SCRATCH_PREFIX = 'mongo_advisor_scratch_';

/** The appName every connection of the advisor sets, so its own operations are told apart in logs and the profiler. */
export const APP_NAME = 'mongo-advisor';

/**
 * The `comment` the advisor puts on its own finds and aggregates (src/adapters/tag.ts), so that the profiler and the
 * slow-query log, which record a command with its comment, tell its operations apart where no appName is recorded:
 * SecantusDB's profiler keeps none, and in mongosh the connection carries mongosh's appName.
 */
export const OWN_COMMENT = 'mongo-advisor';

const NAMING_DOCS = 'https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions';

/** Characters MongoDB refuses in a database name (the null character aside). */
const DB_FORBIDDEN = ['/', '\\', '.', ' ', '"', '$'] as const;

/** The largest database name in bytes (names must be shorter than 64 bytes). */
export const MAX_DB_NAME_BYTES = 63;
/** The largest namespace, `<db>.<collection>`, in bytes. */
export const MAX_NAMESPACE_BYTES = 255;

/** Databases that hold the server's own data: `local` (the oplog, startup log) and `config` (sessions, sharding). */
export const SYSTEM_DATABASES: ReadonlySet<string> = new Set(['local', 'config']);

/** System collections the manual names (any database), and the prefixes of those named after another collection. */
const KNOWN_SYSTEM_COLLECTIONS: ReadonlySet<string> = new Set([
  'system.users',
  'system.roles',
  'system.version',
  'system.backup_users',
  'system.new_users',
  'system.profile',
  'system.js',
  'system.views',
  'system.sessions',
  'system.indexes',
  'system.namespaces',
  'system.replset',
  'system.preimages',
  'system.keys',
]);
const KNOWN_SYSTEM_PREFIXES = ['system.buckets.', 'system.resharding.'] as const;

/** Whether a collection is the server's own (`system.*`): never checked, never copied into scratch. */
export function isSystemCollection(name: string): boolean {
  return name.startsWith('system.');
}

/** A `system.*` name the manual lists (system.profile, system.views, system.buckets.<name>, …). */
export function isKnownSystemCollection(name: string): boolean {
  return KNOWN_SYSTEM_COLLECTIONS.has(name) || KNOWN_SYSTEM_PREFIXES.some((p) => name.startsWith(p));
}

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

/** The name, quoted and cut to 80 characters, for a message (reporters make it terminal-safe). */
function quoted(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
}

/** Why MongoDB would refuse `name` as a database name, as one sentence; null when it is a valid name. */
export function databaseNameProblem(name: string): string | null {
  if (name === '') {
    return (
      `The database name is empty, and MongoDB database names have 1 to 63 bytes. ` +
      `Pass the name of one of your databases (${NAMING_DOCS}).`
    );
  }
  const bytes = utf8Bytes(name);
  if (bytes > MAX_DB_NAME_BYTES) {
    return (
      `Database name ${quoted(name)} is ${bytes} bytes long, and MongoDB database names must be shorter ` +
      `than 64 bytes, so no such database can exist. Check the name (${NAMING_DOCS}).`
    );
  }
  if (name.includes('\0')) {
    return (
      `Database name ${quoted(name)} holds a null character, which MongoDB does not allow in database names. ` +
      `Check the name (${NAMING_DOCS}).`
    );
  }
  const bad = DB_FORBIDDEN.filter((c) => name.includes(c));
  if (bad.length > 0) {
    const shown = bad.map((c) => JSON.stringify(c)).join(', ');
    return (
      `Database name ${quoted(name)} holds ${shown}, which MongoDB does not allow in database names ` +
      `(none of / \\ . space " $), so no such database can exist. Check the name; to check one ` +
      `collection, name its database and the collection apart, not as db.collection (${NAMING_DOCS}).`
    );
  }
  return null;
}

/** Why MongoDB would refuse `name` as a collection name in `db`, as one sentence; null when it is a valid name. */
export function collectionNameProblem(db: string, name: string): string | null {
  if (name === '') {
    return (
      `The collection name is empty, and MongoDB collection names are not. ` +
      `Pass the name of a collection of ${quoted(db)} (${NAMING_DOCS}).`
    );
  }
  if (name.includes('\0')) {
    return (
      `Collection name ${quoted(name)} holds a null character, which MongoDB does not allow in collection ` +
      `names. Check the name (${NAMING_DOCS}).`
    );
  }
  if (name.includes('$')) {
    return (
      `Collection name ${quoted(name)} holds "$", which MongoDB does not allow in collection names. ` +
      `Check the name (${NAMING_DOCS}).`
    );
  }
  if (isSystemCollection(name) && !isKnownSystemCollection(name)) {
    return (
      `Collection name ${quoted(name)} begins with "system.", which MongoDB reserves for its own collections, ` +
      `and names none of them. Check the name (${NAMING_DOCS}).`
    );
  }
  const bytes = utf8Bytes(`${db}.${name}`);
  if (bytes > MAX_NAMESPACE_BYTES) {
    return (
      `Collection name ${quoted(name)} makes the namespace ${bytes} bytes long, and MongoDB namespaces ` +
      `(database.collection) take at most 255 bytes. Check the name (${NAMING_DOCS}).`
    );
  }
  return null;
}

/** Why the advisor does not check database `name`: it is the server's own; null for any other database. */
export function systemDatabaseProblem(name: string): string | null {
  if (name === 'local') {
    return (
      'Database "local" holds the server\'s own data (the replication oplog, the startup log), not your ' +
      "application's: mongo-advisor neither checks it nor copies from it, so nothing was read. " +
      'Name one of your databases instead.'
    );
  }
  if (name === 'config') {
    return (
      'Database "config" holds the server\'s own data (sessions, sharding metadata), not your ' +
      "application's: mongo-advisor neither checks it nor copies from it, so nothing was read. " +
      'Name one of your databases instead.'
    );
  }
  return null;
}

/** Why the advisor does not check collection `name`: a system collection; null for any other collection. */
export function systemCollectionProblem(db: string, name: string): string | null {
  if (!isKnownSystemCollection(name)) return null;
  return (
    `Collection ${quoted(`${db}.${name}`)} is a system collection: the server keeps its own data there ` +
    '(users, roles, views, the profiler, time-series buckets), so mongo-advisor neither checks it nor copies ' +
    'from it, and nothing was read. Pass one of your collections, or none to check every collection of the database.'
  );
}

/**
 * Checks the databases and collections a run was asked for, before anything is sent: a name MongoDB refuses, or a
 * database or collection of the server's own, is a UserError (exit 2) saying what, why and what to do.
 */
export function checkTargets(dbs: readonly string[], collections: readonly string[] = []): void {
  for (const db of dbs) {
    const problem = databaseNameProblem(db) ?? systemDatabaseProblem(db);
    if (problem !== null) throw new UserError(problem);
  }
  for (const db of dbs) {
    for (const c of collections) {
      const problem = collectionNameProblem(db, c) ?? systemCollectionProblem(db, c);
      if (problem !== null) throw new UserError(problem);
    }
  }
}
