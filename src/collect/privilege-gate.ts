/**
 * The privilege probe's verdict put to work: collect asks `connectionStatus` once (src/collect/privileges.ts judges
 * the reply) and, when the user's roles are known, commands those roles do not allow are not sent at all. The gate
 * answers them as MongoDB answers an unauthorized command (code 13, Unauthorized), so every reader's existing
 * handling of a refusal applies, with a message that says it was not sent and what would allow it. One note per
 * skipped check goes up front; nothing else is added.
 */
import { type Adapter, type CursorOptions, type CursorRead, type Doc, commandShape } from '../adapters/types';
import type { Note, PrivilegeSummary } from '../core/types';
import { redactServerText } from '../lib/redact';
import { isAuthorizedNameListing, PRIVILEGE_PROBE, type PrivilegeVerdict, judgePrivileges } from './privileges';

/** MongoDB's code for a command the user's roles do not authorize (error_codes.yml: Unauthorized, 13). */
export const UNAUTHORIZED = 13;

/** Which check (PRIVILEGE_CHECKS[].check) a command belongs to, or null for commands no check names. */
export function checkOf(cmd: Doc): string | null {
  const { name, stage, explained } = commandShape(cmd);
  switch (name) {
    case 'listDatabases':
      return 'database list';
    case 'listCollections':
      return 'collection list';
    case 'listIndexes':
      return 'index definitions';
    case 'serverStatus':
      return 'server status (storage engine, cache)';
    case 'replSetGetConfig':
      return 'replica-set configuration (hidden members)';
    case 'count':
      return 'document counts';
    case 'find':
      return 'document sample ($sample, find)';
    case 'aggregate':
      if (stage === '$indexStats') return 'index usage ($indexStats)';
      if (stage === '$collStats') return 'collection sizes ($collStats)';
      return 'document sample ($sample, find)';
    case 'explain':
      return explained === 'delete'
        ? 'delete plans (explain of a delete at queryPlanner)'
        : 'query plans (explain of reads)';
    default:
      return null;
  }
}

/** The role that grants a check, named for people (built-in roles first; docs/roles.md has a least-privilege role). */
function grantOf(needs: string): string {
  if (/^(serverStatus|indexStats|replSetGetConfig|listDatabases) /.test(needs))
    return `the built-in role clusterMonitor grants it (or ${needs})`;
  return `a role granting ${needs}`;
}

/** A refusal made before sending: the shape of MongoDB's, with a message that says it was never sent. */
export class NotSentForPrivileges extends Error {
  readonly code = UNAUTHORIZED;
  readonly codeName = 'Unauthorized';
  constructor(
    readonly check: string,
    reason: string,
  ) {
    super(`not sent: ${reason}`);
  }
}

/** The summary kept in the snapshot and the result: the verdict without the allowed list. */
export function summaryOf(v: PrivilegeVerdict): PrivilegeSummary {
  return {
    basis: v.basis,
    users: v.users,
    summary: v.summary,
    skipped: v.skipped.map((s) => ({ check: s.check, needs: s.needs, reason: s.reason })),
  };
}

/** One note per skipped check, up front: what is skipped, why, what would allow it, and what the report lacks. */
export function privilegeNotes(v: PrivilegeSummary): Note[] {
  if (v.basis !== 'roles') return [];
  return v.skipped.map((s) => ({
    level: 'skipped' as const,
    message: `privileges: ${s.check} skipped: ${s.reason}; ${grantOf(s.needs)}`,
  }));
}

/**
 * Sends connectionStatus (with privileges) once and judges it for `databases` (and the scratch database, when
 * confirmation will write on this server). A refused or failed probe gives basis 'unknown': every check is tried.
 */
export async function probePrivileges(
  adapter: Adapter,
  databases: readonly string[],
  scratchDb: string | null,
  maxTimeMS = 10_000,
): Promise<PrivilegeVerdict> {
  let reply: Doc | null = null;
  let failure: string | null = null;
  try {
    reply = await adapter.command('admin', { ...PRIVILEGE_PROBE, maxTimeMS });
  } catch (err) {
    failure = redactServerText(err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err));
  }
  const v = judgePrivileges(reply, { databases, scratchDb });
  if (failure !== null)
    return {
      ...v,
      summary:
        `privileges unknown (connectionStatus failed: ${failure.slice(0, 200)}): every check is attempted, ` +
        `and refusals are noted where they happen`,
    };
  return v;
}

/** An adapter that refuses, before sending, the collect commands the verdict skipped (the rest pass through). */
export function privilegeGate(inner: Adapter, v: PrivilegeVerdict): Adapter {
  if (v.basis !== 'roles' || v.skipped.length === 0) return inner;
  const skipped = new Map(v.skipped.map((s) => [s.check, s.reason]));
  const namesOnly = new Set(v.namesOnly ?? []);
  const refuse = (db: string, cmd: Doc): void => {
    const check = checkOf(cmd);
    const reason = check === null ? undefined : skipped.get(check);
    // Any action on the database lets MongoDB list, by name, the collections the roles name: the server answers.
    if (namesOnly.has(db) && isAuthorizedNameListing(cmd)) return;
    if (check !== null && reason !== undefined) throw new NotSentForPrivileges(check, reason);
  };
  const gate: Adapter = {
    kind: inner.kind,
    source: inner.source,
    bson: inner.bson,
    get roundTrips() {
      return inner.roundTrips;
    },
    async command(db, cmd, opts) {
      refuse(db, cmd);
      return await inner.command(db, cmd, opts);
    },
    close: () => inner.close(),
  };
  if (inner.cursor) {
    const cursor = inner.cursor.bind(inner);
    gate.cursor = async (db: string, cmd: Doc, opts?: CursorOptions): Promise<CursorRead> => {
      refuse(db, cmd);
      return await cursor(db, cmd, opts);
    };
  }
  if (inner.connectMember) {
    const connect = inner.connectMember.bind(inner);
    gate.connectMember = async (host: string) => privilegeGate(await connect(host), v);
  }
  return gate;
}
