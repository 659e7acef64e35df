/**
 * Pure: one pair of collections read together, judged from the workload's counts and the children measured per
 * parent. The decision here is what the figures alone allow: a pair whose children are unbounded (now or at the
 * projected growth) stays referenced; a bounded one is an embed candidate, which the confirmation weighs by the
 * workload's own mix on scratch. Nothing here reads a value.
 */
import { percentile } from '../../src/core/stats';
import type { CollectionSnapshot } from '../../src/core/types';
import type { MeasuredPair, PairsData } from './collect';
import type { CollectionOps } from './pairs';
import type { EmbedReferenceOptions } from './options';

export type Decision = 'embed' | 'extendedReference' | 'keepReferenced';

export interface PairJudgement {
  pair: MeasuredPair;
  decision: Decision;
  /**
   * Why it stays referenced: maxChildren children or more (array-growth's infoLength line), or a parent past
   * maxEmbeddedBytes (null: bounded).
   */
  unbounded: 'children' | 'bytes' | null;
  parentsRead: number;
  median: number;
  p95: number;
  max: number;
  /** Most children per day of one parent, and the most any parent holds after projectionDays at its own pace. */
  maxPerDay: number | null;
  projectedMax: number;
  childBytes: number;
  parentBytes: number;
  /** The largest parent with its children embedded at the projected growth (whole children), bytes. */
  embeddedBytes: number;
  child: CollectionOps;
  parent: CollectionOps;
  /** Reads of the child alone (not the join's), writes the child receives. */
  childAloneReads: number;
  childWrites: number;
}

/** A collection the workload neither reads nor writes (exported for the tests' fixtures). */
export const none = (name: string): CollectionOps => ({
  name,
  reads: 0,
  readsByKey: 0,
  readsById: 0,
  inserts: 0,
  updates: 0,
  updatesById: 0,
  deletes: 0,
});

/** The judgement of one pair, or null when it is not judged (too few joins, children not counted). */
export function judgePair(
  pair: MeasuredPair,
  data: PairsData,
  collections: ReadonlyMap<string, CollectionSnapshot>,
  o: EmbedReferenceOptions,
): PairJudgement | null {
  const m = pair.measured;
  if (pair.joinCalls < o.minJoinCalls || !m || m.parents === 0) return null;
  const counts = m.children;
  const max = Math.max(0, ...counts);
  // the join found no child for any parent read: nothing to embed, nothing to say about the children
  if (max === 0) return null;
  let projectedMax = max;
  let maxPerDay: number | null = null;
  counts.forEach((n, i) => {
    const perDay = m.perDay[i];
    if (perDay === null || perDay === undefined) return;
    maxPerDay = Math.max(maxPerDay ?? 0, perDay);
    projectedMax = Math.max(projectedMax, Math.round(n + perDay * o.projectionDays));
  });
  // measured with $bsonSize where the server has it, else the collection stats' average
  const childBytes = m.childBytes ?? Math.round(collections.get(pair.child)?.stats?.avgObjSize ?? 0);
  const parentBytes = m.parentBytes ?? Math.round(collections.get(pair.parent)?.stats?.avgObjSize ?? 0);
  const embeddedBytes = parentBytes + projectedMax * childBytes;
  const unbounded = projectedMax >= o.maxChildren ? 'children' : embeddedBytes > o.maxEmbeddedBytes ? 'bytes' : null;
  const ops = new Map(data.collections.map((c) => [c.name, c]));
  const child = ops.get(pair.child) ?? none(pair.child);
  const parent = ops.get(pair.parent) ?? none(pair.parent);
  // the shapePair basis counts the join's own finds among the child's reads by key
  const joinOnChild = pair.basis === 'shapePair' ? pair.joinCalls : 0;
  return {
    pair,
    decision: unbounded ? 'keepReferenced' : pair.fields.length ? 'extendedReference' : 'embed',
    unbounded,
    parentsRead: m.parents,
    median: percentile(counts, 50),
    p95: percentile(counts, 95),
    max,
    maxPerDay,
    projectedMax,
    childBytes,
    parentBytes,
    embeddedBytes,
    child,
    parent,
    childAloneReads: Math.max(0, child.reads - joinOnChild),
    childWrites: child.inserts + child.updates + child.deletes,
  };
}
