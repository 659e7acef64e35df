import { commandCursor } from '../adapters/cursor';
import type { Adapter, Doc } from '../adapters/types';
import type { DocProfile, ServerInfo } from '../core/types';
import { ELEMENT_KIND } from '../core/types';
import { indexKeyBytes } from './bson-size';

function arrayKeyBytes(n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) total += 1 + indexKeyBytes(i);
  return total;
}

export interface SamplePlan {
  requested: number;
  maxTimeMS: number;
  /** Documents above this many bytes are measured on the server and not pulled whole. */
  largeDocBytes: number;
}

export interface RawSample {
  method: '$sample' | 'natural-order';
  random: boolean;
  /** Documents small enough to pull whole. */
  docs: Doc[];
  /** Large documents, already reduced on the server to their _id, size and top-level array shapes. */
  large: DocProfile[];
  largeIds: unknown[];
}

const SIZE_FIELD = '__advisorBytes';
const DOC_FIELD = '__advisorDoc';
const TOP_FIELD = '__advisorTop';

/**
 * $sample (random) where the server has it, else the first documents in natural order (marked not random).
 * Where $bsonSize works, documents over `largeDocBytes` come back as their top-level field shapes only:
 * _id, total size, and for each array its length and bytes, measured by the server.
 */
// batchSize = the sample size + 1: one reply carries the whole sample (up to 16 MiB) instead of many getMores, and a
// batch larger than the result tells the server the cursor is done (an exactly full batch leaves it open: a getMore).
export async function readSample(adapter: Adapter, server: ServerInfo, db: string, coll: string, plan: SamplePlan): Promise<RawSample> {
  const caps = server.capabilities;
  const random = caps.sample.supported === true;
  const head: Doc[] = random ? [{ $sample: { size: plan.requested } }] : [{ $limit: plan.requested }];
  if (caps.bsonSize.supported === true && caps.arraySize.supported === true) {
    const isLarge = { $gt: [{ $bsonSize: '$$ROOT' }, plan.largeDocBytes] };
    const pipeline = [
      ...head,
      {
        $project: {
          _id: 1,
          [SIZE_FIELD]: { $bsonSize: '$$ROOT' },
          [DOC_FIELD]: { $cond: [isLarge, '$$REMOVE', '$$ROOT'] },
          [TOP_FIELD]: {
            $cond: [
              isLarge,
              {
                $map: {
                  input: { $objectToArray: '$$ROOT' },
                  as: 'f',
                  in: {
                    k: '$$f.k',
                    t: { $type: '$$f.v' },
                    n: { $cond: [{ $isArray: '$$f.v' }, { $size: '$$f.v' }, -1] },
                    b: { $bsonSize: { $arrayToObject: [[{ k: 'v', v: '$$f.v' }]] } },
                    e: { $cond: [{ $isArray: '$$f.v' }, { $type: { $arrayElemAt: ['$$f.v', 0] } }, null] },
                  },
                },
              },
              '$$REMOVE',
            ],
          },
        },
      },
    ];
    const rows = await commandCursor(adapter, db, { aggregate: coll, pipeline, cursor: { batchSize: plan.requested + 1 }, maxTimeMS: plan.maxTimeMS, allowDiskUse: false }, { maxTimeMS: plan.maxTimeMS });
    const docs: Doc[] = [];
    const large: DocProfile[] = [];
    const largeIds: unknown[] = [];
    for (const r of rows) {
      const d = r[DOC_FIELD] as Doc | undefined;
      if (d) docs.push(d);
      else {
        large.push(reduceLarge(r));
        largeIds.push(r._id);
      }
    }
    return { method: random ? '$sample' : 'natural-order', random, docs, large, largeIds };
  }
  const docs = random
    ? await commandCursor(adapter, db, { aggregate: coll, pipeline: head, cursor: { batchSize: plan.requested + 1 }, maxTimeMS: plan.maxTimeMS }, { maxTimeMS: plan.maxTimeMS })
    : await commandCursor(adapter, db, { find: coll, filter: {}, limit: plan.requested, batchSize: plan.requested, singleBatch: true, maxTimeMS: plan.maxTimeMS }, { limit: plan.requested, maxTimeMS: plan.maxTimeMS });
  return { method: random ? '$sample' : 'natural-order', random, docs, large: [], largeIds: [] };
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

function reduceLarge(r: Doc): DocProfile {
  const top = (r[TOP_FIELD] as { k: string; t: string; n: number; b: number; e: string | null }[] | undefined) ?? [];
  // $bsonSize of {v: value} is the value's bytes plus 8 (length, type byte, key "v", terminator).
  const fields = top.map((f) => ({ path: f.k, bytes: Number(f.b) - 8 + 2 + f.k.length }));
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
          path: f.k,
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
