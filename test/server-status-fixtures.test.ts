/*
 * serverStatus of a mongod and of a mongos (test/fixtures/mongodb/server-status-*.ts, each citing MongoDB's manual and
 * server source) through everything that reads it: the probe's topology, the data-handle figures, the load guard and
 * the notes of the rules that need the storage engine. Behind mongos the notes must say "this is a mongos" and never
 * blame the roles or the storage engine.
 */
import { describe, expect, it } from 'vitest';
import type { Doc } from '../src/adapters/types';
import { topologyFromStatus } from '../src/collect/probe';
import { type ServerStatusData, dataHandlesFrom, serverStatus } from '../src/collect/server-status';
import { loadFromServerStatus } from '../src/confirm/load';
import type { ServerInfo, Snapshot } from '../src/core/types';
import { compressibility } from '../rules/compression/collect';
import compressionRule from '../rules/compression/index';
import indexUsageRule from '../rules/index-usage/index';
import * as mongod from './fixtures/mongodb/server-status-mongod';
import * as mongos from './fixtures/mongodb/server-status-mongos';
import { collectionOf, snapshotOf, withData, withServer } from './support/fixtures';
import { runRuleWithNotes } from './support/rule-tester';

/** What the probe (src/collect/probe.ts) and the server-status collector keep of a reply. */
function read(reply: Doc): {
  server: Pick<ServerInfo, 'flavor' | 'storageEngine' | 'topology' | 'cacheBytes'>;
  data: ServerStatusData;
} {
  const storageEngine = ((reply.storageEngine as Doc | undefined)?.name as string | undefined) ?? null;
  const cache = ((reply.wiredTiger as Doc | undefined)?.cache as Doc | undefined)?.['maximum bytes configured'];
  const server = {
    flavor: 'mongodb' as const,
    storageEngine,
    topology: topologyFromStatus(reply),
    cacheBytes: cache === undefined ? null : Number(cache),
  };
  return { server, data: { storageEngine, cacheBytes: server.cacheBytes, ...dataHandlesFrom(reply, server) } };
}

/** A sharded collection as $collStats gives it through mongos: the shards' own creationString names the compressor. */
function behind(reply: Doc): Snapshot {
  const { server, data } = read(reply);
  const stats = {
    count: 2_000_000,
    sizeBytes: 2e9,
    avgObjSize: 1000,
    storageSizeBytes: 1e9,
    totalIndexSizeBytes: 2_097_152,
    nindexes: 1,
    blockCompressor: 'snappy',
  };
  const c = withData(
    collectionOf('events', { stats, indexes: [{ name: '_id_', key: { _id: 1 }, unique: true, sizeBytes: 2_097_152 }] }),
    compressibility,
    {
      docs: 1000,
      bytes: 1_000_000,
      serializer: 'bson',
      blockBytes: 32_768,
      codecs: { snappy: 500_000, zlib: 300_000, zstd: 280_000 },
    },
  );
  return withData(withServer(snapshotOf([c]), server), serverStatus, data);
}

describe('serverStatus of a mongod and a mongos (fixtures from MongoDB)', () => {
  it('tells the topology: a replica-set member by repl.setName, a mongos by its process', () => {
    expect(topologyFromStatus(mongod.reply)).toBe('replicaSet');
    expect(topologyFromStatus(mongos.reply)).toBe('sharded');
  });

  it('calls a mongod without repl standalone, and leaves other processes to hello', () => {
    const { repl: _repl, ...standalone } = mongod.reply;
    expect(topologyFromStatus(standalone)).toBe('standalone');
    // SecantusDB's serverStatus has no repl while its hello names a replica set; FerretDB's names no process.
    expect(topologyFromStatus({ ...standalone, process: 'secantus' })).toBe('unknown');
    const { process: _process, ...noProcess } = standalone;
    expect(topologyFromStatus(noProcess)).toBe('unknown');
  });

  it("reads a mongod's storage engine, cache and data handles", () => {
    const { server, data } = read(mongod.reply);
    expect(server).toMatchObject({ storageEngine: 'wiredTiger', cacheBytes: 1_073_741_824 });
    expect(data.dataHandles).toEqual({ active: 31, sweeps: 4321, closedBySweep: 120 });
  });

  it('says a mongos stores nothing, not that WiredTiger or the storage engine is missing', () => {
    const { server, data } = read(mongos.reply);
    expect(server).toMatchObject({ storageEngine: null, cacheBytes: null, topology: 'sharded' });
    expect(data.dataHandles).toBeNull();
    expect(data.dataHandlesReason).toContain('this is a mongos');
    expect(data.dataHandlesReason).toContain("each shard's mongod");
    expect(data.dataHandlesReason).not.toMatch(/names no storage engine|not WiredTiger/);
  });

  it('the load guard reads what each reports: a mongos has active connections and no cache', () => {
    expect(loadFromServerStatus(mongod.reply)).toEqual({ active: 2, queued: 0, dirty: 12_582_912 / 1_073_741_824 });
    expect(loadFromServerStatus(mongos.reply)).toEqual({ active: 3 });
  });

  it(
    "compression behind mongos: judged on the shards' compressor, the cache note names the mongos, not the " + 'roles',
    () => {
      const notes = runRuleWithNotes(compressionRule, behind(mongos.reply)).notes.map((n) => n.message);
      expect(notes.join('\n')).not.toContain('WiredTiger settings and this server runs');
      expect(notes.join('\n')).not.toContain('clusterMonitor');
      expect(
        notes.some((n) => n.includes('this is a mongos') && n.includes('compression is judged on ratios alone')),
      ).toBe(true);
    },
  );

  it('compression on a mongod: no note about the cache (it was read)', () => {
    const notes = runRuleWithNotes(compressionRule, behind(mongod.reply)).notes.map((n) => n.message);
    expect(notes.filter((n) => n.includes('cache size is unknown'))).toEqual([]);
  });

  it(
    'index-usage behind mongos: the cache comparison is skipped because this is a mongos, not for lack of ' + 'roles',
    () => {
      const notes = runRuleWithNotes(indexUsageRule, behind(mongos.reply)).notes.map((n) => n.message);
      const cache = notes.filter((n) => n.includes('not compared with the cache'));
      expect(cache).toHaveLength(1);
      expect(cache[0]).toContain('this is a mongos');
      expect(cache[0]).not.toContain('clusterMonitor');
    },
  );
});
