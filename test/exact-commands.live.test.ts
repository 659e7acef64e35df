import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Document } from 'bson';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MARKER_COLLECTION, SCRATCH_PREFIX } from '../src/confirm/scratch';
import { useLiveDb } from './support/live-db';
import { type ProcessResult, runProcess } from './support/run';
import {
  hostOf,
  startWireRecorder,
  throughRecorder,
  type WireEntry,
  type WireReply,
  type WireRecorder,
  type WireRequest,
} from './support/wire-recorder';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_exact_commands';
/** A database holding one small collection: the exact read path and the confirming run. */
const SMALL = 'mongo_advisor_test_exact_small';
/** A database whose 400 string `_id`s draw a validator finding: the confirming run (validator experiment). */
const CONFIRM = 'mongo_advisor_test_exact_confirm';
/** mongosh's own start-up commands (buildInfo, getParameter, …) come before this marker; the plugin's after it. */
const MARK = 'mongo-advisor exact-commands: the plugin starts here';
const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');

/** 20 documents of 900 KB: each under the 1 MiB line past which the sample keeps shapes only, 18 MB together: a
 * sample or whole read of them needs more than one 16 MiB reply where the server caps replies (SecantusDB does). */
const BIG = { docs: 20, bytes: 900_000 };

/** Commands that open a cursor, and those that write (none may reach the server in a read-only run). */
const OPENERS = new Set(['find', 'aggregate', 'listCollections', 'listIndexes']);
const WRITES = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'create',
  'drop',
  'dropDatabase',
  'collMod',
  'createIndexes',
  'dropIndexes',
  'renameCollection',
  'bulkWrite',
  'applyOps',
]);
/** Sent by the host itself: the handshake and monitoring (`hello`), the sessions' end, and the cursor follow-ups. */
const HOST_COMMANDS = new Set(['hello', 'isMaster', 'ismaster', 'endSessions', 'getMore', 'killCursors']);

const requests = (log: readonly WireEntry[]): WireRequest[] =>
  log.filter((e): e is WireRequest => e.kind === 'request');
const lsidOf = (r: WireRequest): string | null => {
  const id = (r.body?.lsid as { id?: { toString(enc: string): string } } | undefined)?.id;
  return id ? id.toString('hex') : null;
};
const modeOf = (r: WireRequest): string | undefined => (r.body?.$readPreference as { mode?: string } | undefined)?.mode;
const isWrite = (r: WireRequest): boolean =>
  WRITES.has(r.name ?? '') ||
  (r.name === 'aggregate' &&
    Array.isArray(r.body?.pipeline) &&
    (r.body.pipeline as Document[]).some((s) => '$out' in s || '$merge' in s));

interface CursorAudit {
  getMores: number;
  killed: number;
  opened: number;
  /** getMores and killCursors sent on another connection (to the same server) than their cursor's first reply. */
  otherConnection: number;
  problems: string[];
}

/**
 * Follows every cursor on the wire: opened by a reply with a non-zero `cursor.id` to find, aggregate, listCollections
 * or listIndexes; each getMore and killCursors must name a cursor the server returned (every proxied connection
 * reaches the one server behind the recorder), carry the opening command's `lsid` (or none, as it did), name its
 * collection and database; by the end each cursor is exhausted (a reply with id 0) or killed. A getMore may go on
 * another connection of the pool to the same server: the driver pins a cursor to its server and session, and to
 * its connection only behind a load balancer (MongoDB's load-balancer spec); MongoDB keeps cursors per server.
 */
export function auditCursors(log: readonly WireEntry[]): CursorAudit {
  const sent = new Map<string, WireRequest>();
  const open = new Map<string, { by: WireRequest; ns: string; state: 'open' | 'exhausted' | 'killed' }>();
  const audit: CursorAudit = { getMores: 0, killed: 0, opened: 0, otherConnection: 0, problems: [] };
  for (const e of log) {
    if (e.kind === 'request') {
      sent.set(`${e.conn}:${e.requestId}`, e);
      if (e.name !== 'getMore' && e.name !== 'killCursors') continue;
      const ids =
        e.name === 'getMore'
          ? [String(e.body?.getMore)]
          : ((e.body?.cursors as unknown[] | undefined) ?? []).map(String);
      const coll = String(e.name === 'getMore' ? e.body?.collection : e.body?.killCursors);
      if (e.name === 'getMore') audit.getMores++;
      for (const id of ids) {
        const c = open.get(id);
        if (!c) {
          audit.problems.push(`${e.name} of cursor ${id} on connection ${e.conn}: the server returned no such cursor`);
          continue;
        }
        if (c.by.conn !== e.conn) audit.otherConnection++;
        if (lsidOf(e) !== lsidOf(c.by))
          audit.problems.push(
            `${e.name} of cursor ${id} carries lsid ${lsidOf(e)}, its ${c.by.name} carried ${lsidOf(c.by)}`,
          );
        const expected = c.ns.slice(c.ns.indexOf('.') + 1);
        if (coll !== expected)
          audit.problems.push(`${e.name} of cursor ${id} names collection ${coll}, the cursor's is ${expected}`);
        if (`${e.db}.${coll}` !== c.ns)
          audit.problems.push(`${e.name} of cursor ${id} is sent to ${e.db}, the cursor's namespace is ${c.ns}`);
        if (c.state !== 'open') audit.problems.push(`${e.name} of cursor ${id} after it was ${c.state}`);
      }
      continue;
    }
    const req = sent.get(`${e.conn}:${e.responseTo}`);
    if (!req?.name) continue;
    if (OPENERS.has(req.name) && e.ok === 1 && e.cursorId !== undefined && e.cursorId !== '0') {
      audit.opened++;
      open.set(e.cursorId, { by: req, ns: e.ns ?? `${req.db}.${String(req.body?.[req.name])}`, state: 'open' });
    } else if (req.name === 'getMore') {
      const c = open.get(String(req.body?.getMore));
      if (e.ok !== 1)
        audit.problems.push(
          `getMore of cursor ${String(req.body?.getMore)} on connection ${e.conn} failed (code ${e.code})`,
        );
      if (c && (e.ok !== 1 || e.cursorId === '0')) c.state = 'exhausted';
    } else if (req.name === 'killCursors') {
      if (e.ok !== 1) audit.problems.push(`killCursors on connection ${e.conn} failed (code ${e.code})`);
      for (const id of ((req.body?.cursors as unknown[] | undefined) ?? []).map(String)) {
        const c = open.get(id);
        if (c && c.state === 'open') {
          c.state = 'killed';
          audit.killed++;
        }
      }
    }
  }
  for (const [id, c] of open)
    if (c.state === 'open')
      audit.problems.push(
        `cursor ${id} opened by ${c.by.name} ${String(c.by.body?.[c.by.name ?? ''])} on ` +
          `connection ${c.by.conn} was neither exhausted nor killed`,
      );
  return audit;
}

/** The replies to the requests of `log`, by connection and request id. */
function replyTo(log: readonly WireEntry[], r: WireRequest): WireReply | undefined {
  return log.find((e): e is WireReply => e.kind === 'reply' && e.conn === r.conn && e.responseTo === r.requestId);
}

/** One line per command: `db name target [first stages] maxTimeMS readPreference`, to pin the exact read path. */
function describeCommand(r: WireRequest): string {
  const name = r.name ?? `opCode ${r.opCode}`;
  const body = r.body ?? {};
  const target = typeof body[name] === 'string' ? ` ${String(body[name])}` : '';
  const stages = Array.isArray(body.pipeline)
    ? ` [${(body.pipeline as Document[]).map((s) => Object.keys(s)[0]).join(',')}]`
    : '';
  const db = r.db === DB ? 'DB' : r.db === SMALL ? 'SMALL' : r.db;
  const maxTime = body.maxTimeMS !== undefined ? ' maxTimeMS' : '';
  return `${db} ${name}${target}${stages}${maxTime}${modeOf(r) ? ` ${modeOf(r)}` : ''}`;
}

/** Reads of one node's own figures: the product sends them to the primary (src/adapters/read-only.ts,
 * PRIMARY_READS). */
const NODE_READS = new Set([
  'serverStatus',
  'buildInfo',
  'connectionStatus',
  'listDatabases',
  'hello',
  'replSetGetStatus',
  'replSetGetConfig',
]);
const isNodeRead = (r: WireRequest): boolean => {
  if (NODE_READS.has(r.name ?? '')) return true;
  // The profiler is per member: query-indexes reads the primary's (src/collect/workload.ts).
  if ((r.name === 'find' || r.name === 'aggregate') && r.body?.[r.name] === 'system.profile') return true;
  const first = Array.isArray(r.body?.pipeline) ? Object.keys((r.body.pipeline as Document[])[0] ?? {})[0] : undefined;
  return r.name === 'aggregate' && (first === '$collStats' || first === '$indexStats' || first === '$queryStats');
};

/**
 * The reading commands the product itself sends (not the host's handshake, monitoring, session or cursor follow-ups),
 * in the order they were sent.
 */
const productReads = (log: readonly WireEntry[]): WireRequest[] =>
  requests(log).filter((r) => r.name !== undefined && !HOST_COMMANDS.has(r.name));

/**
 * The exact read path of `check --collection small --no-confirm` on a database holding `small` alone, per embedded
 * server (what each can do decides the probes and the sample's method): `db command target [first stages]`, then
 * `maxTimeMS` when the command carries it and the `$readPreference` the driver put on the wire. A standalone
 * (FerretDB) gets no `$readPreference` at all (the driver must not send one to a standalone); on a replica-set member
 * reached directly, a read for the primary travels as `primaryPreferred` (the driver's rule for a direct connection,
 * node_modules/mongodb/lib/cmap/connection.js) and `secondaryPreferred` as itself.
 */
const EXACT: Record<string, string[]> = {
  ferretdb: [
    'admin listDatabases maxTimeMS', // the scan for an interrupted run's scratch databases (src/confirm/leftovers.ts)
    'admin connectionStatus maxTimeMS',
    'admin buildInfo maxTimeMS',
    'admin serverStatus maxTimeMS',
    'SMALL listCollections maxTimeMS',
    'SMALL aggregate small [$sample,$project,$limit] maxTimeMS',
    'SMALL aggregate small [$limit,$project,$limit] maxTimeMS',
    'SMALL aggregate small [$limit,$project,$limit] maxTimeMS',
    'SMALL aggregate small [$collStats] maxTimeMS',
    'SMALL listIndexes small maxTimeMS',
    'SMALL find small maxTimeMS',
    // the workload (query-indexes, index-usage, embed-reference): the newest profiler entries; FerretDB has no
    // $unionWith (nor a profiler), so a find without the inserts
    'SMALL find system.profile maxTimeMS',
    'admin listDatabases maxTimeMS',
  ],
  secantusdb: [
    'admin listDatabases maxTimeMS primaryPreferred', // the leftover scan (src/confirm/leftovers.ts)
    'admin connectionStatus maxTimeMS primaryPreferred',
    'admin buildInfo maxTimeMS primaryPreferred',
    'admin serverStatus maxTimeMS primaryPreferred',
    'SMALL listCollections maxTimeMS secondaryPreferred',
    'SMALL aggregate small [$sample,$project,$limit] maxTimeMS secondaryPreferred',
    'SMALL aggregate small [$collStats] maxTimeMS primaryPreferred',
    'SMALL listIndexes small maxTimeMS secondaryPreferred',
    'SMALL aggregate small [$limit,$project] maxTimeMS secondaryPreferred',
    // the workload (query-indexes, index-usage, embed-reference), on the primary: queries and writes, then the
    // inserts under their own cap (src/workload/profiler.ts profilerCommand)
    'SMALL aggregate system.profile [$match,$sort,$limit,$project,$unionWith] maxTimeMS primaryPreferred',
    // the profiler held nothing: the workload's $queryStats, per node too (SecantusDB says 8.2, refuses the stage)
    'admin aggregate [$queryStats,$match,$sort,$limit] maxTimeMS primaryPreferred',
    'admin listDatabases maxTimeMS primaryPreferred',
  ],
};

describe('exact commands on the wire: the real CLI and real mongosh through a recording proxy', () => {
  const kind = inject('serverKind');
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    const pad = 'x'.repeat(BIG.bytes);
    await db.collection('big').insertMany(Array.from({ length: BIG.docs }, (_, i) => ({ i, pad })));
    await db.collection('small').insertMany(Array.from({ length: 10 }, (_, i) => ({ i, name: `n${i}` })));
    await live.client.db(SMALL).dropDatabase();
    await live.client
      .db(SMALL)
      .collection('small')
      .insertMany(Array.from({ length: 10 }, (_, i) => ({ i, name: `n${i}` })));
    await live.client.db(CONFIRM).dropDatabase();
    await live.client
      .db(CONFIRM)
      .collection<{ _id: string }>('codes')
      .insertMany(
        Array.from({ length: 400 }, (_, i) => ({
          _id: `CODE-${String(i).padStart(5, '0')}`,
          label: `code ${i}`,
          uses: i,
        })),
      );
  });
  let rec: WireRecorder;
  /** Whether the server caps a reply at 16 MiB (MongoDB does; FerretDB sends the whole batch in one reply). */
  let capsReplies = true;

  beforeAll(async () => {
    if (!existsSync(CLI) || !existsSync(PLUGIN))
      throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
    rec = await startWireRecorder(hostOf(liveUri()));
    const first = (await live.db.command({ find: 'big', filter: {}, batchSize: BIG.docs + 1 })) as {
      cursor: { id: unknown; firstBatch: unknown[] };
    };
    capsReplies = first.cursor.firstBatch.length < BIG.docs;
    if (capsReplies) await live.db.command({ killCursors: 'big', cursors: [first.cursor.id] });
  });
  afterAll(async () => {
    await rec?.close();
    await live.client?.db(SMALL).dropDatabase();
    await live.client?.db(CONFIRM).dropDatabase();
  });

  /** Runs a program through the recorder; returns its result and what it sent and received. */
  async function recorded(
    db: string,
    run: (uri: string) => Promise<ProcessResult>,
  ): Promise<{ r: ProcessResult; log: WireEntry[] }> {
    const from = rec.mark();
    const r = await run(throughRecorder(live.uri, rec, db));
    expect(await rec.idle(), 'the program left a connection open after it exited').toBe(true);
    return { r, log: rec.log.slice(from) };
  }
  const cli = (db: string, args: string[]) =>
    recorded(db, (uri) => runProcess(process.execPath, [CLI, 'check', uri, '--db', db, ...args]));
  const mongosh = (db: string, script: string) =>
    recorded(db, (uri) =>
      runProcess(
        MONGOSH,
        [
          uri,
          '--quiet',
          '--norc',
          '--eval',
          `db.getSiblingDB('admin').runCommand({ ping: 1, comment: ${JSON.stringify(MARK)} }); ` +
            `load(${JSON.stringify(PLUGIN)}); ${script}`,
        ],
        { env: { MONGOSH_NO_UPDATE_CHECK: '1' } },
      ),
    );
  /** The log from the marker's ping on: what the plugin sent (and the host's follow-ups). */
  const afterMark = (log: WireEntry[]): WireEntry[] => {
    const at = log.findIndex((e) => e.kind === 'request' && e.name === 'ping' && e.body?.comment === MARK);
    expect(at, 'the marker ping was not seen').toBeGreaterThanOrEqual(0);
    // mongosh's own start-up probes may still be in flight: they are the shell's, not the plugin's
    const shellOwn = (e: WireEntry) =>
      e.kind === 'request' &&
      (e.name === 'atlasVersion' ||
        e.name === 'getParameter' ||
        (e.name === 'aggregate' && e.body?.aggregate === 'atlascli') ||
        (e.name === 'buildInfo' && e.body?.maxTimeMS === undefined));
    return log.slice(at + 1).filter((e) => !shellOwn(e));
  };

  /** What every read-only run must show on the wire, whichever front door sent it. */
  function expectReadOnlyRun(label: string, log: WireEntry[]): CursorAudit {
    // 2004: the handshake's legacy OP_QUERY hello
    const undecoded = requests(log).filter((r) => r.undecoded && r.opCode !== 2004);
    expect(
      undecoded.map((r) => r.opCode),
      `${label}: messages the recorder could not read (compressed?)`,
    ).toEqual([]);
    const reads = productReads(log);
    expect(reads.length, `${label}: nothing recorded`).toBeGreaterThan(5);
    expect(reads.filter(isWrite).map(describeCommand), `${label}: writes in a read-only run`).toEqual([]);
    // maxTimeMS on every read, the leftover scan's listDatabases (src/confirm/leftovers.ts) included
    expect(
      reads.filter((r) => r.body?.maxTimeMS === undefined).map(describeCommand),
      `${label}: reads without maxTimeMS`,
    ).toEqual([]);
    for (const r of reads) {
      const mode = modeOf(r);
      if (!caps.has.replicaSet)
        expect(mode, `${label}: ${describeCommand(r)} (a standalone gets no $readPreference)`).toBeUndefined();
      else
        expect(mode, `${label}: ${describeCommand(r)}`).toBe(isNodeRead(r) ? 'primaryPreferred' : 'secondaryPreferred');
    }
    const audit = auditCursors(log);
    console.log(
      `[exact commands] ${kind} ${label}: ${reads.length} reads, ${audit.opened} cursors left open by their ` +
        `first reply, ${audit.getMores} getMore, ${audit.killed} killCursors, ${audit.otherConnection} of them ` +
        `on another connection of the pool`,
    );
    expect(audit.problems, label).toEqual([]);
    return audit;
  }

  it(
    'check --no-confirm (real CLI): every getMore and killCursors follows its cursor; every cursor ends; ' +
      'nothing writes',
    async () => {
      const { r, log } = await cli(DB, ['--no-confirm', '--format', 'json']);
      expect(r.code, r.err).toBeLessThanOrEqual(1);
      expect((JSON.parse(r.out) as { confirm: { enabled: boolean } }).confirm.enabled).toBe(false);
      const audit = expectReadOnlyRun('CLI', log);
      if (capsReplies) expect(audit.getMores, 'no getMore: the run proves nothing about cursors').toBeGreaterThan(0);
    },
  );

  it(
    'advisor.check(undefined, { confirm: false }) (real mongosh): every getMore and killCursors follows its ' +
      'cursor; nothing writes',
    async () => {
      const { r, log } = await mongosh(
        DB,
        // the shell awaits advisor.check where the script uses its value, as it does its own methods
        `const res = advisor.check(undefined, { confirm: false }); print('FINDINGS ' + res.findings.length)`,
      );
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/FINDINGS \d+/);
      const audit = expectReadOnlyRun('mongosh', afterMark(log));
      if (capsReplies) expect(audit.getMores, 'no getMore: the run proves nothing about cursors').toBeGreaterThan(0);
    },
  );

  it('a getMore happened where the server caps a reply at 16 MiB', (ctx) => {
    if (!capsReplies) {
      const why =
        `${kind} sends a find of ${BIG.docs} documents of ${BIG.bytes} bytes in one reply (no 16 MiB cap), ` +
        `and the product sizes every batch to need no getMore: no read of a --no-confirm run can need one here`;
      console.log(`[exact commands] skipped: ${why}`);
      ctx.skip(why);
    }
    expect(capsReplies).toBe(true);
  });

  it('the exact read path for one small collection (check --collection small --no-confirm)', async (ctx) => {
    const { r, log } = await cli(SMALL, ['--collection', 'small', '--no-confirm', '--format', 'json']);
    expect(r.code, r.err).toBeLessThanOrEqual(1);
    expectReadOnlyRun('CLI --collection small', log);
    // collection-count lists the collections of every other database on the server (other test files' come and go),
    // and the leftovers check reads the owner marker of any scratch database another test file has open at the time
    const elsewhere = productReads(log).filter((q) => q.db !== SMALL && q.db !== 'admin');
    const markerRead = (q: (typeof elsewhere)[number]): boolean =>
      q.db?.startsWith(SCRATCH_PREFIX) === true && q.name === 'find' && q.body?.find === MARKER_COLLECTION;
    expect(
      elsewhere
        .filter((q) => !markerRead(q) && (q.name !== 'listCollections' || q.body?.nameOnly !== true))
        .map(describeCommand),
    ).toEqual([]);
    const got = productReads(log)
      .filter((q) => !elsewhere.includes(q))
      .map(describeCommand);
    const expected = EXACT[kind];
    if (!expected) {
      const why =
        `the exact list is pinned for the embedded servers (ferretdb, secantusdb); ${kind}'s depends on what ` +
        `it can do`;
      console.log(`[exact commands] skipped the exact list: ${why}`);
      ctx.skip(why);
    }
    expect(got).toEqual(expected);
  });

  it('check with confirmation: every write names a scratch database, and the run ends by dropping it', async () => {
    // The least budget the flag takes: the writes and the closing drop are the subject, not what is timed between them.
    const { r, log } = await cli(CONFIRM, ['--format', 'json', '--confirm-budget', '1', '--fail-on', 'error']);
    expect(r.code, r.err).toBe(0);
    const sent = requests(log).filter((q) => q.name !== undefined);
    const writes = sent.filter(isWrite);
    console.log(
      `[exact commands] ${kind} confirming run: ${writes.length} ` +
        `writes: ${[...new Set(writes.map((w) => `${w.db} ${w.name}`))].join(', ')}`,
    );
    expect(writes.filter((w) => !w.db?.startsWith(SCRATCH_PREFIX)).map(describeCommand)).toEqual([]);
    expect(auditCursors(log).problems).toEqual([]);
    const scratch = [...new Set(writes.map((w) => w.db))];
    // the validator experiment copies the collection into scratch where the server keeps validators
    if (caps.has.validators)
      expect(writes.length, 'no experiment wrote: nothing is proven about writes').toBeGreaterThan(0);
    if (writes.length === 0) return;
    expect(scratch).toHaveLength(1);
    const last = sent.filter((q) => q.db === scratch[0]).at(-1);
    expect(last?.name).toBe('dropDatabase');
    expect(last && replyTo(log, last)?.ok).toBe(1);
  });
});
