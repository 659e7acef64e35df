import { describeServerError } from '../adapters/types';
import { type CollectionContext, defineCollector } from '../core/collector';
import type { FromSchema } from '../core/from-schema';
import { DOC_PROFILE_SCHEMA } from '../core/snapshot-schema';
import { foldDocProfile, PathFolder } from './fold';
import { findOutliers } from './sample';

export const OUTLIER_DEFAULTS = {
  /**
   * The pass scans the whole collection once (one aggregate with maxTimeMS; a `$facet` keeps the top few by `$bsonSize`
   * and by the longest top-level array). Our choice of bound: 1,000,000 documents or 1 GiB of data, the size up to
   * which a scan can finish within the 10 s maxTimeMS default on MongoDB; above either, or past maxTimeMS, the pass is
   * skipped (or failed) with a note. Where `$collStats` gives no size, the document bound alone applies.
   */
  maxDocs: 1_000_000,
  maxBytes: 1024 * 1024 * 1024,
  /** Documents kept by each measure: the 5 largest and the 5 with the longest top-level array. */
  top: 5,
};

/** What the pass for the documents the sample may have missed found, or why it did not run. */
export const OUTLIER_SEARCH_SCHEMA = {
  type: 'object',
  required: ['status', 'reason', 'docs'],
  additionalProperties: false,
  properties: {
    /**
     * `done`: the pass ran (docs holds what it found beyond the sample, possibly nothing); `not-needed`: the sample
     * is the whole collection; `skipped`: the collection is above the pass's cost bound; `unsupported`: the server
     * lacks `$bsonSize`/`$size`; `failed`: the pass errored. `reason` says why for every status but
     * `done`/`not-needed`.
     */
    status: { enum: ['done', 'not-needed', 'skipped', 'unsupported', 'failed'] },
    reason: { type: ['string', 'null'] },
    /** The largest documents and the documents with the longest arrays, reduced on the server to top-level shapes. */
    docs: { type: 'array', items: DOC_PROFILE_SCHEMA },
  },
} as const;
export type OutlierSearch = FromSchema<typeof OUTLIER_SEARCH_SCHEMA>;

export type OutlierBounds = typeof OUTLIER_DEFAULTS;

/** Why the pass cannot run here (a status and its reason), or null when it can. */
function notRun(ctx: CollectionContext, bounds: OutlierBounds): Omit<OutlierSearch, 'docs'> | null {
  const c = ctx.collection;
  if (c.sample.complete) return { status: 'not-needed', reason: null };
  const caps = ctx.server.capabilities;
  const lacking = (['bsonSize', 'arraySize'] as const).filter((k) => caps[k].supported !== true);
  if (lacking.length) {
    const named = lacking.map((k) => `${k === 'bsonSize' ? '$bsonSize' : '$size'} (${caps[k].evidence})`).join(' and ');
    return { status: 'unsupported', reason: `the server lacks ${named}` };
  }
  const count = c.stats?.count ?? null;
  const bytes = c.stats?.sizeBytes ?? 0;
  const { maxDocs, maxBytes } = bounds;
  if (count === null) {
    return {
      status: 'skipped',
      reason: 'the collection could not be counted, so the cost of a pass over it is unknown',
    };
  }
  if (count > maxDocs)
    return { status: 'skipped', reason: `${count} documents is above the pass's bound of ${maxDocs}` };
  if (bytes > maxBytes) {
    const [mib, bound] = [Math.round(bytes / 1048576), Math.round(maxBytes / 1048576)];
    return { status: 'skipped', reason: `${mib} MiB of data is above the pass's bound of ${bound} MiB` };
  }
  return null;
}

/** The pass itself: one aggregate; a failure is a status, never a throw. Found documents are folded as the sample's. */
async function search(ctx: CollectionContext, bounds: OutlierBounds): Promise<OutlierSearch> {
  const c = ctx.collection;
  const plan = { top: bounds.top, maxTimeMS: ctx.maxTimeMS, sampledIds: ctx.ids, timeField: c.sample.timeSource };
  try {
    const docs = await findOutliers(ctx.adapter, c.db, c.name, plan);
    const folder = new PathFolder(c.sample.dynamicKeys);
    return { status: 'done', reason: null, docs: folder.empty ? docs : docs.map((d) => foldDocProfile(d, folder)) };
  } catch (err) {
    return { status: 'failed', reason: `the pass failed: ${describeServerError(err)}`, docs: [] };
  }
}

/**
 * The server-side pass for the largest documents and longest top-level arrays the sample may have missed, read by
 * array-growth and document-size: not needed when the sample is the whole collection; unsupported without $bsonSize
 * and $size; skipped above the cost bound (OUTLIER_DEFAULTS); one aggregate otherwise (1 round trip per sampled
 * collection). Documents come back reduced on the server to top-level shapes, dated by the sample's time field.
 * `outlierSearchWithin(bounds)` is the same collector with other bounds (tests).
 */
export function outlierSearchWithin(bounds: OutlierBounds) {
  return defineCollector<OutlierSearch, 'collection'>({
    id: 'outliers',
    version: 1,
    scope: 'collection',
    description:
      'the largest documents and longest top-level arrays beyond the sample ' +
      '(1 aggregate per sampled collection within the bound; none for a whole read)',
    appliesTo: (c) => c.type === 'collection' && c.sample.size > 0,
    schema: OUTLIER_SEARCH_SCHEMA,
    async collect(ctx) {
      const skipped = notRun(ctx, bounds);
      const found = skipped ? { ...skipped, docs: [] } : await search(ctx, bounds);
      if (found.status === 'skipped' || found.status === 'failed') {
        const why = found.reason ?? '';
        ctx.note(
          `the largest documents and longest arrays were not searched for beyond the sample: ${why}; the ` +
            `largest sampled ones are lower bounds`,
        );
      }
      return found;
    },
  });
}

export const outlierSearch = outlierSearchWithin(OUTLIER_DEFAULTS);
