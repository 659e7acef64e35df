import { commandCursor } from '../../src/lib/cursor';
import type { Adapter, Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import { type IdShape, idShape } from '../../src/lib/id-shape';
import { defineCollector } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';
import { ID_PROFILE_SCHEMA, type IdProfile, profileIds } from './id-profile';

/** The most `_id`s read in natural order per collection (the most a sample holds). */
export const MAX_NATURAL_IDS = 10_000;

/** The `_id`s of a collection as read in natural order, reduced to ranks. */
export const NATURAL_ORDER_SCHEMA = {
  type: 'object',
  required: ['ranks', 'source'],
  additionalProperties: false,
  properties: {
    /**
     * For each position read in natural order, the rank of its `_id` among those read (ties share the lower rank).
     * Spearman's ρ of this against 0..n-1 is the monotonicity. Whole numbers only (below the count read): ranks,
     * never values.
     */
    ranks: {
      type: 'array',
      maxItems: MAX_NATURAL_IDS,
      items: { type: 'integer', minimum: 0, maximum: MAX_NATURAL_IDS - 1 },
    },
    /** `natural-scan` when the `_id`s were read; `none` when the read failed (a note says why). */
    source: { enum: ['natural-scan', 'none'] },
  },
} as const;
export type NaturalOrder = FromSchema<typeof NATURAL_ORDER_SCHEMA>;

function compareShapes(a: IdShape, b: IdShape): number {
  if (a.order[0] !== b.order[0]) return a.order[0] - b.order[0];
  const x = a.order[1];
  const y = b.order[1];
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
}

/**
 * For each position in natural order, the rank of its _id among them in MongoDB's sort order. A collection's _ids are
 * unique, so every rank is a different whole number below the count read.
 */
export function naturalOrderRanks(idsInNaturalOrder: readonly unknown[]): number[] {
  const shapes = idsInNaturalOrder.map(idShape);
  const idx = shapes.map((_, i) => i).sort((i, j) => compareShapes(shapes[i] as IdShape, shapes[j] as IdShape));
  const r = new Array<number>(shapes.length);
  idx.forEach((pos, rank) => {
    r[pos] = rank;
  });
  return r;
}

/** One find of `_id`s in natural order; where the server refuses a `$natural` hint, its default order (its storage
 * order). */
async function readNaturalIds(
  adapter: Adapter,
  db: string,
  coll: string,
  limit: number,
  maxTimeMS: number,
): Promise<unknown[]> {
  // singleBatch: the server closes the cursor with its reply (no killCursors round trip).
  const cmd = { find: coll, filter: {}, projection: { _id: 1 }, limit, batchSize: limit, singleBatch: true, maxTimeMS };
  let docs: Doc[];
  try {
    docs = await commandCursor(adapter, db, { ...cmd, hint: { $natural: 1 } }, { limit, maxTimeMS });
  } catch {
    docs = await commandCursor(adapter, db, cmd, { limit, maxTimeMS });
  }
  return docs.map((d) => d._id);
}

/**
 * id-pattern's own read: as many `_id`s as the sample holds (at most 10,000), in natural order, reduced to their ranks
 * in process; the `_id`s themselves are dropped when it returns. Ordinary, non-clustered collections with a sample
 * only: a clustered collection stores its documents in `_id` order, so its natural order says nothing about
 * insertion order. Round trips: 1 per such collection (2 where the server refuses the `$natural` hint).
 */
export const naturalOrder = defineCollector<NaturalOrder, 'collection'>({
  id: 'id-pattern',
  version: 1,
  scope: 'collection',
  description:
    '_ids in natural order (1 find with an _id projection and a $natural hint per sampled non-clustered ' +
    'collection; none where the core read them already), kept as ranks',
  appliesTo: (c) => c.type === 'collection' && !c.clustered && c.sample.size > 0,
  schema: NATURAL_ORDER_SCHEMA,
  async collect(ctx) {
    const { adapter, collection: c, maxTimeMS } = ctx;
    const limit = Math.min(ctx.ids.length, MAX_NATURAL_IDS);
    if (limit === 0) return null;
    // The core already read them (a whole read, or the _id scan of a server without $sample): no read of our own.
    if (ctx.naturalIds && ctx.naturalIds.length >= limit)
      return { ranks: naturalOrderRanks(ctx.naturalIds.slice(0, limit)), source: 'natural-scan' };
    try {
      return {
        ranks: naturalOrderRanks(await readNaturalIds(adapter, c.db, c.name, limit, maxTimeMS)),
        source: 'natural-scan',
      };
    } catch (err) {
      ctx.note(
        `id-pattern: the _ids could not be read in natural order (${describeServerError(err)}), so _id ` +
          `order is judged from their leading bytes alone; collect again to judge it against insertion order`,
      );
      return { ranks: [], source: 'none' };
    }
  },
});

/**
 * The `_id` profile of the sample (types, sizes, UUID versions, leading-byte entropy), computed in process from the
 * `_id`s the core read with the sample: no command. Ordinary collections with a sample, clustered ones included (their
 * `_id` type and size decide the advice against clustering too). Only id-pattern reads it, so only its runs pay for it.
 */
export const idProfile = defineCollector<IdProfile, 'collection'>({
  id: 'id-pattern/ids',
  version: 1,
  scope: 'collection',
  description: "the sample's _id types, sizes, UUID versions and leading-byte entropy (in process, no command)",
  appliesTo: (c) => c.type === 'collection' && c.sample.size > 0,
  schema: ID_PROFILE_SCHEMA,
  collect(ctx) {
    return Promise.resolve(ctx.ids.length === 0 ? null : profileIds(ctx.ids));
  },
});
