/**
 * What the user's roles allow, read from one `connectionStatus` reply with `showPrivileges: true`
 * (https://www.mongodb.com/docs/manual/reference/command/connectionStatus/: `authInfo.authenticatedUsers`,
 * `authenticatedUserRoles`, and `authenticatedUserPrivileges[n].resource` / `.actions`). Pure: no I/O. The actions each
 * command needs are from the manual's Privilege Actions page
 * (https://www.mongodb.com/docs/manual/reference/privilege-actions/) and resources from Resource Document
 * (https://www.mongodb.com/docs/manual/reference/resource-document/). docs/roles.md says the same for people.
 */

/** The command the probe sends, once, to the admin database. */
export const PRIVILEGE_PROBE = { connectionStatus: 1, showPrivileges: true } as const;

export type ResourceScope = 'cluster' | 'database' | 'collection';

export interface PrivilegeCheck {
  /** What the advisor does with it, as a report names it. */
  check: string;
  /** The command sent. */
  command: string;
  /** The privilege action that authorizes it. */
  action: string;
  scope: ResourceScope;
  /** collect reads the user's databases; confirm writes to the scratch database. */
  phase: 'collect' | 'confirm';
  /** What happens without it. */
  without: string;
}

export const PRIVILEGE_CHECKS: readonly PrivilegeCheck[] = [
  {
    check: 'database list',
    command: 'listDatabases',
    action: 'listDatabases',
    scope: 'cluster',
    phase: 'collect',
    without: 'only the databases your roles name are listed (authorizedDatabases)',
  },
  {
    check: 'collection list',
    command: 'listCollections',
    action: 'listCollections',
    scope: 'database',
    phase: 'collect',
    without: 'only the collections your roles name are listed (authorizedCollections)',
  },
  {
    check: 'index definitions',
    command: 'listIndexes',
    action: 'listIndexes',
    scope: 'collection',
    phase: 'collect',
    without: 'no index definitions: index rules are skipped',
  },
  {
    check: 'collection sizes ($collStats)',
    command: 'aggregate $collStats',
    action: 'collStats',
    scope: 'collection',
    phase: 'collect',
    without: 'no sizes or counts: size-based rules are skipped',
  },
  {
    check: 'document sample ($sample, find)',
    command: 'aggregate $sample / find',
    action: 'find',
    scope: 'collection',
    phase: 'collect',
    without: 'no sample: schema rules are skipped',
  },
  {
    check: 'document counts',
    command: 'count',
    action: 'find',
    scope: 'collection',
    phase: 'collect',
    without: 'no server-side counts (empty collections, validator violators)',
  },
  {
    check: 'query plans (explain of reads)',
    command: 'explain',
    action: 'find',
    scope: 'collection',
    phase: 'collect',
    without: 'no plans: plan checks are skipped',
  },
  {
    check: 'delete plans (explain of a delete at queryPlanner)',
    command: 'explain delete',
    action: 'remove',
    scope: 'collection',
    phase: 'collect',
    without: 'no delete plan verdict (clustered-trap): explain needs the explained command’s own action',
  },
  {
    check: 'index usage ($indexStats)',
    command: 'aggregate $indexStats',
    action: 'indexStats',
    scope: 'collection',
    phase: 'collect',
    without: 'no index usage: unused-index advice is skipped',
  },
  {
    check: 'server status (storage engine, cache)',
    command: 'serverStatus',
    action: 'serverStatus',
    scope: 'cluster',
    phase: 'collect',
    without: 'no cache size or data-handle figures',
  },
  {
    check: 'replica-set configuration (hidden members)',
    command: 'replSetGetConfig',
    action: 'replSetGetConfig',
    scope: 'cluster',
    phase: 'collect',
    without: 'hidden members are listed as unknown',
  },
  {
    check: 'scratch collections',
    command: 'create',
    action: 'createCollection',
    scope: 'database',
    phase: 'confirm',
    without: 'no confirmation experiments on this server',
  },
  {
    check: 'scratch copies',
    command: 'insert',
    action: 'insert',
    scope: 'database',
    phase: 'confirm',
    without: 'no confirmation experiments on this server',
  },
  {
    check: 'scratch indexes',
    command: 'createIndexes',
    action: 'createIndex',
    scope: 'database',
    phase: 'confirm',
    without: 'experiments that compare indexes are skipped',
  },
  {
    check: 'scratch validators',
    command: 'collMod',
    action: 'collMod',
    scope: 'database',
    phase: 'confirm',
    without: 'the validator experiment is skipped',
  },
  {
    check: 'scratch reads',
    command: 'find / aggregate',
    action: 'find',
    scope: 'database',
    phase: 'confirm',
    without: 'experiments cannot time their reads',
  },
  {
    check: 'scratch cleanup',
    command: 'dropDatabase',
    action: 'dropDatabase',
    scope: 'database',
    phase: 'confirm',
    without: 'the scratch database could not be dropped: no experiment is started',
  },
  {
    check: 'checkpoint before storage sizes',
    command: 'fsync',
    action: 'fsync',
    scope: 'cluster',
    phase: 'confirm',
    without: 'storage sizes are read without a checkpoint (they may lag)',
  },
];

interface Resource {
  db?: unknown;
  collection?: unknown;
  cluster?: unknown;
  anyResource?: unknown;
}

export interface Privilege {
  resource: Resource;
  actions: string[];
}

export interface SkippedCheck {
  check: string;
  /** `<action> on <resource>`: what a role must grant. */
  needs: string;
  reason: string;
}

export interface PrivilegeVerdict {
  /**
   * `roles`: privileges were read and judged; `no-auth`: no authenticated user (access control off, or the localhost
   * exception), so the server decides and every check is attempted; `unknown`: the reply could not be read.
   */
  basis: 'roles' | 'no-auth' | 'unknown';
  /** The authenticated users as `user@db`. */
  users: string[];
  allowed: string[];
  skipped: SkippedCheck[];
  /**
   * Databases whose collections are listed by name only: the roles lack listCollections there but grant another
   * action, and MongoDB answers `listCollections` with `authorizedCollections` and `nameOnly` for such a user.
   */
  namesOnly?: string[];
  /** One line for the report, up front. */
  summary: string;
}

function isDoc(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function privilegesOf(authInfo: Record<string, unknown>): Privilege[] | null {
  const list = authInfo.authenticatedUserPrivileges;
  if (!Array.isArray(list)) return null;
  const out: Privilege[] = [];
  for (const p of list) {
    if (!isDoc(p) || !isDoc(p.resource) || !Array.isArray(p.actions)) continue;
    out.push({ resource: p.resource, actions: p.actions.filter((a): a is string => typeof a === 'string') });
  }
  return out;
}

/**
 * Whether `r` covers the target. Per the Resource Document page: `{ cluster: true }` only cluster actions;
 * `{ anyResource: true }` everything; `{ db: '', collection: '' }` every database and its non-system collections;
 * `{ db: X, collection: '' }` database X; `{ db: '', collection: C }` collection C in every database;
 * `{ db: X, collection: C }` that one collection. A database-scope action (listCollections, createCollection,
 * dropDatabase) is authorized on `{ db: X, collection: '' }`.
 */
function covers(r: Resource, scope: ResourceScope, db: string, coll: string | null): boolean {
  if (r.anyResource === true) return true;
  if (scope === 'cluster') return r.cluster === true;
  if (r.cluster === true || typeof r.db !== 'string' || typeof r.collection !== 'string') return false;
  const dbOk = r.db === '' || r.db === db;
  if (!dbOk) return false;
  if (r.collection === '') return true;
  return scope === 'collection' && coll !== null && r.collection === coll;
}

function allows(
  privs: readonly Privilege[],
  action: string,
  scope: ResourceScope,
  db: string,
  coll: string | null,
): boolean {
  return privs.some((p) => p.actions.includes(action) && covers(p.resource, scope, db, coll));
}

/**
 * Whether some privilege grants `action` on at least one collection of `db` (`{ db, collection: C }` or
 * `{ db: '', collection: C }`): the roles then allow the command on that collection, so a database-wide verdict cannot
 * forbid it; the server answers for each collection.
 */
function allowsSomeCollection(privs: readonly Privilege[], action: string, db: string): boolean {
  return privs.some((p) => {
    const r = p.resource;
    if (!p.actions.includes(action) || typeof r.db !== 'string' || typeof r.collection !== 'string') return false;
    return (r.db === '' || r.db === db) && r.collection !== '';
  });
}

/**
 * Whether the roles grant any action on `db` or on a collection in it. MongoDB then runs `listCollections` with
 * `authorizedCollections: true` and `nameOnly: true` for a user without the listCollections action, listing the
 * collections the user has privileges on (https://www.mongodb.com/docs/manual/reference/command/listCollections/,
 * authorizedCollections; mongodb/mongo jstests/auth/list_collections_own_collections.js).
 */
export function anyActionOn(privs: readonly Privilege[], db: string): boolean {
  return privs.some((p) => {
    if (p.actions.length === 0) return false;
    if (p.resource.anyResource === true) return true;
    return typeof p.resource.db === 'string' && (p.resource.db === '' || p.resource.db === db);
  });
}

/** True for the listCollections MongoDB lets a user with any action on the database run (their collections' names). */
export function isAuthorizedNameListing(cmd: Record<string, unknown>): boolean {
  return cmd.listCollections !== undefined && cmd.nameOnly === true && cmd.authorizedCollections === true;
}

function resourceText(scope: ResourceScope, dbs: readonly string[]): string {
  if (scope === 'cluster') return '{ cluster: true }';
  if (dbs.length === 1) return `{ db: "${dbs[0]}", collection: "" }`;
  return `{ db: "<each of ${dbs.join(', ')}>", collection: "" }`;
}

export interface PrivilegeTargets {
  /** The databases collect will read. */
  databases: readonly string[];
  /**
   * The scratch database confirm will write to, or null when confirmation is off. Its name is random
   * (mongo_advisor_scratch_<hex>) unless the caller fixed it, so only a privilege on every database
   * (`db: ''`) or anyResource covers it: roles cannot name a database prefix.
   */
  scratchDb: string | null;
}

/**
 * Reads a `connectionStatus` reply (with `showPrivileges: true`) and says, for every command the advisor sends to
 * `targets`, whether the user's roles allow it. The probe itself needs no privilege: any connection may run
 * connectionStatus.
 */
export function judgePrivileges(reply: unknown, targets: PrivilegeTargets): PrivilegeVerdict {
  const checks = PRIVILEGE_CHECKS.filter((c) => c.phase === 'collect' || targets.scratchDb !== null);
  const authInfo = isDoc(reply) && isDoc(reply.authInfo) ? reply.authInfo : null;
  const usersRaw = authInfo && Array.isArray(authInfo.authenticatedUsers) ? authInfo.authenticatedUsers : null;
  if (!authInfo || !usersRaw) {
    return {
      basis: 'unknown',
      users: [],
      allowed: checks.map((c) => c.check),
      skipped: [],
      summary:
        'privileges unknown (connectionStatus gave no authInfo): every check is attempted, and refusals are ' +
        'noted where they happen',
    };
  }
  const users = usersRaw.filter(isDoc).map((u) => `${String(u.user)}@${String(u.db)}`);
  if (users.length === 0) {
    return {
      basis: 'no-auth',
      users,
      allowed: checks.map((c) => c.check),
      skipped: [],
      summary: 'no authenticated user (access control off, or the localhost exception): every check is attempted',
    };
  }
  const privs = privilegesOf(authInfo);
  // An empty list is no verdict: SecantusDB lists none for any user, and a user with no privilege at all could not
  // have signed in to do anything. The server decides, and its refusals are noted where they happen.
  if (privs === null || privs.length === 0) {
    const summary =
      `signed in as ${users.join(', ')}, but the server listed no privileges: every check is ` +
      'attempted, and refusals are noted where they happen';
    return { basis: 'unknown', users, allowed: checks.map((c) => c.check), skipped: [], summary };
  }
  const allowed: string[] = [];
  const skipped: SkippedCheck[] = [];
  const namesOnly: string[] = [];
  for (const c of checks) {
    const dbs = c.phase === 'confirm' ? [targets.scratchDb as string] : [...targets.databases];
    const clusterOk = c.scope === 'cluster' && allows(privs, c.action, 'cluster', '', null);
    const lacking = c.scope === 'cluster' ? (clusterOk ? [] : ['cluster']) : dbs.filter((db) => !mayRun(privs, c, db));
    if (lacking.length === 0) {
      allowed.push(c.check);
      continue;
    }
    const where = c.scope === 'cluster' ? 'the cluster' : lacking.join(', ');
    const listable = c.command === 'listCollections' ? lacking.filter((db) => anyActionOn(privs, db)) : [];
    namesOnly.push(...listable);
    const without = listable.length > 0 ? NAMES_ONLY : c.without;
    const needs = `${c.action} on ${resourceText(c.scope, c.scope === 'cluster' ? [] : lacking)}`;
    const reason = `your roles lack ${c.action} on ${where} (${c.command}): ${without}`;
    skipped.push({ check: c.check, needs, reason });
  }
  const summary =
    skipped.length === 0
      ? `signed in as ${users.join(', ')}: your roles allow every check`
      : `signed in as ${users.join(', ')}: ${allowed.length} of ${checks.length} checks allowed; ` +
        `skipped: ${skipped.map((s) => s.check).join('; ')}`;
  return { basis: 'roles', users, allowed, skipped, namesOnly, summary };
}

/** What a database without the listCollections action but with another action still gets. */
const NAMES_ONLY =
  'the collections your roles name are listed by name only (authorizedCollections), so their ' +
  'options (validator, clustered index, capped, views) are not read';

/** Whether the roles may allow a check's command on `db`: certainly, or on some of its collections. */
function mayRun(privs: readonly Privilege[], c: PrivilegeCheck, db: string): boolean {
  if (allows(privs, c.action, c.scope, db, null)) return true;
  return c.scope === 'collection' && allowsSomeCollection(privs, c.action, db);
}
