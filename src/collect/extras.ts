import type { Adapter, Doc } from '../adapters/types';
import type { CollectPart, CollectionSnapshot, ServerInfo, Snapshot } from '../core/types';
import type { CollectOptions } from './index';
import { collectClusteredExplain } from './clustered-explain';
import { collectCompressibility, noteCompressionSupport } from './compressibility';
import { collectDeployment } from './deployment';
import { collectIndexUsageMembers } from './index-usage-members';
import { collectStringCardinality } from './validator-census';
import { collectValidatorDryRun } from './validator-dry-run';

export interface CollectionCollectorContext {
  adapter: Adapter;
  server: ServerInfo;
  collection: CollectionSnapshot;
  /** The sampled documents as read (for in-process measurements). Never store them in the snapshot. */
  rawDocs: readonly Doc[];
  maxTimeMS: number;
  options: CollectOptions;
}

export interface SnapshotCollectorContext {
  adapter: Adapter;
  snapshot: Snapshot;
  maxTimeMS: number;
  options: CollectOptions;
  /** Database names the core collect already read with listDatabases, when it did (saves a second call). */
  databaseNames?: string[];
  /** The serverStatus reply the core collect's probe read; null when the server refused it. Not stored. */
  serverStatus?: Doc | null;
  /** listCollections replies the core collect already read, by database (saves a second call per database). */
  listedCollections?: Record<string, { name: string; type: string }[]>;
}

/**
 * Extra read-only collectors, one file each under src/collect/, that fill optional snapshot fields a rule
 * needs. Each runs after the core collection of a collection (or of the whole snapshot), must not throw
 * (record a note instead) and must count its round trips against the budget in bench/README.md.
 */
export type CollectionCollector = (ctx: CollectionCollectorContext) => Promise<void>;
export type SnapshotCollector = (ctx: SnapshotCollectorContext) => Promise<void>;

/** Each extra collector with the part of the plan it serves: it runs only when an enabled rule needs that part. */
export const collectionCollectors: [CollectPart, CollectionCollector][] = [
  ['clusteredExplain', collectClusteredExplain],
  ['compressibility', collectCompressibility],
  ['members', collectIndexUsageMembers],
  ['validatorCensus', collectStringCardinality],
  ['validatorCensus', collectValidatorDryRun],
];
export const snapshotCollectors: [CollectPart, SnapshotCollector][] = [
  ['deployment', collectDeployment],
  ['compressibility', noteCompressionSupport],
];
