import type { Doc } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { ciLabel } from '../../src/confirm/trials';
import { ratioOf, timeTrials, toMeasurement, type Timed } from '../../src/confirm/harness';
import { describeServerError } from '../../src/adapters/types';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement } from '../../src/core/types';
import type { CompressionOptions } from './index';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

/** The block_compressor a collection was created with, read back from its WiredTiger creationString. */
export function compressorOf(storageStats: Doc | null): string | null {
  const creation = (storageStats?.wiredTiger as Doc | undefined)?.creationString;
  if (typeof creation !== 'string') return null;
  const m = /block_compressor=(\w*)/.exec(creation);
  return m ? m[1] || 'none' : null;
}

function strip(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

export async function confirmCompression(ctx: ConfirmContext, f: Finding, o: CompressionOptions): Promise<Result> {
  const { db, collection } = f.target;
  const current = String(f.evidence.blockCompressor ?? 'snappy');
  const s = ctx.scratch;
  const codecs = [...new Set([current, 'zstd'])];
  const names = codecs.map((c) => `compression_${c}`);
  for (const n of names) await s.drop(n);
  // 1. one scratch collection per compressor, proven by reading the creationString back
  for (let i = 0; i < codecs.length; i++) {
    const name = names[i] as string;
    let refused: string | null = null;
    try {
      await s.create(name, { storageEngine: { wiredTiger: { configString: `block_compressor=${codecs[i] as string}` } } });
    } catch (err) {
      refused = `the server refused to create it: ${describeServerError(err)}`;
    }
    const applied = refused ? null : compressorOf(await s.collStats(name));
    if (refused || applied !== codecs[i]) {
      for (const n of names) await s.drop(n);
      const server = ctx.snapshot.server;
      const engine = server.flavor === 'ferretdb' ? ' (FerretDB has no WiredTiger)' : server.storageEngine === 'wiredTiger' ? ', although the server reports storage engine wiredTiger' : '';
      const unread = `its $collStats storageStats carry no wiredTiger.creationString, so the compressor it got cannot be read back${engine}`;
      const why = refused ?? (applied === null ? unread : `the server created it with block_compressor=${applied}`);
      return { status: 'not-run', summary: `Not measured: a scratch collection asked for block_compressor=${codecs[i] as string}, but ${why}.`, reason: why, measurements: [] };
    }
  }
  // 2. the same documents in each
  const source = collection ? (await ctx.sourceDocs(db, collection)).map(strip) : [];
  if (source.length === 0) {
    for (const n of names) await s.drop(n);
    return { status: 'inconclusive', summary: `No documents could be read from ${collection ?? 'the collection'}, so there was nothing to compress.`, measurements: [] };
  }
  for (const n of names) await s.insertMany(n, source);
  // 3. a checkpoint, so storageSize counts compressed blocks on disk
  let flushed = true;
  let flushNote = '';
  try {
    await s.fsync();
  } catch (err) {
    flushed = false;
    flushNote = ` fsync was refused (${describeServerError(err)}), so sizes may predate WiredTiger's next checkpoint.`;
  }
  const sizes: number[] = [];
  for (const n of names) sizes.push(Number((await s.collStats(n))?.storageSize ?? 0));
  // 4. read time: a full scan of each
  const reads: Timed[] = [];
  for (let i = 0; i < names.length; i++) {
    const n = names[i] as string;
    reads.push(
      await timeTrials(`full scan of ${formatNumber(source.length)} docs, ${codecs[i] as string}`, ctx.budget.slice(1 / (names.length - i)), async () => {
        await s.command({ find: n, filter: {}, batchSize: 100_000, singleBatch: true });
      }),
    );
  }
  for (const n of names) await s.drop(n);

  const measurements: Measurement[] = [];
  codecs.forEach((c, i) => {
    const b = sizes[i] as number;
    measurements.push({ label: `storageSize, ${c}`, unit: 'bytes', median: b, low: b, high: b, trials: 1 });
  });
  measurements.push(...reads.map((r) => toMeasurement(r)));
  const cur = sizes[0] as number;
  const zstd = sizes[sizes.length - 1] as number;
  if (cur <= 0 || zstd <= 0) {
    return { status: 'inconclusive', summary: `The server reported no storageSize for the scratch collections.${flushNote}`, measurements };
  }
  const gain = cur / zstd;
  const read = reads.length === 2 && reads[0] && reads[1] && reads[0].complete && reads[1].complete ? ratioOf(`full-scan time, zstd / ${current}`, reads[1], reads[0]) : null;
  const readText = read ? ` A full scan took ${read.median.toFixed(2)}x as long with zstd (${ciLabel(read)} ${read.low.toFixed(2)}–${read.high.toFixed(2)}; ${formatDuration(toMeasurement(reads[1] as Timed).median)} vs ${formatDuration(toMeasurement(reads[0] as Timed).median)}).` : '';
  const summary = `${formatNumber(source.length)} documents copied from ${collection ?? ''} took ${formatBytes(cur)} with ${current} and ${formatBytes(zstd)} with zstd after ${flushed ? 'fsync' : 'no flush'}: ${gain.toFixed(2)}x smaller (creationString read back for each).${readText}${flushNote}`;
  const needed = f.messageId === 'zstdSmaller' || f.messageId === 'zstdSmallerOutgrowsCache' ? o.minGain : 1;
  const status: Confirmation['status'] = !flushed ? 'inconclusive' : gain >= needed ? 'supported' : gain < 1 ? 'refuted' : 'inconclusive';
  return { status, summary, ratio: { label: `storageSize, ${current} / zstd`, median: gain, low: gain, high: gain }, measurements };
}
