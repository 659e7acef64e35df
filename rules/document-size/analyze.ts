import type { CollectionSnapshot, DocProfile } from '../../src/core/types';
import type { DocumentSizeOptions } from './index';

export interface DocumentSizeStats {
  largest: DocProfile;
  sampleSize: number;
  overInfo: number;
  overWarn: number;
  overError: number;
  /** The largest document's biggest field when it is an array holding at least `arrayShare` of it. */
  dominantArray: { path: string; bytes: number; share: number; length: number } | null;
  /** The BSON type most seen at the largest field's path in the sample, when the census has it. */
  largestFieldType: string | null;
}

/** Size facts of the sampled documents; null when no sampled document passes the smallest threshold. */
export function documentSizeStats(c: CollectionSnapshot, o: DocumentSizeOptions): DocumentSizeStats | null {
  const docs = c.sample.docs;
  if (docs.length === 0) return null;
  let largest = docs[0] as DocProfile;
  for (const d of docs) if (d.bytes > largest.bytes) largest = d;
  if (largest.bytes <= o.infoBytes) return null;
  const errorBytes = o.errorShare * o.maxDocBytes;
  const top = largest.largestFields[0];
  let dominantArray: DocumentSizeStats['dominantArray'] = null;
  if (top) {
    const arr = largest.arrays.find((a) => a.path === top.path);
    const share = largest.bytes > 0 ? top.bytes / largest.bytes : 0;
    if (arr && share >= o.arrayShare) dominantArray = { path: top.path, bytes: top.bytes, share, length: arr.maxLength };
  }
  let largestFieldType: string | null = null;
  const census = top ? c.sample.fields[top.path] : undefined;
  if (census) {
    const best = Object.entries(census.types).sort((a, b) => b[1] - a[1])[0];
    largestFieldType = best ? best[0] : null;
  }
  return {
    largest,
    sampleSize: docs.length,
    overInfo: docs.filter((d) => d.bytes > o.infoBytes).length,
    overWarn: docs.filter((d) => d.bytes > o.warnBytes).length,
    overError: docs.filter((d) => d.bytes >= errorBytes).length,
    dominantArray,
    largestFieldType,
  };
}
