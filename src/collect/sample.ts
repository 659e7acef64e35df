import { commandCursor, readCursor } from '../adapters/cursor';
import type { Adapter, Doc } from '../adapters/types';
import { formatBytes } from '../core/format';
import { prng } from '../core/stats';
import type { DocProfile, SampleMethod, ServerInfo } from '../core/types';
import { ELEMENT_KIND } from '../core/types';
import { redactServerText } from '../lib/redact';
import { indexKeyBytes, isDate, objectIdSeconds } from '../lib/bson-size';
import { idShape } from '../lib/id-shape';
import { pathKey } from '../lib/doc-path';
import { byName } from '../lib/names-as-data';

function arrayKeyBytes(n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += 1 + indexKeyBytes(i);
  return total;
}

/** The one reply a server sends for a batch holds at most 16 MiB of documents (MongoDB's maximum BSON document
 * size). */
export const REPLY_BYTES = 16 * 1024 * 1024;

export interface SamplePlan {
  requested: number;
  maxTimeMS: number;
  /** Documents above this many bytes are measured on the server and not pulled whole. */
  largeDocBytes: number;
  /**
   * Read every document instead of sampling when the collection is within these bounds (`count` and `sizeBytes` as
   * `$collStats` gave them; `sizeBytes` 0 means not measured). Absent: never a whole read.
   */
  whole?: { count: number | null; sizeBytes: number; maxDocs: number; maxBytes: number };
  /** Without `$sample`: the most `_id`s read in natural order to draw random positions from (0: natural order
   * instead). */
  idScanMax?: number;
  /** Seeds the random positions of `random-ids` (the same collection gets the same picks run after run). */
  seed?: number;
  /** The collection's document count, to tell whether the `_id` scan covered it all. */
  count?: number | null;
}

export interface RawSample {
  method: Exclude<SampleMethod, 'none'>;
  random: boolean;
  /** Every document of the collection was read. */
  complete: boolean;
  /** Documents small enough to pull whole. */
  docs: Doc[];
  /** Large documents, already reduced on the server to their _id, size and top-level array shapes. */
  large: DocProfile[];
  largeIds: unknown[];
  /** Per large document (same order): its top-level date fields in ms, so the time field dates it as a pulled one. */
  largeDates: Record<string, number>[];
  /**
   * `_id`s in natural order, where this read saw them so: every document's (whole), or the scan's (random-ids); null
   * otherwise. id-pattern reads the same thing with its own find (see the report of issue 9 for sharing it).
   */
  naturalIds: unknown[] | null;
  /** random-ids: how many `_id`s the natural-order scan read, and whether it reached the collection's end. */
  idScan?: { read: number; whole: boolean };
  /** Why a cheaper or better method was not used (a whole read given up, an `_id` scan that failed), for a note. */
  fallback?: string;
}

const SIZE_FIELD = '__advisorBytes';
const DOC_FIELD = '__advisorDoc';
const TOP_FIELD = '__advisorTop';

/**
 * Per top-level field of `root`: name, BSON type, array length (-1 for non-arrays), bytes, first element's type, and
 * the value of a date field (null otherwise): the creation time of a document too large to pull, where the time field
 * is one of its dates. No other value is read.
 */
function topShape(root: string): Doc {
  return {
    $map: {
      input: { $objectToArray: root },
      as: 'f',
      in: {
        k: '$$f.k',
        t: { $type: '$$f.v' },
        n: { $cond: [{ $isArray: '$$f.v' }, { $size: '$$f.v' }, -1] },
        b: { $bsonSize: { $arrayToObject: [[{ k: 'v', v: '$$f.v' }]] } },
        e: { $cond: [{ $isArray: '$$f.v' }, { $type: { $arrayElemAt: ['$$f.v', 0] } }, null] },
        d: { $cond: [{ $eq: [{ $type: '$$f.v' }, 'date'] }, '$$f.v', null] },
      },
    },
  };
}

/** Which documents a read takes: a `$sample`, the first ones in natural order, or the ones with these `_id`s. */
type Selection = { kind: 'sample'; size: number } | { kind: 'first'; limit: number } | { kind: 'ids'; ids: unknown[] };

function headOf(s: Selection): Doc[] {
  if (s.kind === 'sample') return [{ $sample: { size: s.size } }];
  if (s.kind === 'first') return [{ $limit: s.limit }];
  return [{ $match: { _id: { $in: s.ids } } }];
}

function sizeOf(s: Selection): number {
  return s.kind === 'sample' ? s.size : s.kind === 'first' ? s.limit : s.ids.length;
}

interface Read {
  /** false when `oneReply` was asked and the documents did not fit in it (the cursor was closed, the read is
   * partial). */
  whole: boolean;
  docs: Doc[];
  large: DocProfile[];
  largeIds: unknown[];
  largeDates: Record<string, number>[];
  /** The server's bytes of each pulled document, where $bsonSize measured them (null otherwise). */
  bytes: number | null;
  /** Every row's `_id`, in the order the server sent them. */
  order: unknown[];
}

/**
 * The code MongoDB raises when `$sample`'s random cursor keeps meeting documents it already returned (`uasserted(28799,
 * "$sample stage could not find a non-duplicate document after 100 while using a random cursor. This is likely a
 * sporadic failure, please try again.")`, src/mongo/db/pipeline/document_source_sample_from_random_cursor.cpp;
 * codeName `Location28799`). Recognised by the code alone: the message is the server's and may change.
 */
export const SAMPLE_DUPLICATE_CODE = 28799;

/** Whether an error is the server's 28799 (its code as a number, or a BSON Int32/Long with valueOf). */
export function isSampleDuplicateError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return code === SAMPLE_DUPLICATE_CODE;
  if (code !== null && typeof code === 'object' && typeof (code as { valueOf?: unknown }).valueOf === 'function')
    return Number((code as { valueOf(): unknown }).valueOf()) === SAMPLE_DUPLICATE_CODE;
  return false;
}

/**
 * `$sample` picks random documents with a random cursor and gives up when it keeps meeting the same one: error
 * {@link SAMPLE_DUPLICATE_CODE}. The server's own advice is to retry ("This is likely a sporadic failure, please try
 * again."): one more try, then the error stands.
 */
export async function onceMoreOn28799<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!isSampleDuplicateError(err)) throw err;
    return await read();
  }
}

/**
 * One read of the selected documents. Where $bsonSize and $size work, documents over `largeDocBytes` come back as
 * their top-level field shapes only: _id, total size, and for each array its length and bytes, measured by the server.
 * batchSize = the selection's size + 1: one reply carries it whole (up to 16 MiB) instead of many getMores, and a batch
 * larger than the result tells the server the cursor is done (an exactly full batch leaves it open: a getMore).
 */
async function readSelection(
  adapter: Adapter,
  server: ServerInfo,
  db: string,
  coll: string,
  sel: Selection,
  plan: SamplePlan,
  oneReply = false,
): Promise<Read> {
  const caps = server.capabilities;
  const n = sizeOf(sel);
  const opts = { maxTimeMS: plan.maxTimeMS };
  let whole = true;
  const cursor = async (cmd: Doc, o: { limit?: number; maxTimeMS: number }): Promise<Doc[]> => {
    if (!oneReply) return commandCursor(adapter, db, cmd, o);
    const r = await firstReply(adapter, db, cmd);
    whole = r.exhausted;
    return r.docs;
  };
  if (caps.bsonSize.supported === true && caps.arraySize.supported === true) {
    const isLarge = { $gt: [{ $bsonSize: '$$ROOT' }, plan.largeDocBytes] };
    const pipeline = [
      ...headOf(sel),
      {
        $project: {
          _id: 1,
          [SIZE_FIELD]: { $bsonSize: '$$ROOT' },
          [DOC_FIELD]: { $cond: [isLarge, '$$REMOVE', '$$ROOT'] },
          [TOP_FIELD]: { $cond: [isLarge, topShape('$$ROOT'), '$$REMOVE'] },
        },
      },
    ];
    const rows = await cursor(
      { aggregate: coll, pipeline, cursor: { batchSize: n + 1 }, maxTimeMS: plan.maxTimeMS, allowDiskUse: false },
      opts,
    );
    const out: Read = {
      whole,
      docs: [],
      large: [],
      largeIds: [],
      largeDates: [],
      bytes: 0,
      order: rows.map((r) => r._id),
    };
    for (const r of rows) {
      out.bytes = (out.bytes ?? 0) + Number(r[SIZE_FIELD] ?? 0);
      const d = r[DOC_FIELD] as Doc | undefined;
      if (d) out.docs.push(d);
      else {
        out.large.push(reduceLarge(r));
        out.largeIds.push(r._id);
        out.largeDates.push(topDates(r));
      }
    }
    return out;
  }
  if (sel.kind === 'sample') {
    const docs = await cursor(
      { aggregate: coll, pipeline: headOf(sel), cursor: { batchSize: n + 1 }, maxTimeMS: plan.maxTimeMS },
      opts,
    );
    return { whole, docs, large: [], largeIds: [], largeDates: [], bytes: null, order: docs.map((d) => d._id) };
  }
  const filter = sel.kind === 'ids' ? { _id: { $in: sel.ids } } : {};
  const docs = await cursor(
    { find: coll, filter, limit: n, batchSize: n + 1, maxTimeMS: plan.maxTimeMS },
    { limit: n, ...opts },
  );
  return { whole, docs, large: [], largeIds: [], largeDates: [], bytes: null, order: docs.map((d) => d._id) };
}

/** The first reply of a cursor command only; a cursor left open (more than one reply's worth) is closed at once. */
async function firstReply(adapter: Adapter, db: string, cmd: Doc): Promise<{ docs: Doc[]; exhausted: boolean }> {
  // The first reply only: the host's cursor closes it (killCursors in the cursor's own session) when more is left.
  return await readCursor(adapter, db, cmd, { batches: 1 });
}

/**
 * The sample, the best way the server allows:
 * 1. **whole** — every document, when the collection is within `plan.whole` (documents and bytes). Read with a limit
 *    one above the bound: more documents than that (a stale count) gives the read up for 2.
 * 2. **$sample** — random, server-side, where the server has it.
 * 3. **random-ids** — without `$sample`: the `_id`s in natural order (at most `idScanMax`, one find with an `_id`
 *    projection), `requested` of them picked at random positions (seeded), fetched by `_id` with `$in`. Random over
 *    the collection only when the scan reached its end; otherwise over the first `idScan.read` documents.
 * 4. **natural-order** — the first documents (not random): only when the `_id` scan is turned off or failed.
 */
export async function readSample(
  adapter: Adapter,
  server: ServerInfo,
  db: string,
  coll: string,
  plan: SamplePlan,
): Promise<RawSample> {
  // 1. the whole collection, when it is small enough to read at once
  const whole = await readWhole(adapter, server, db, coll, plan);
  if (typeof whole === 'object') return whole;
  let fallback = whole;
  if (server.capabilities.sample.supported === true) {
    const read = await onceMoreOn28799(() =>
      readSelection(adapter, server, db, coll, { kind: 'sample', size: plan.requested }, plan),
    );
    return {
      method: '$sample',
      random: true,
      complete: false,
      docs: read.docs,
      large: read.large,
      largeIds: read.largeIds,
      largeDates: read.largeDates,
      naturalIds: null,
      ...(fallback ? { fallback } : {}),
    };
  }
  const scanMax = plan.idScanMax ?? 0;
  if (scanMax > 0) {
    let ids: unknown[] | null = null;
    try {
      ids = await readIds(adapter, db, coll, scanMax, plan.maxTimeMS);
    } catch (err) {
      const why = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
      fallback = `the _ids could not be read (${redactServerText(why)})`;
    }
    if (ids) {
      const covered =
        ids.length < scanMax || (plan.count !== null && plan.count !== undefined && ids.length >= plan.count);
      const picked = pickPositions(ids.length, plan.requested, prng(plan.seed ?? 1)).map((i) => ids[i]);
      const out: RawSample = {
        method: 'random-ids',
        random: covered,
        complete: false,
        docs: [],
        large: [],
        largeIds: [],
        largeDates: [],
        naturalIds: ids,
        idScan: { read: ids.length, whole: covered },
        ...(fallback ? { fallback } : {}),
      };
      for (const chunk of chunksByBytes(picked, IN_BYTES)) {
        const read = await readSelection(adapter, server, db, coll, { kind: 'ids', ids: chunk }, plan);
        out.docs.push(...read.docs);
        out.large.push(...read.large);
        out.largeIds.push(...read.largeIds);
        out.largeDates.push(...read.largeDates);
      }
      return out;
    }
  }
  const read = await readSelection(adapter, server, db, coll, { kind: 'first', limit: plan.requested }, plan);
  return {
    method: 'natural-order',
    random: false,
    complete: false,
    docs: read.docs,
    large: read.large,
    largeIds: read.largeIds,
    largeDates: read.largeDates,
    naturalIds: read.order,
    ...(fallback ? { fallback } : {}),
  };
}

/**
 * The whole collection in one read, when its count and size say it fits: the sample, or why it did not fit after all
 * (the next method's fallback), or undefined when it was not tried.
 */
async function readWhole(
  adapter: Adapter,
  server: ServerInfo,
  db: string,
  coll: string,
  plan: SamplePlan,
): Promise<RawSample | string | undefined> {
  const w = plan.whole;
  if (w && w.count !== null && w.count <= w.maxDocs) {
    const measured = w.sizeBytes > 0;
    const bsonSize =
      server.capabilities.bsonSize.supported === true && server.capabilities.arraySize.supported === true;
    // Unmeasured sizes are bounded by the read itself where $bsonSize gives each document's bytes; otherwise not at
    // all.
    if ((measured && w.sizeBytes <= w.maxBytes) || (!measured && bsonSize)) {
      // Unmeasured: one reply only (at most 16 MiB pulled), and its documents' bytes as the server measured them.
      const read = await readSelection(
        adapter,
        server,
        db,
        coll,
        { kind: 'first', limit: w.maxDocs + 1 },
        plan,
        !measured,
      );
      const n = read.docs.length + read.large.length;
      const tooBig = !measured && (!read.whole || (read.bytes ?? 0) > w.maxBytes);
      // A find or aggregate with no sort and no filter scans the collection: its rows come in natural order.
      if (n <= w.maxDocs && !tooBig)
        return {
          method: 'whole',
          random: true,
          complete: true,
          docs: read.docs,
          large: read.large,
          largeIds: read.largeIds,
          largeDates: read.largeDates,
          naturalIds: read.order,
        };
      const limit = Math.min(w.maxBytes, REPLY_BYTES);
      return n > w.maxDocs
        ? `the collection held more than ${w.maxDocs} documents when read (its count said ${w.count})`
        : `$collStats gave no size and its documents came to more than ${formatBytes(limit)} when read`;
    }
  }
  return undefined;
}

/** Bytes of `_id`s per `$in` command: a quarter of the 16 MiB a command may hold, leaving room for the rest. */
const IN_BYTES = 4 * 1024 * 1024;

function chunksByBytes(ids: unknown[], maxBytes: number): unknown[][] {
  const out: unknown[][] = [];
  let chunk: unknown[] = [];
  let bytes = 0;
  for (const id of ids) {
    // the value, its type byte and an array index key of up to 7 bytes
    const b = idShape(id).size + 8;
    if (chunk.length > 0 && bytes + b > maxBytes) {
      out.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(id);
    bytes += b;
  }
  if (chunk.length) out.push(chunk);
  return out;
}

/** The first `limit` `_id`s in natural order (one find with an `_id` projection; getMores only past 16 MiB of
 * `_id`s). */
async function readIds(
  adapter: Adapter,
  db: string,
  coll: string,
  limit: number,
  maxTimeMS: number,
): Promise<unknown[]> {
  const docs = await commandCursor(
    adapter,
    db,
    { find: coll, filter: {}, projection: { _id: 1 }, limit, batchSize: limit, maxTimeMS },
    { limit, maxTimeMS },
  );
  return docs.map((d) => d._id);
}

/**
 * `k` distinct positions out of `0..n-1`, drawn at random with `rnd` (a partial Fisher-Yates shuffle), returned in
 * ascending order; all of them when k >= n.
 */
export function pickPositions(n: number, k: number, rnd: () => number): number[] {
  if (k >= n) return Array.from({ length: n }, (_, i) => i);
  const pos = new Map<number, number>(); // a sparse shuffle: only the swapped slots are stored
  const out: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rnd() * (n - i));
    const atJ = pos.get(j) ?? j;
    out.push(atJ);
    pos.set(j, pos.get(i) ?? i);
  }
  return out.sort((a, b) => a - b);
}

/** A 32-bit FNV-1a hash of a string: a collection's seed for random-ids (reproducible from run to run). */
export function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export interface OutlierPlan {
  /** The documents kept by each measure (largest BSON size; longest top-level array). */
  top: number;
  maxTimeMS: number;
  /** The sample's `_id`s: outliers already in the sample are not repeated. */
  sampledIds: readonly unknown[];
  /** The time field's path ('_id' for ObjectId times), to date each outlier as the sample's documents are. */
  timeField: string | null;
}

const ID_SIZE = '__advisorS';
const ID_ARRAY = '__advisorA';
const ID_ROOT = '__advisorRoot';
const TIME = '__advisorT';

/**
 * The few largest documents and the few with the longest top-level array, found by one aggregate over the whole
 * collection (a collection scan: the caller bounds it). Each comes back reduced on the server to its top-level
 * field shapes (names, types, lengths, bytes: never a value), as large sampled documents do. Nested arrays
 * (`comments.replies`) are not measured: only top-level ones.
 */
export async function findOutliers(
  adapter: Adapter,
  db: string,
  coll: string,
  plan: OutlierPlan,
): Promise<DocProfile[]> {
  const longest = {
    $max: {
      $map: {
        input: { $objectToArray: '$$ROOT' },
        as: 'f',
        in: { $cond: [{ $isArray: '$$f.v' }, { $size: '$$f.v' }, 0] },
      },
    },
  };
  const time = plan.timeField && plan.timeField !== '_id' ? { [TIME]: `$${ID_ROOT}.${plan.timeField}` } : {};
  const reduce = { $project: { _id: 1, [SIZE_FIELD]: `$${ID_SIZE}`, [TOP_FIELD]: topShape(`$${ID_ROOT}`), ...time } };
  const pipeline = [
    { $project: { _id: 1, [ID_SIZE]: { $bsonSize: '$$ROOT' }, [ID_ARRAY]: longest, [ID_ROOT]: '$$ROOT' } },
    {
      $facet: {
        bySize: [{ $sort: { [ID_SIZE]: -1 } }, { $limit: plan.top }, reduce],
        byArray: [{ $match: { [ID_ARRAY]: { $gt: 0 } } }, { $sort: { [ID_ARRAY]: -1 } }, { $limit: plan.top }, reduce],
      },
    },
  ];
  const [row] = await commandCursor(
    adapter,
    db,
    { aggregate: coll, pipeline, cursor: { batchSize: 2 }, maxTimeMS: plan.maxTimeMS, allowDiskUse: false },
    { maxTimeMS: plan.maxTimeMS },
  );
  const seen = new Set(plan.sampledIds.map(idKey));
  const out: DocProfile[] = [];
  for (const r of [...((row?.bySize as Doc[] | undefined) ?? []), ...((row?.byArray as Doc[] | undefined) ?? [])]) {
    const key = idKey(r._id);
    if (seen.has(key)) continue;
    seen.add(key);
    const p = reduceLarge(r);
    const t = r[TIME];
    if (plan.timeField === '_id' && (r._id as { _bsontype?: string } | null)?._bsontype === 'ObjectId')
      p.createdAt = objectIdSeconds(r._id) * 1000;
    else if (t !== null && typeof t === 'object' && isDate(t)) p.createdAt = t.getTime();
    out.push(p);
  }
  return out;
}

function idKey(id: unknown): string {
  const s = idShape(id);
  return `${s.order[0]}:${String(s.order[1])}`;
}

const KIND_OF_TYPE: Record<string, number> = {
  object: ELEMENT_KIND.object,
  array: ELEMENT_KIND.array,
  string: ELEMENT_KIND.string,
  int: ELEMENT_KIND.number,
  long: ELEMENT_KIND.number,
  double: ELEMENT_KIND.number,
  decimal: ELEMENT_KIND.number,
  objectId: ELEMENT_KIND.objectId,
};

/** The top-level date fields of a reduced document, by name, in ms since the epoch. */
function topDates(r: Doc): Record<string, number> {
  const out = byName<number>(); // by field name: `__proto__` is one
  for (const f of (r[TOP_FIELD] as { k: string; d?: unknown }[] | undefined) ?? []) {
    const at = f.d !== null && typeof f.d === 'object' && isDate(f.d) ? f.d.getTime() : NaN;
    if (Number.isFinite(at)) out[f.k] = at;
  }
  return out;
}

function reduceLarge(r: Doc): DocProfile {
  const top = (r[TOP_FIELD] as { k: string; t: string; n: number; b: number; e: string | null }[] | undefined) ?? [];
  // $bsonSize of {v: value} is the value's bytes plus 8 (length, type byte, key "v", terminator).
  const fields = top.map((f) => ({
    path: pathKey(f.k),
    bytes: Number(f.b) - 8 + 2 + f.k.length,
    ...(typeof f.t === 'string' ? { type: f.t } : {}),
  }));
  fields.sort((a, b) => b.bytes - a.bytes);
  return {
    bytes: Number(r[SIZE_FIELD]),
    createdAt: null,
    measuredOnServer: true,
    arrays: top
      .filter((f) => Number(f.n) >= 0)
      .map((f) => {
        const bytes = Number(f.b) - 8;
        const n = Number(f.n);
        return {
          path: pathKey(f.k),
          occurrences: 1,
          maxLength: n,
          totalLength: n,
          bytes,
          elementBytes: Math.max(0, bytes - 5 - arrayKeyBytes(n)),
          kinds: f.e ? (KIND_OF_TYPE[f.e] ?? ELEMENT_KIND.other) : 0,
        };
      }),
    largestFields: fields.slice(0, 3),
  };
}
