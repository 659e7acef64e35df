/**
 * embed-reference's collector, once per database: the pairs of collections the workload reads together and the
 * operations each receives (pairs.ts, pure), then, for each pair, the children of a bounded set of parents counted on
 * the server (one aggregate on the parent for its keys, one `$group` on the child). The keys stay in memory; the data
 * holds counts and paces only.
 *
 * The workload is the shared workload collector's data for the database (src/collect/workload.ts, run just before:
 * the rule names it first in `needs`): the run's given workload (`--log`, `--queries`, records given to the API),
 * else `system.profile`, read once for every rule, with inserts counted per collection.
 */
import { dataOf, defineCollector, type DatabaseContext, optionsOf } from '../../src/core/collector';
import { queryWorkload } from '../../src/collect/workload';
import type { FromSchema } from '../../src/core/from-schema';
import type { Doc } from '../../src/core/adapter';
import { commandCursor } from '../../src/lib/cursor';
import { describeServerError } from '../../src/lib/server-error';
import { objectIdBytes } from '../../src/lib/bson-size';
import { type PairCandidate, workloadPairs } from './pairs';
import { type EmbedReferenceOptions, embedReferenceOptionsSchema } from './options';

const RULE = 'embed-reference';
/** Pairs measured per database, at most (each costs two reads). */
export const MAX_PAIRS = 20;
const DAY_MS = 86_400_000;

const NAME = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

export const PAIRS_SCHEMA = {
  type: 'object',
  required: ['sources', 'records', 'pairs', 'collections'],
  additionalProperties: false,
  properties: {
    sources: { type: 'array', items: { enum: ['profiler', 'log', 'queryStats', 'file'] }, uniqueItems: true },
    records: COUNT,
    pairs: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'parent',
          'localField',
          'child',
          'foreignField',
          'as',
          'basis',
          'joinCalls',
          'joinMillis',
          'fields',
          'measured',
        ],
        additionalProperties: false,
        properties: {
          parent: NAME,
          localField: NAME,
          child: NAME,
          foreignField: NAME,
          as: NAME,
          basis: { enum: ['lookup', 'shapePair'] },
          joinCalls: COUNT,
          joinMillis: { type: ['number', 'null'], minimum: 0 },
          fields: { type: 'array', items: NAME, maxItems: 100 },
          measured: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['parents', 'children', 'perDay', 'parentBytes', 'childBytes'],
                additionalProperties: false,
                properties: {
                  /** Parents read (their keys stay in memory). */
                  parents: COUNT,
                  /** Children of each parent read, in no particular order (no key kept). */
                  children: { type: 'array', items: COUNT, maxItems: 10000 },
                  /** Each parent's children per day since its first child (null: no pace), same order. */
                  perDay: { type: 'array', items: { type: ['number', 'null'], minimum: 0 }, maxItems: 10000 },
                  /** Average BSON sizes measured with $bsonSize (null: the server has none; stats stand in). */
                  parentBytes: { type: ['integer', 'null'], minimum: 0 },
                  childBytes: { type: ['integer', 'null'], minimum: 0 },
                },
              },
            ],
          },
        },
      },
    },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'reads', 'readsByKey', 'readsById', 'inserts', 'updates', 'updatesById', 'deletes'],
        additionalProperties: false,
        properties: {
          name: NAME,
          reads: COUNT,
          readsByKey: COUNT,
          readsById: COUNT,
          inserts: COUNT,
          updates: COUNT,
          updatesById: COUNT,
          deletes: COUNT,
        },
      },
    },
  },
} as const;
export type PairsData = FromSchema<typeof PAIRS_SCHEMA>;
export type MeasuredPair = PairsData['pairs'][number];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Seconds since the epoch an ObjectId was made at; null for any other value. */
function objectIdSeconds(v: unknown): number | null {
  if (!isObject(v)) return null;
  const t = (v as { _bsontype?: string })._bsontype;
  if (t !== 'ObjectId' && t !== 'ObjectID') return null;
  const b = objectIdBytes(v);
  return b.length === 12 ? new DataView(b.buffer, b.byteOffset, 4).getUint32(0) : null;
}

function valueAt(doc: Doc, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split('.')) cur = isObject(cur) ? cur[part] : undefined;
  return cur;
}

/** A scalar key a `$in` can match (an array localField is not a one-to-many parent key). */
const usableKey = (v: unknown): boolean => v !== undefined && v !== null && !Array.isArray(v);

/**
 * A parent's pace, children per day: null while its first child is younger than minAgeDays (too early to tell); 0
 * when all its children came within minAgeDays of the first (line items placed with their order: nothing since);
 * else its children over the days since the first (array-growth's age pace). The last case overstates a parent
 * that stopped growing long ago: the projection errs towards keeping children referenced.
 */
export function paceOf(
  n: number,
  firstS: number | null,
  lastS: number | null,
  now: number,
  minAgeDays: number,
): number | null {
  if (firstS === null || lastS === null) return null;
  const age = (now - firstS * 1000) / DAY_MS;
  if (age < minAgeDays || age <= 0) return null;
  if ((lastS - firstS) / DAY_S < minAgeDays) return 0;
  return Math.round((n / age) * 1000) / 1000;
}

const DAY_S = 86_400;

/** The average of a sum over a count, rounded; null when nothing was summed. */
const average = (sum: number, count: number): number | null =>
  count > 0 && Number.isFinite(sum) && sum > 0 ? Math.round(sum / count) : null;

/**
 * The children of up to `sampleParents` parents: their keys ($sample where the server has it, else the first ones),
 * then one `$group` of the children by key with the first and last child's `_id` (their ObjectId times date the
 * parent's pace); with `$bsonSize`, the parents' and children's sizes too (collection stats otherwise).
 */
async function measure(
  ctx: DatabaseContext,
  p: PairCandidate,
  o: EmbedReferenceOptions,
  now: number,
): Promise<MeasuredPair['measured']> {
  const sample = ctx.server.capabilities.sample.supported === true;
  const sized = ctx.server.capabilities.bsonSize.supported === true;
  const pick: Doc[] = sample ? [{ $sample: { size: o.sampleParents } }] : [{ $limit: o.sampleParents }];
  // an inclusion, not `k: "$field"`: FerretDB 1.24 reads a "$field" string in $project as a literal
  const project: Doc = { [p.localField]: 1, ...(sized ? { b: { $bsonSize: '$$ROOT' } } : {}) };
  const opts = { maxTimeMS: ctx.maxTimeMS };
  const parents = await commandCursor(
    ctx.adapter,
    ctx.db,
    { aggregate: p.parent, pipeline: [...pick, { $project: project }], cursor: {}, ...opts },
    { limit: o.sampleParents, ...opts },
  );
  const read = parents.filter((d) => usableKey(valueAt(d, p.localField)));
  const keys = read.map((d) => valueAt(d, p.localField));
  if (keys.length === 0) return { parents: 0, children: [], perDay: [], parentBytes: null, childBytes: null };
  const group: Doc = {
    _id: `$${p.foreignField}`,
    n: { $sum: 1 },
    first: { $min: '$_id' },
    last: { $max: '$_id' },
    ...(sized ? { bytes: { $sum: { $bsonSize: '$$ROOT' } } } : {}),
  };
  const groupBy = (g: Doc): Promise<Doc[]> =>
    commandCursor(
      ctx.adapter,
      ctx.db,
      {
        aggregate: p.child,
        pipeline: [{ $match: { [p.foreignField]: { $in: keys } } }, { $group: g }],
        cursor: {},
        ...opts,
      },
      opts,
    );
  let groups: Doc[];
  try {
    groups = await groupBy(group);
  } catch (err) {
    // FerretDB 1.24 has no $min/$max accumulator: count alone, and no pace
    groups = await groupBy({ _id: group._id, n: group.n });
    ctx.note(
      `${RULE}: the children of ${p.parent} in ${p.child} were counted without their dates ` +
        `(${describeServerError(err)}): no pace, the projection is the count now`,
      { level: 'info', target: { db: ctx.db, collection: p.parent } },
    );
  }
  const children: number[] = [];
  const perDay: (number | null)[] = [];
  let bytes = 0;
  for (const g of groups) {
    const n = Number(g.n);
    children.push(n);
    bytes += Number(g.bytes ?? 0);
    perDay.push(paceOf(n, objectIdSeconds(g.first), objectIdSeconds(g.last), now, o.minAgeDays));
  }
  // parents with no child are parents too: they read an empty array
  for (let i = groups.length; i < keys.length; i++) {
    children.push(0);
    perDay.push(null);
  }
  const total = children.reduce((a, b) => a + b, 0);
  const parentBytes = average(
    read.reduce((a, d) => a + Number(d.b ?? 0), 0),
    read.length,
  );
  return { parents: keys.length, children, perDay, parentBytes, childBytes: average(bytes, total) };
}

export const embedPairs = defineCollector<PairsData, 'database'>({
  id: 'embed-reference/pairs',
  version: 2,
  scope: 'database',
  description:
    'collection pairs read together in the shared workload (query-indexes/workload: no read of its own), and per ' +
    'pair the children of a bounded set of parents (1 aggregate on the parent, 1 $group on the child)',
  schema: PAIRS_SCHEMA,
  async collect(ctx) {
    const o = optionsOf<EmbedReferenceOptions>(ctx, RULE, defaults());
    const d = dataOf(queryWorkload, ctx);
    if (!d) {
      ctx.note(`${RULE}: no workload was read for ${ctx.db} (see the workload's note): no pair judged`, {
        level: 'info',
      });
      return null;
    }
    const found = workloadPairs(d, o.pairRateFactor);
    const names = new Set(ctx.collections.filter((c) => c.type === 'collection').map((c) => c.name));
    const now = Date.now();
    const pairs: MeasuredPair[] = [];
    for (const p of found.pairs) {
      if (!names.has(p.parent) || !names.has(p.child)) continue;
      if (pairs.length >= MAX_PAIRS) {
        ctx.note(
          `${RULE}: more than ${MAX_PAIRS} collection pairs are read together in ${ctx.db}: the rest not judged`,
        );
        break;
      }
      let measured: MeasuredPair['measured'] = null;
      if (p.joinCalls >= o.minJoinCalls) {
        try {
          measured = await measure(ctx, p, o, now);
        } catch (err) {
          ctx.note(
            `${RULE}: the children per parent of ${p.parent} → ${p.child} could not be counted ` +
              `(${describeServerError(err)})`,
            { target: { db: ctx.db, collection: p.parent } },
          );
        }
      }
      pairs.push({ ...p, measured });
    }
    return {
      sources: d ? [...d.sources].sort() : [],
      records: d?.records ?? 0,
      pairs,
      collections: found.collections.filter((c) => names.has(c.name)),
    };
  },
});

/** The schema's defaults, for a collector run without the rule's resolved options. */
export function defaults(): EmbedReferenceOptions {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(embedReferenceOptionsSchema.properties)) out[k] = v.default;
  return out as EmbedReferenceOptions;
}
