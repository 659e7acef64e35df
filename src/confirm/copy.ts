/**
 * Copies into scratch, split by the documents' real BSON sizes: one plan for every experiment that inserts many
 * documents (`Scratch.copy`), whatever the collection's average says (a server may report an average of 0, and a few
 * large documents sit far above any average).
 */
import type { Doc } from '../adapters/types';
import { indexKeyBytes, isDate } from '../lib/bson-size';
import { Profiler } from '../collect/profile';

/** What one write command may carry, as the server's `hello` reports it. */
export interface CopyLimits {
  /** The largest document the server stores, and the largest command body it reads (bytes). */
  maxBsonObjectSize: number;
  /** The largest wire message it reads (bytes). */
  maxMessageSizeBytes: number;
  /** The most documents one insert command may carry. */
  maxWriteBatchSize: number;
}

/**
 * MongoDB's own values, for a server whose `hello` does not say: the hello command's reference
 * (https://www.mongodb.com/docs/manual/reference/command/hello/: maxBsonObjectSize 16777216, maxMessageSizeBytes
 * 48000000, maxWriteBatchSize 100,000 "since 3.6"; https://jira.mongodb.org/browse/DOCS-11045: drivers split bulk
 * writes by all three).
 */
export const MONGODB_LIMITS: CopyLimits = {
  maxBsonObjectSize: 16 * 1024 * 1024,
  maxMessageSizeBytes: 48_000_000,
  maxWriteBatchSize: 100_000,
};

/**
 * Bytes kept aside in every command of several documents for what is not a document: the command name and the
 * collection's (at most 255 bytes), `ordered`, and what the host adds (`$db`, `lsid`, `$clusterTime`, `txnNumber`).
 * A document alone may go up to maxBsonObjectSize: the server reads a command up to 16 KiB past it
 * (BSONObjMaxInternalSize, "the 16mb + 16kb internal maximum size" of jstests' allow_documents_greater_than_max
 * test), which is room for the same envelope.
 */
export const ENVELOPE_BYTES = 16 * 1024;

const positive = (v: unknown): number | null => {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
};

/** The limits a `hello` reply states; MongoDB's documented values for any it leaves out (or reports as 0). */
export function limitsFromHello(hello: Doc | null): CopyLimits {
  return {
    maxBsonObjectSize: positive(hello?.maxBsonObjectSize) ?? MONGODB_LIMITS.maxBsonObjectSize,
    maxMessageSizeBytes: positive(hello?.maxMessageSizeBytes) ?? MONGODB_LIMITS.maxMessageSizeBytes,
    maxWriteBatchSize: positive(hello?.maxWriteBatchSize) ?? MONGODB_LIMITS.maxWriteBatchSize,
  };
}

export interface CopyPlan {
  /** Positions of the documents, one list per insert command, in the documents' order. */
  batches: number[][];
  /** Positions of the documents over maxBsonObjectSize: not sent (the server would refuse them). */
  tooLarge: number[];
}

/**
 * Splits documents of the given BSON sizes into insert commands: each carries at most maxWriteBatchSize documents,
 * and the documents of a command of several, with their array keys ("0", "1"…), stay under the smaller of
 * maxBsonObjectSize and maxMessageSizeBytes less ENVELOPE_BYTES. A document over maxBsonObjectSize is left out; one
 * too large to share a command goes alone.
 */
export function planCopyBatches(sizes: readonly number[], limits: CopyLimits = MONGODB_LIMITS): CopyPlan {
  const room = Math.min(limits.maxBsonObjectSize, limits.maxMessageSizeBytes) - ENVELOPE_BYTES;
  const most = Math.max(1, limits.maxWriteBatchSize);
  const batches: number[][] = [];
  const tooLarge: number[] = [];
  let current: number[] = [];
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = sizes[i] as number;
    if (size > limits.maxBsonObjectSize) {
      tooLarge.push(i);
      continue;
    }
    // Each element of `documents` costs its type byte and its key ("7\0") besides the document.
    const cost = size + 1 + indexKeyBytes(current.length);
    if (current.length > 0 && (current.length >= most || bytes + cost > room)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    bytes += size + 1 + indexKeyBytes(current.length);
    current.push(i);
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}

/** Each document's BSON size, counted in process (the same count as the sample's: src/collect/profile.ts). */
export function bsonSizes(docs: readonly Doc[]): number[] {
  const profiler = new Profiler(null);
  return docs.map((d) => profiler.profile(d).bytes);
}

/** A Long's, Int32's or Double's value as a number (Long by its toNumber, the others by valueOf). */
function numberOf(v: object): number {
  const n = v as { toNumber?: () => number; valueOf: () => unknown };
  return typeof n.toNumber === 'function' ? n.toNumber() : Number(n.valueOf());
}

/**
 * A key for an `_id` that two equal `_id`s share whatever object holds them: the BSON type family and the value
 * (numbers by value, as MongoDB's unique index compares them). Never shown.
 */
export function idKey(v: unknown): string {
  if (v === null || typeof v !== 'object') return `${typeof v === 'bigint' ? 'number' : typeof v}:${String(v)}`;
  if (isDate(v)) return `date:${v.getTime()}`;
  if (Array.isArray(v)) return `[${v.map(idKey).join(',')}]`;
  const tag = (v as { _bsontype?: unknown })._bsontype;
  if (tag === 'Long' || tag === 'Int32' || tag === 'Double') return `number:${numberOf(v)}`;
  if (typeof tag === 'string') return `${tag}:${JSON.stringify(v)}`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${idKey(x)}`)
    .join(',')}}`;
}

/**
 * The documents with each `_id` once, first seen kept: `$sample` "may output the same document more than once in its
 * result set" (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sample/), and a copy holding one
 * twice would fail on the duplicate key. Documents without an `_id` are all kept.
 */
export function dropRepeatedIds(docs: readonly Doc[]): { docs: Doc[]; repeated: number } {
  const seen = new Set<string>();
  const out: Doc[] = [];
  for (const d of docs) {
    if (d._id !== undefined) {
      const key = idKey(d._id);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(d);
  }
  return { docs: out, repeated: docs.length - out.length };
}
