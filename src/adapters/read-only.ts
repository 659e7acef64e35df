import { SCRATCH_PREFIX } from '../core/names';
import type { Adapter, CommandOptions, CursorOptions, CursorRead, Doc, ReadPreferenceMode } from './types';

/**
 * The read-only promise, held by construction: collect and analyze (and confirm, when it reads the source) get an
 * adapter that sends only the reading commands listed here, and refuses everything else before it reaches the
 * server. The scratch handle gets the other gate below, which writes only inside databases named with
 * SCRATCH_PREFIX.
 */

export { SCRATCH_PREFIX };

/** A command a gate refused to send. Thrown before anything reaches the server. */
export class RefusedCommand extends Error {
  override name = 'RefusedCommand';
  constructor(
    message: string,
    /** The command's name (the first key of the command document). */
    readonly command: string,
    /** The database it was to be sent to. */
    readonly db: string,
  ) {
    super(message);
  }
}

/**
 * The reading commands collect, analyze and confirm's source reads may send, and why each is here. Anything not
 * listed is refused; the entries with conditions are checked in `whyNotReading`.
 */
const READING: Record<string, string> = {
  find: 'reads documents (the sample in natural order, _ids, clustered-trap probes, source copies without $sample)',
  aggregate:
    'reads through a pipeline ($collStats, $indexStats, $sample, $bsonSize probes, source copies); refused ' +
    'with a $out or $merge stage anywhere in it',
  count: 'counts documents (empty collections in large databases; the validator collector counts violators)',
  listCollections: 'lists collections and their options',
  listIndexes: 'lists index definitions',
  listDatabases: 'names databases (a missing database, the deployment inventory)',
  buildInfo: 'server version and flavor',
  hello: 'topology (standalone, replica set, sharded) and replica-set members',
  isMaster: "hello's legacy name, for servers older than 4.4.2",
  ismaster: "hello's legacy lower-case spelling",
  serverStatus: 'storage engine, cache size and data handles',
  replSetGetConfig: 'replica-set members for $indexStats on each (index-usage)',
  replSetGetStatus: 'replication lag, read by the load guard before and during experiments (src/confirm/load.ts)',
  dbStats: 'database statistics (a read; listed as a reading command, no collector sends it today)',
  connectionStatus: 'the authenticated user and roles (a read: collect sends it once, src/collect/privilege-gate.ts)',
  ping: 'a no-op liveness check (the member-connection test sends it)',
  explain:
    'query plans; the explained command must itself read, or be an update explained at queryPlanner, or a ' +
    'delete explained at queryPlanner or executionStats',
  profile:
    "the profiler's settings, `{ profile: -1 }` exactly (no other field, no other level: -1 only reads them): the " +
    'workload collector asks whether system.profile holds every operation (level 2, sampleRate 1, no filter) ' +
    'before an index is called unused by it (src/collect/workload.ts)',
  getMore: 'the next batch of a cursor this adapter opened',
  killCursors: 'closes a cursor this adapter opened (a read stopped early)',
};

/** Commands an explain may wrap at any verbosity: they only read, so executing them is reading. */
const EXPLAINED_READS = new Set(['find', 'aggregate', 'count', 'distinct']);
/**
 * Writes an explain may wrap, and at which verbosities. MongoDB's explain docs
 * (https://www.mongodb.com/docs/manual/reference/command/explain/, "Verbosity Modes"): in queryPlanner mode
 * "MongoDB runs the query optimizer to choose the winning plan for the operation under evaluation" and returns
 * that plan; only executionStats and allPlansExecution (the default when verbosity is absent) execute the plan.
 * An update is let through only where nothing is executed at all. A delete may also be explained at executionStats:
 * "For write operations, explain returns information about the write operation that would be performed but does
 * not actually modify the database" (https://www.mongodb.com/docs/manual/reference/method/db.collection.explain/),
 * which MongoDB's own jstests/core/explain_delete.js checks ("Make sure all 10 documents are still there"), and both
 * test servers delete nothing either (rules/clustered-trap/live.test.ts). The clustered-trap collector counts the
 * documents a multi-value `_id` deleteMany reads this way. allPlansExecution (and an absent verbosity, which
 * defaults to it) stays refused.
 */
const PLANNED_WRITES: Record<string, readonly string[]> = {
  delete: ['queryPlanner', 'executionStats'],
  update: ['queryPlanner'],
};

/** Aggregation stages that write their results to a collection. */
const WRITE_STAGES = new Set(['$out', '$merge']);

/** The command's name: its first key, as the server reads it. */
export function commandName(cmd: unknown): string {
  if (!isPlainDoc(cmd)) return '(not a command document)';
  return Object.keys(cmd)[0] ?? '(empty command)';
}

/** A command document the gates can read ahead: a plain object that does not serialize through its own toBSON. */
function shapeProblem(cmd: unknown, what = 'a command'): string | null {
  if (!isPlainDoc(cmd)) return `${what} must be a plain document`;
  if (typeof cmd.toBSON === 'function') return `${what} that serializes through its own toBSON cannot be checked`;
  if ('$db' in cmd) return `${what} may not name its own database ($db)`;
  return null;
}

function isPlainDoc(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The children of a value as the BSON serializer will write them: arrays' items, Maps' entries, objects' own keys.
 * BSON values (ObjectId, Long, Binary… carry `_bsontype`), dates, regular expressions and byte arrays are leaves.
 * An object that would serialize through its own `toBSON` cannot be read ahead: `unreadable`.
 */
function childrenOf(v: unknown): [string, unknown][] | 'leaf' | 'unreadable' {
  if (v === null || typeof v !== 'object') return 'leaf';
  if (Array.isArray(v)) return v.map((x, i) => [`[${i}]`, x]);
  if (v instanceof Map) return [...(v as Map<unknown, unknown>).entries()].map(([k, x]) => [`.${String(k)}`, x]);
  if ('_bsontype' in v || v instanceof Date || v instanceof RegExp || ArrayBuffer.isView(v) || v instanceof ArrayBuffer)
    return 'leaf';
  if (typeof (v as { toBSON?: unknown }).toBSON === 'function') return 'unreadable';
  return Object.entries(v).map(([k, x]) => [`.${k}`, x]);
}

interface StageFound {
  stage: string;
  /** Where it sits, as a path from the pipeline: pipeline[1].$facet.a[0]. */
  path: string;
  value: unknown;
}

/**
 * Every $out and $merge anywhere in a pipeline: top-level stages and those nested in $facet, $lookup and
 * $unionWith sub-pipelines (or anywhere else: the whole pipeline is walked, not only the stages known to nest).
 * A part that cannot be read ahead (a toBSON method, nesting past 200 levels) is reported as a stage too.
 */
export function writeStages(pipeline: unknown, root = 'pipeline'): StageFound[] {
  const found: StageFound[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown, path: string, depth: number): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    const children = childrenOf(v);
    if (children === 'leaf') return;
    if (children === 'unreadable' || depth > 200) {
      found.push({
        stage: children === 'unreadable' ? '(value with its own toBSON)' : '(nesting deeper than 200 levels)',
        path,
        value: undefined,
      });
      return;
    }
    seen.add(v);
    for (const [k, x] of children) {
      const key = k.startsWith('.') ? k.slice(1) : null;
      if (key !== null && WRITE_STAGES.has(key)) found.push({ stage: key, path, value: x });
      walk(x, `${path}${k}`, depth + 1);
    }
  };
  walk(pipeline, root, 0);
  return found;
}

function stageProblem(w: StageFound): string {
  return w.stage.startsWith('(')
    ? `the pipeline cannot be checked at ${w.path}: ${w.stage.slice(1, -1)}`
    : `a ${w.stage} stage at ${w.path} writes the pipeline's results to a collection`;
}

function cursorKey(db: string, id: unknown): string | null {
  let s: string;
  if (typeof id === 'number' || typeof id === 'bigint') s = String(id);
  else if (
    id !== null &&
    typeof id === 'object' &&
    typeof (id as { toString?: unknown }).toString === 'function' &&
    (id as { toString: () => string }).toString !== Object.prototype.toString
  )
    s = (id as { toString: () => string }).toString();
  else return null;
  return s === '0' ? null : `${db}\u0000${s}`;
}

function cursorLabel(id: unknown): string {
  return cursorKey('', id)?.slice(1) ?? String(id);
}

/**
 * Why `cmd` is not a reading command (a sentence for the refusal), or null when it is one. Cursor ownership
 * (getMore, killCursors) is the gate's to check: here they only need the shape.
 */
export function whyNotReading(cmd: unknown): string | null {
  const shape = shapeProblem(cmd);
  if (shape !== null || !isPlainDoc(cmd)) return shape;
  const name = commandName(cmd);
  if (!Object.hasOwn(READING, name))
    return `${name} is not on the allow-list of reading commands (${Object.keys(READING).join(', ')})`;
  if (name === 'aggregate') {
    if (!Array.isArray(cmd.pipeline)) return 'an aggregate without a pipeline array cannot be checked';
    const w = writeStages(cmd.pipeline)[0];
    if (w) return stageProblem(w);
  }
  if (name === 'profile' && (cmd.profile !== -1 || Object.keys(cmd).length !== 1))
    return 'profile is a reading command only as { profile: -1 } (it reads the settings; any other form changes them)';
  if (name === 'explain') {
    const inner = cmd.explain;
    const innerShape = shapeProblem(inner, 'the explained command');
    if (innerShape !== null || !isPlainDoc(inner)) return innerShape;
    const innerName = commandName(inner);
    const allowed = Object.hasOwn(PLANNED_WRITES, innerName) ? PLANNED_WRITES[innerName] : undefined;
    if (allowed) {
      if (typeof cmd.verbosity !== 'string' || !allowed.includes(cmd.verbosity)) {
        const v =
          cmd.verbosity === undefined
            ? 'no verbosity (the server then uses allPlansExecution)'
            : `verbosity ${JSON.stringify(cmd.verbosity)}`;
        return (
          `explain of ${innerName} with ${v} is not allowed; only ` +
          `verbosity ${allowed.map((a) => JSON.stringify(a)).join(' or ')}`
        );
      }
      return null;
    }
    if (!EXPLAINED_READS.has(innerName))
      return (
        `explain of ${innerName}: only explains of ${[...EXPLAINED_READS].join(', ')} (any verbosity), of ` +
        `delete (queryPlanner, executionStats) and of update (queryPlanner) are allowed`
      );
    if (innerName === 'aggregate') {
      if (!Array.isArray(inner.pipeline)) return 'an explained aggregate without a pipeline array cannot be checked';
      const w = writeStages(inner.pipeline, 'explain.pipeline')[0];
      if (w) return stageProblem(w);
    }
  }
  return null;
}

/** Commands that open a cursor: the only ones `Adapter.cursor` is asked to run. */
const CURSOR_COMMANDS = new Set(['find', 'aggregate', 'listCollections', 'listIndexes']);

/** Why `cmd` cannot open a cursor through `Adapter.cursor`, or null. */
function whyNotCursor(cmd: unknown): string | null {
  const name = commandName(cmd);
  if (name === 'getMore' || name === 'killCursors')
    return `${name} is sent by the host's cursor itself, on the cursor's own session, never as the opening command`;
  return CURSOR_COMMANDS.has(name)
    ? null
    : `${name} does not open a cursor (only ${[...CURSOR_COMMANDS].join(', ')} do)`;
}

/**
 * Reads whose answer is one node's own figures, or that MongoDB runs on the primary whatever the read preference:
 * they always go to the primary, so two runs read the same node. The manual lists the commands that honour a read
 * preference (https://www.mongodb.com/docs/manual/core/read-preference-use-cases/ and
 * https://www.mongodb.com/docs/manual/core/read-preference/#std-label-read-preference, "Read Preference and
 * Commands": aggregate without $out/$merge, collStats, count, dbStats, distinct, find, listCollections, listIndexes,
 * …); serverStatus, hello, buildInfo, connectionStatus and listDatabases describe the node or the deployment.
 */
const PRIMARY_READS = new Set([
  'serverStatus',
  'profile',
  'hello',
  'isMaster',
  'ismaster',
  'buildInfo',
  'replSetGetConfig',
  'replSetGetStatus',
  'connectionStatus',
  'ping',
  'listDatabases',
  'getMore',
  'killCursors',
]);
/**
 * First stages whose rows are the node's own: `$indexStats` counts the accesses of the node that answers (index-usage
 * reads every member through `connectMember` and sums them), `$collStats` the sizes of that node's files (kept on the
 * primary so sizes and counts of one snapshot come from one node), `$currentOp` its operations.
 */
const PER_NODE_STAGES = new Set(['$indexStats', '$collStats', '$currentOp']);

/**
 * Where the gate sends a read: the primary for node-specific figures (PRIMARY_READS, PER_NODE_STAGES) and for
 * explains of writes; `preferred` (the gate's read preference) for everything else.
 */
export function readPreferenceFor(cmd: Doc, preferred: ReadPreferenceMode): ReadPreferenceMode {
  if (preferred === 'primary') return 'primary';
  const name = commandName(cmd);
  if (PRIMARY_READS.has(name)) return 'primary';
  const inner = name === 'explain' && isPlainDoc(cmd.explain) ? cmd.explain : cmd;
  const innerName = commandName(inner);
  if (Object.hasOwn(PLANNED_WRITES, innerName)) return 'primary';
  if (innerName === 'aggregate' && Array.isArray(inner.pipeline)) {
    const first = inner.pipeline[0] as unknown;
    if (isPlainDoc(first) && PER_NODE_STAGES.has(Object.keys(first)[0] ?? '')) return 'primary';
  }
  return preferred;
}

export interface ReadOnlyOptions {
  /**
   * Where reads of the data go (see `readPreferenceFor`): `secondaryPreferred` (the default) spares the primary;
   * `primary` sends every read there.
   */
  readPreference?: ReadPreferenceMode;
}

/** Adapters made by readOnly (so wrapping twice is a no-op) and the read-only adapters made for each inner one. */
const readOnlyGates = new WeakSet<Adapter>();
const readOnlyOf = new WeakMap<Adapter, Map<ReadPreferenceMode, Adapter>>();

/** Whether an adapter is a read-only gate made by `readOnly`. */
export function isReadOnly(adapter: Adapter): boolean {
  return readOnlyGates.has(adapter);
}

/**
 * The adapter collect, analyze and confirm's source reads get: the same connection, sending only reading commands.
 * Anything else throws a RefusedCommand before it reaches the server. getMore and killCursors pass only for cursor
 * ids this adapter opened (read from its replies' `cursor.id`). Member connections it opens are read-only too.
 * One gate per inner adapter: wrapping the same adapter again returns the same gate (with the cursors it opened),
 * and wrapping a gate returns it.
 */
export function readOnly(adapter: Adapter, opts: ReadOnlyOptions = {}): Adapter {
  if (readOnlyGates.has(adapter)) return adapter;
  const preference = opts.readPreference ?? 'secondaryPreferred';
  let gates = readOnlyOf.get(adapter);
  if (!gates) readOnlyOf.set(adapter, (gates = new Map<ReadPreferenceMode, Adapter>()));
  let gate = gates.get(preference);
  if (!gate) {
    gate = new ReadOnlyAdapter(adapter, preference);
    readOnlyGates.add(gate);
    gates.set(preference, gate);
  }
  return gate;
}

class ReadOnlyAdapter implements Adapter {
  readonly kind: Adapter['kind'];
  readonly source: string;
  readonly bson: Adapter['bson'];
  readonly connectMember?: (host: string) => Promise<Adapter>;
  /** Present when the inner adapter has one; without it `commandCursor` sends getMore through `command`. */
  readonly cursor?: (db: string, cmd: Doc, opts?: CursorOptions) => Promise<CursorRead>;
  /** Private (#): an experiment handed this adapter cannot reach the connection behind it. */
  readonly #inner: Adapter;
  readonly #preference: ReadPreferenceMode;
  /** Cursors opened through `command` (hand-sent getMore) and still open, as db + id. */
  readonly #cursors = new Set<string>();

  constructor(inner: Adapter, preference: ReadPreferenceMode) {
    this.#inner = inner;
    this.#preference = preference;
    this.kind = inner.kind;
    this.source = inner.source;
    this.bson = inner.bson;
    if (inner.connectMember) {
      const connect = inner.connectMember.bind(inner);
      // A member connection is one node already: its reads need no read preference.
      this.connectMember = async (host: string) => readOnly(await connect(host), { readPreference: 'primary' });
    }
    const cursor = inner.cursor?.bind(inner);
    if (cursor) {
      // Only the opening command is the gate's to check: the host's cursor sends getMore and killCursors for that
      // cursor alone, on its session, and no caller can name another cursor id through it.
      this.cursor = async (db: string, cmd: Doc, opts: CursorOptions = {}) => {
        const name = commandName(cmd);
        const why = whyNotReading(cmd) ?? whyNotCursor(cmd);
        if (why !== null)
          throw new RefusedCommand(
            `mongo-advisor refused to send ${name} while inspecting: only reading commands are allowed (${why})`,
            name,
            db,
          );
        return await cursor(db, cmd, { ...opts, ...this.#routing(cmd, opts) });
      };
    }
  }

  /** The read preference of one read: the primary when asked for, else `readPreferenceFor`. */
  #routing(cmd: Doc, opts: CommandOptions): CommandOptions {
    const pref = opts.readPreference === 'primary' ? 'primary' : readPreferenceFor(cmd, this.#preference);
    return pref === 'primary' ? {} : { readPreference: pref };
  }

  get roundTrips(): number {
    return this.#inner.roundTrips;
  }

  async command(db: string, cmd: Doc, opts: CommandOptions = {}): Promise<Doc> {
    const name = commandName(cmd);
    const why = whyNotReading(cmd) ?? this.#notOurs(db, name, cmd);
    if (why !== null) {
      throw new RefusedCommand(
        `mongo-advisor refused to send ${name} while inspecting: only reading commands are allowed (${why})`,
        name,
        db,
      );
    }
    const routing = this.#routing(cmd, opts);
    const reply = await (routing.readPreference ? this.#inner.command(db, cmd, routing) : this.#inner.command(db, cmd));
    if (name === 'killCursors') {
      for (const id of cmd.cursors as unknown[]) this.#cursors.delete(cursorKey(db, id) as string);
    } else {
      const cursor = (reply as { cursor?: { id?: unknown } } | null)?.cursor;
      const key = cursorKey(db, cursor?.id);
      if (key) this.#cursors.add(key);
      else if (name === 'getMore') this.#cursors.delete(cursorKey(db, cmd.getMore) as string);
    }
    return reply;
  }

  /** getMore and killCursors: every cursor id must be one this adapter opened on this database. */
  #notOurs(db: string, name: string, cmd: Doc): string | null {
    if (name === 'getMore') {
      const key = cursorKey(db, cmd.getMore);
      return key !== null && this.#cursors.has(key)
        ? null
        : `getMore of cursor ${cursorLabel(cmd.getMore)} on ${db}, which this inspection did not open`;
    }
    if (name === 'killCursors') {
      if (!Array.isArray(cmd.cursors) || cmd.cursors.length === 0) return 'killCursors without a list of cursor ids';
      const foreign = (cmd.cursors as unknown[]).filter((id) => {
        const key = cursorKey(db, id);
        return key === null || !this.#cursors.has(key);
      });
      return foreign.length === 0
        ? null
        : `killCursors of cursor ${foreign.map(cursorLabel).join(', ')} on ${db}, which this inspection did not open`;
    }
    return null;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/**
 * Commands the scratch handle may send to a database named with the scratch prefix: each acts only on the
 * database it is sent to (aggregate and explain are checked for $out/$merge into other databases).
 */
const SCRATCH_COMMANDS = new Set([
  'create',
  'drop',
  'dropDatabase',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'createIndexes',
  'dropIndexes',
  'collMod',
  'find',
  'aggregate',
  'count',
  'distinct',
  'explain',
  'listCollections',
  'listIndexes',
  'collStats',
  'dbStats',
  'getMore',
  'killCursors',
]);

/** Where a $out or $merge writes: its database, or null for the database the command is sent to. */
function stageTargetDb(stage: string, value: unknown): string | null | undefined {
  if (typeof value === 'string') return null;
  if (!isPlainDoc(value)) return undefined;
  const into = stage === '$merge' ? value.into : value;
  if (typeof into === 'string') return null;
  if (!isPlainDoc(into)) return undefined;
  if (into.db === undefined) return null;
  return typeof into.db === 'string' ? into.db : undefined;
}

function whyNotScratch(db: string, cmd: unknown, prefix: string, depth = 0): string | null {
  const shape = shapeProblem(cmd, depth > 0 ? 'the explained command' : 'a command');
  if (shape !== null || !isPlainDoc(cmd)) return shape;
  const name = commandName(cmd);
  if (!db.startsWith(prefix)) {
    // Outside scratch: the two server-level commands cleanup and experiments need, nothing else.
    if (db === 'admin' && name === 'listDatabases') return null; // cleanup checks that the scratch database is gone
    if (db === 'admin' && name === 'fsync') {
      // A checkpoint, so storage sizes count what was written to scratch. With lock it would block every write on
      // the server until fsyncUnlock: refused.
      return cmd.lock === undefined || cmd.lock === false || cmd.lock === 0
        ? null
        : 'fsync with lock blocks every write on the server';
    }
    return (
      `the database is outside the scratch prefix ${prefix}; outside it only listDatabases and fsync (without ` +
      `lock) are sent to admin`
    );
  }
  if (!SCRATCH_COMMANDS.has(name))
    return `${name} is not on the scratch handle's list (${[...SCRATCH_COMMANDS].join(', ')})`;
  if (name === 'aggregate' || name === 'create') {
    if (cmd.pipeline !== undefined) {
      for (const w of writeStages(cmd.pipeline)) {
        if (w.stage.startsWith('(')) return stageProblem(w);
        const target = stageTargetDb(w.stage, w.value);
        if (target === undefined) return `the ${w.stage} stage at ${w.path} has a target that cannot be read`;
        if (target !== null && !target.startsWith(prefix))
          return `the ${w.stage} stage at ${w.path} writes to database ${target}`;
      }
    }
  }
  if (name === 'explain') {
    if (depth > 0) return 'explain must wrap one command, not another explain';
    return whyNotScratch(db, cmd.explain, prefix, depth + 1);
  }
  return null;
}

/**
 * The adapter the scratch handle writes through: any command of its list inside databases whose names start with
 * `prefix`; outside them only listDatabases and fsync on admin. Anything else throws a RefusedCommand before it
 * reaches the server. Used for the source server's connection and for a `--scratch-uri` one alike.
 */
export function scratchOnly(adapter: Adapter, prefix = SCRATCH_PREFIX): Adapter {
  return new ScratchOnlyAdapter(adapter, prefix);
}

class ScratchOnlyAdapter implements Adapter {
  readonly kind: Adapter['kind'];
  readonly source: string;
  readonly bson: Adapter['bson'];
  readonly cursor?: (db: string, cmd: Doc, opts?: CursorOptions) => Promise<CursorRead>;
  readonly #inner: Adapter;
  readonly #prefix: string;

  constructor(inner: Adapter, prefix: string) {
    if (!prefix) throw new Error('a scratch gate needs a database prefix');
    this.#inner = inner;
    this.#prefix = prefix;
    this.kind = inner.kind;
    this.source = inner.source;
    this.bson = inner.bson;
    const cursor = inner.cursor?.bind(inner);
    if (cursor) {
      // Scratch reads go to the primary, where the experiment wrote (no read preference).
      this.cursor = async (db: string, cmd: Doc, opts: CursorOptions = {}) => {
        const why = whyNotScratch(db, cmd, this.#prefix) ?? whyNotCursor(cmd);
        if (why !== null) {
          const name = commandName(cmd);
          throw new RefusedCommand(
            `mongo-advisor refused to send ${name} to database ${db}: experiments write only to databases ` +
              `named ${this.#prefix}… (${why})`,
            name,
            db,
          );
        }
        const { readPreference: _primary, ...rest } = opts;
        return await cursor(db, cmd, rest);
      };
    }
  }

  get roundTrips(): number {
    return this.#inner.roundTrips;
  }

  async command(db: string, cmd: Doc): Promise<Doc> {
    const why = whyNotScratch(db, cmd, this.#prefix);
    if (why !== null) {
      const name = commandName(cmd);
      throw new RefusedCommand(
        `mongo-advisor refused to send ${name} to database ${db}: experiments write only to databases ` +
          `named ${this.#prefix}… (${why})`,
        name,
        db,
      );
    }
    return await this.#inner.command(db, cmd);
  }

  /** The host's own wait after an interrupt (mongosh): cleanup drops only once the host takes commands again. */
  ready(): Promise<string | null> {
    return this.#inner.ready?.() ?? Promise.resolve(null);
  }

  isInterrupt(err: unknown): boolean {
    return this.#inner.isInterrupt?.(err) ?? false;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

/**
 * The fields a `profile` command may carry through the profiler gate, and the levels it may set. -1 reads the
 * settings; 1 is what `mongo-advisor profile` turns on; 0 is what it puts back (it refuses to start when the level is
 * already on, so the level it restores is always 0). Level 2 (every operation) is never sent. The fields are the
 * manual's (https://www.mongodb.com/docs/manual/reference/command/profile/): `slowms`, `sampleRate` and `filter`
 * (a query document, or "unset" to remove one).
 */
const PROFILE_FIELDS = new Set(['profile', 'slowms', 'sampleRate', 'filter']);
const PROFILE_LEVELS = new Set([-1, 0, 1]);

/** Why `cmd` is not a `profile` command the profiler gate sends (a sentence for the refusal), or null. */
export function whyNotProfileCommand(cmd: unknown): string | null {
  const shape = shapeProblem(cmd);
  if (shape !== null || !isPlainDoc(cmd)) return shape;
  const name = commandName(cmd);
  if (name !== 'profile') return `${name} is not the profile command, the only one this gate sends`;
  const extra = Object.keys(cmd).filter((k) => !PROFILE_FIELDS.has(k));
  if (extra.length) return `profile with ${extra.join(', ')}: only ${[...PROFILE_FIELDS].join(', ')} are allowed`;
  if (typeof cmd.profile !== 'number' || !PROFILE_LEVELS.has(cmd.profile))
    return `profile level ${JSON.stringify(cmd.profile)}: only -1 (read), 0 (off) and 1 (slow operations) are sent`;
  if (cmd.profile === -1 && Object.keys(cmd).length > 1)
    return 'profile -1 reads the settings and takes no other field';
  if (cmd.slowms !== undefined && (!Number.isInteger(cmd.slowms) || (cmd.slowms as number) < 0))
    return 'slowms must be a whole number of milliseconds, 0 or more';
  const rate = cmd.sampleRate;
  if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)))
    return 'sampleRate must be a number from 0 to 1';
  if (cmd.filter !== undefined && cmd.filter !== 'unset' && !isPlainDoc(cmd.filter))
    return 'filter must be a query document or "unset"';
  return null;
}

/**
 * The adapter `mongo-advisor profile` changes the profiling level through: the `profile` command on the one database
 * it was made for, with the fields and levels `whyNotProfileCommand` allows, and nothing else. Anything else throws a
 * RefusedCommand before it reaches the server. The rest of that command's reads go through `readOnly`.
 */
export function profilerOnly(adapter: Adapter, db: string): Adapter {
  return new ProfilerOnlyAdapter(adapter, db);
}

class ProfilerOnlyAdapter implements Adapter {
  readonly kind: Adapter['kind'];
  readonly source: string;
  readonly bson: Adapter['bson'];
  readonly #inner: Adapter;
  readonly #db: string;

  constructor(inner: Adapter, db: string) {
    this.#inner = inner;
    this.#db = db;
    this.kind = inner.kind;
    this.source = inner.source;
    this.bson = inner.bson;
  }

  get roundTrips(): number {
    return this.#inner.roundTrips;
  }

  async command(db: string, cmd: Doc): Promise<Doc> {
    const why = db === this.#db ? whyNotProfileCommand(cmd) : `the database is not ${this.#db}, the one asked for`;
    if (why !== null) {
      const name = commandName(cmd);
      throw new RefusedCommand(
        `mongo-advisor refused to send ${name} to database ${db}: only the profiling level of ${this.#db} may ` +
          `be changed (${why})`,
        name,
        db,
      );
    }
    return await this.#inner.command(db, cmd);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
