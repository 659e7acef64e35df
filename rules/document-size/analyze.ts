import type { CollectionSnapshot, DocProfile } from '../../src/core/types';
import type { DocumentSizeOptions } from './options';

/**
 * Where the largest document was seen: in the sample, in a read of every document (`whole`), or by collect's
 * server-side pass for the largest documents (`outlierPass`, beyond the sample).
 */
export type LargestFrom = 'sample' | 'whole' | 'outlierPass';

export interface DocumentSizeStats {
  largest: DocProfile;
  largestFrom: LargestFrom;
  /** The documents counted against the lines: the sample (every document when it was read whole). */
  sampleSize: number;
  overInfo: number;
  overWarn: number;
  overError: number;
  /** Documents the outlier pass found beyond the sample over each line (0 when it did not run). */
  beyond: { overInfo: number; overWarn: number; overError: number };
  /** The largest document's biggest field when it is an array holding at least `arrayShare` of it. */
  dominantArray: { path: string; bytes: number; share: number; length: number } | null;
  /** The BSON type most seen at the largest field's path in the sample, when the census has it. */
  largestFieldType: string | null;
}

function largestOf(docs: readonly DocProfile[]): DocProfile | null {
  let largest: DocProfile | null = null;
  for (const d of docs) if (!largest || d.bytes > largest.bytes) largest = d;
  return largest;
}

/**
 * Size facts of the sampled documents and of the outliers collect's server-side pass found beyond them (never counted
 * as sampled: shares stay over the sample); null when no document passes the smallest threshold.
 */
export function documentSizeStats(
  c: CollectionSnapshot,
  outliers: readonly DocProfile[],
  o: DocumentSizeOptions,
): DocumentSizeStats | null {
  const docs = c.sample.docs;
  const inSample = largestOf(docs);
  const beyondSample = largestOf(outliers);
  const fromPass = beyondSample !== null && (inSample === null || beyondSample.bytes > inSample.bytes);
  const largest = fromPass ? beyondSample : inSample;
  if (!largest || largest.bytes <= o.infoBytes) return null;
  const errorBytes = o.errorShare * o.maxDocBytes;
  const top = largest.largestFields[0];
  let dominantArray: DocumentSizeStats['dominantArray'] = null;
  if (top) {
    const arr = largest.arrays.find((a) => a.path === top.path);
    const share = largest.bytes > 0 ? top.bytes / largest.bytes : 0;
    if (arr && share >= o.arrayShare)
      dominantArray = { path: top.path, bytes: top.bytes, share, length: arr.maxLength };
  }
  // The server's own type for a document it measured (the census may never have seen that field), else the census's.
  let largestFieldType: string | null = top?.type ?? null;
  const census = top ? c.sample.fields[top.path] : undefined;
  if (census && largestFieldType === null) {
    const best = Object.entries(census.types).sort((a, b) => b[1] - a[1])[0];
    largestFieldType = best ? best[0] : null;
  }
  const over = (list: readonly DocProfile[]) => ({
    overInfo: list.filter((d) => d.bytes > o.infoBytes).length,
    overWarn: list.filter((d) => d.bytes > o.warnBytes).length,
    overError: list.filter((d) => d.bytes >= errorBytes).length,
  });
  return {
    largest,
    largestFrom: fromPass ? 'outlierPass' : c.sample.complete ? 'whole' : 'sample',
    sampleSize: docs.length,
    ...over(docs),
    beyond: over(outliers),
    dominantArray,
    largestFieldType,
  };
}
