/**
 * The workload folded as it is read: each record goes into its database's per-shape sums at once, and only a few real
 * instances per shape are kept (for a replay on scratch). Nothing here holds every record, so a log of a million slow
 * queries costs the memory of its distinct shapes, not of its lines.
 *
 * Shapes are raw here (paths as written): the run's collector folds them through each collection's maps later
 * (src/collect/workload.ts), when the sample is known, and merges those that become one.
 *
 * USER DATA: the kept instances hold the application's values; they are a non-enumerable property of each shape, for
 * replay only, never printed or stored.
 */
import type { CommandDocument, WorkloadRecord, WorkloadSource } from './record';
import { type QueryShape, shapesOf } from './shape';
import { ShapeSums } from './shape-stats';

/** Real commands kept per shape for a replay on scratch (never serialized). */
export const MAX_INSTANCES = 5;
/**
 * Distinct raw shapes kept per run. Shapes come from the application's code, a few hundred in most; many more means
 * field names that carry data (a map's keys), which the collector folds into one later. Past this, the calls of new
 * shapes are counted, not kept, and a note says so: memory stays bounded whatever the input.
 */
export const MAX_SHAPES = 50_000;

/** Why a record the reader kept gave no query shape. */
export type NoShapeReason = 'getMoreWithoutOrigin' | 'otherCommand' | 'unreadable';

/** How each reason reads in a note (no value: counts and command kinds only). */
export const NO_SHAPE_WORDS: Readonly<Record<NoShapeReason, string>> = {
  getMoreWithoutOrigin: 'getMore without its originating command',
  otherCommand: 'command other than find, aggregate, count, distinct, update, delete or findAndModify',
  unreadable: 'command naming no collection or holding no statement',
};

const INSTANCES = Symbol('instances');

export interface TalliedShape {
  /** The raw shape (paths as written, not folded). */
  readonly shape: QueryShape;
  readonly sums: ShapeSums;
}

/** The real commands kept for a tallied shape (USER DATA). */
export function instancesOf(t: TalliedShape): CommandDocument[] {
  return (t as TalliedShape & { [INSTANCES]: CommandDocument[] })[INSTANCES];
}

export interface DatabaseTally {
  /** Records of this database that were read. */
  records: number;
  sources: Set<WorkloadSource>;
  /** Raw shapes by id, in the order they first appeared. */
  shapes: Map<string, TalliedShape>;
  /** Records that gave no shape, by reason. */
  noShape: Map<NoShapeReason, number>;
  /** Calls of shapes past MAX_SHAPES: counted, not kept. */
  overCap: number;
  /** Documents inserted, by collection (inserts have no shape; embed-reference weighs the writes each side gets). */
  inserts: Map<string, number>;
}

/** One statement per command for updates and deletes of several: each is its own operation. */
function statementsOf(command: CommandDocument): CommandDocument[] {
  for (const field of ['updates', 'deletes']) {
    const list = command[field];
    if (Array.isArray(list) && list.length > 1) return list.map((s: unknown) => ({ ...command, [field]: [s] }));
  }
  return [command];
}

function noShapeReason(record: WorkloadRecord): NoShapeReason {
  if (record.op === 'getMore') return 'getMoreWithoutOrigin';
  if (record.op === 'other') return 'otherCommand';
  return 'unreadable';
}

/** Records folded into per-database, per-shape sums as they come; see the file's header. */
export class WorkloadTally {
  readonly dbs = new Map<string, DatabaseTally>();
  private shapeCount = 0;

  constructor(private readonly maxShapes = MAX_SHAPES) {}

  /** A tally of the records given at once (small inputs, tests, the profiler's bounded read). */
  static of(records: Iterable<WorkloadRecord>): WorkloadTally {
    const t = new WorkloadTally();
    for (const r of records) t.add(r);
    return t;
  }

  /** Records read, all databases. */
  get records(): number {
    let n = 0;
    for (const d of this.dbs.values()) n += d.records;
    return n;
  }

  add(record: WorkloadRecord): void {
    const db = record.ns.db;
    let d = this.dbs.get(db);
    if (!d) {
      d = { records: 0, sources: new Set(), shapes: new Map(), noShape: new Map(), overCap: 0, inserts: new Map() };
      this.dbs.set(db, d);
    }
    d.records++;
    d.sources.add(record.source);
    const source = record.op === 'getMore' ? record.originatingCommand : record.command;
    let shapes = 0;
    if (source) {
      const placeholders = record.shapeOnly === true ? { placeholders: true } : {};
      for (const command of statementsOf(source)) {
        for (const raw of shapesOf(command, db, placeholders)) {
          shapes++;
          this.addRun(d, raw, record, command, raw.command !== 'lookup');
        }
      }
    }
    if (record.op === 'insert') {
      // mongod logs and profiles an insert's documents as a count (they travel beside the command, in a document
      // sequence); a queries file or the API gives them in the command
      const docs = record.command.documents;
      const each = record.ninserted ?? (Array.isArray(docs) && docs.length > 0 ? docs.length : 1);
      const n = each * (record.execCount ?? 1);
      d.inserts.set(record.ns.coll, (d.inserts.get(record.ns.coll) ?? 0) + n);
    }
    // an insert has no query shape and is no gap: it is counted above, by collection
    if (shapes === 0 && record.op !== 'insert') {
      const why = noShapeReason(record);
      d.noShape.set(why, (d.noShape.get(why) ?? 0) + 1);
    }
  }

  /**
   * One run of a shape. A `$lookup`'s shape is a part of its pipeline's run, not a run of its own: it counts the call,
   * while the pipeline's time and counts (`withFacts` false) stay on the pipeline's shape, counted once.
   */
  private addRun(
    d: DatabaseTally,
    raw: QueryShape,
    record: WorkloadRecord,
    command: CommandDocument,
    withFacts: boolean,
  ): void {
    let t = d.shapes.get(raw.id);
    if (!t) {
      if (this.shapeCount >= this.maxShapes) {
        d.overCap += record.execCount ?? 1;
        return;
      }
      this.shapeCount++;
      t = { shape: raw, sums: new ShapeSums() };
      Object.defineProperty(t, INSTANCES, { value: [], enumerable: false });
      d.shapes.set(raw.id, t);
    }
    t.sums.add(withFacts ? record : {}, record.execCount);
    // A shape the server made ($queryStats: "?string" in place of values) is no command to replay.
    const kept = instancesOf(t);
    if (record.shapeOnly !== true && kept.length < MAX_INSTANCES) kept.push(command);
  }
}

/** "3 records kept gave no shape: 2 getMore without its originating command, 1 insert (…)", or null. */
export function noShapeNote(d: DatabaseTally, db: string): string | null {
  let total = 0;
  for (const n of d.noShape.values()) total += n;
  if (total === 0) return null;
  const parts = [...d.noShape]
    .sort((a, b) => b[1] - a[1])
    .map(([why, n]) => `${n} ${NO_SHAPE_WORDS[why]}`)
    .join(', ');
  return `${total} operation(s) of ${db} that were read gave no query shape: ${parts}.`;
}
