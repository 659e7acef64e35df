import { sentence } from '../../src/core/rule';
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/confirm/context';
import { alternate } from '../../src/confirm/trials';
import { DEFAULT_TRIALS, ratioOf, toMeasurement, type Timed } from '../../src/confirm/harness';
import { figure, judge, ratioClaim, say } from '../../src/confirm/verdict';
import { describeServerError } from '../../src/lib/server-error';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement, RatioClaim, Verdict } from '../../src/core/types';
import type { CompressionOptions } from './options';

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
  const notRun = await createPerCodec(ctx, codecs, names);
  if (notRun) return notRun;
  // 2. the same documents in each
  const source = collection ? (await ctx.sourceDocs(db, collection)).map(strip) : [];
  if (source.length === 0) {
    for (const n of names) await s.drop(n);
    return {
      status: 'inconclusive',
      summary: say(M, 'inconclusiveNoDocs', { collection: collection ?? 'the collection' }),
      measurements: [],
    };
  }
  for (const n of names) await s.insertMany(n, source);
  // 3. a checkpoint, so storageSize counts compressed blocks on disk
  const { sizes, flushError } = await flushedSizes(s, names);
  // 4. read time: a full scan of each, the two timed in alternation
  const reads = await timeScans(ctx, names, current, source.length);
  for (const n of names) await s.drop(n);
  const run: Run = { current, codecs, sizes, reads, flushError, docs: source.length, collection: collection ?? '' };
  return verdictOf(f, o, run);
}

/** What the experiment measured, for the verdict. */
interface Run {
  current: string;
  codecs: string[];
  sizes: number[];
  reads: Timed[];
  flushError: string | null;
  docs: number;
  collection: string;
}

/**
 * One scratch collection per compressor, each proven by reading its creationString back. A not-run result (the
 * collections dropped again) when the server refused one or gave it another compressor; null when all are right.
 */
async function createPerCodec(ctx: ConfirmContext, codecs: string[], names: string[]): Promise<Result | null> {
  const s = ctx.scratch;
  for (let i = 0; i < codecs.length; i++) {
    const name = names[i] as string;
    let refused: string | null = null;
    try {
      await s.create(name, {
        storageEngine: { wiredTiger: { configString: `block_compressor=${codecs[i] as string}` } },
      });
    } catch (err) {
      refused = `the server refused to create it: ${describeServerError(err)}`;
    }
    const applied = refused ? null : compressorOf(await s.collStats(name));
    if (refused || applied !== codecs[i]) {
      for (const n of names) await s.drop(n);
      const server = ctx.snapshot.server;
      const engine =
        server.flavor === 'ferretdb'
          ? ' (FerretDB has no WiredTiger)'
          : server.storageEngine === 'wiredTiger'
            ? ', although the server reports storage engine wiredTiger'
            : '';
      const unread =
        `its $collStats storageStats carry no wiredTiger.creationString, so the compressor it got cannot be ` +
        `read back${engine}`;
      const why = refused ?? (applied === null ? unread : `the server created it with block_compressor=${applied}`);
      return {
        status: 'not-run',
        summary: `Not measured: a scratch collection asked for block_compressor=${codecs[i] as string}, but ${why}.`,
        reason: why,
        measurements: [],
      };
    }
  }
  return null;
}

/** storageSize of each collection after an fsync (the fsync's error, when the server refused it). */
async function flushedSizes(
  s: ConfirmContext['scratch'],
  names: string[],
): Promise<{ sizes: number[]; flushError: string | null }> {
  let flushError: string | null = null;
  try {
    await s.fsync();
  } catch (err) {
    flushError = describeServerError(err);
  }
  const sizes: number[] = [];
  for (const n of names) sizes.push(Number((await s.collStats(n))?.storageSize ?? 0));
  return { sizes, flushError };
}

/** A full scan of the current compressor's copy and of the zstd copy, timed in alternation (none for one copy). */
async function timeScans(ctx: ConfirmContext, names: string[], current: string, docs: number): Promise<Timed[]> {
  const s = ctx.scratch;
  const [n0, n1] = [names[0] as string, names[names.length - 1] as string];
  const scan = (n: string) => async (): Promise<void> =>
    void (await s.command({ find: n, filter: {}, batchSize: 100_000, singleBatch: true }));
  return names.length === 2
    ? await alternate(
        ctx.budget,
        { label: `full scan of ${formatNumber(docs)} docs, ${current}`, run: scan(n0) },
        { label: `full scan of ${formatNumber(docs)} docs, zstd`, run: scan(n1) },
        DEFAULT_TRIALS,
      )
    : [];
}

/** The measurements, the size gain against the claim, and the sentences that say so. */
function verdictOf(f: Finding, o: CompressionOptions, run: Run): Result {
  const { current, sizes, reads, flushError } = run;
  const measurements: Measurement[] = [];
  run.codecs.forEach((c, i) => {
    const b = sizes[i] as number;
    measurements.push({ label: `storageSize, ${c}`, unit: 'bytes', median: b, low: b, high: b, trials: 1 });
  });
  measurements.push(...reads.map((r) => toMeasurement(r)));
  const cur = sizes[0] as number;
  const zstd = sizes[sizes.length - 1] as number;
  const fsyncNote = flushError === null ? [] : [say(M, 'measuredFsyncRefused', { error: flushError })];
  if (cur <= 0 || zstd <= 0)
    return { status: 'inconclusive', summary: [say(M, 'inconclusiveNoSize'), ...fsyncNote].join(' '), measurements };
  const gain = { label: `storageSize, ${current} / zstd`, median: cur / zstd, low: cur / zstd, high: cur / zstd };
  const claim = gainClaim(f.messageId === 'zstdSmaller' || f.messageId === 'zstdSmallerOutgrowsCache' ? o.minGain : 1);
  const parts = [
    say(M, 'measuredSizes', {
      docs: formatNumber(run.docs),
      collection: run.collection,
      current: formatBytes(cur),
      codec: current,
      zstd: formatBytes(zstd),
      flush: flushError === null ? 'fsync' : 'no flush',
      gain: figure(gain, claim),
    }),
  ];
  const [r0, r1] = reads;
  if (r0 && r1 && r0.complete && r1.complete) {
    const read = ratioOf(`full-scan time, zstd / ${current}`, r1, r0);
    parts.push(
      say(M, 'measuredRead', {
        figure: figure(read),
        zstd: formatDuration(toMeasurement(r1).median),
        current: formatDuration(toMeasurement(r0).median),
      }),
    );
  }
  parts.push(...fsyncNote);
  const status: Verdict = flushError === null ? judge(claim, gain) : 'inconclusive';
  const data = { claim: claim.text, size: claim.size };
  if (flushError !== null) parts.push(say(M, 'inconclusiveUnflushed'));
  else
    parts.push(
      status === 'supported'
        ? say(M, 'supportedGain', data)
        : status === 'refuted'
          ? say(M, 'refutedGain', data)
          : say(M, 'inconclusiveGain', data),
    );
  return { status, claim, summary: parts.join(' '), ratio: gain, measurements };
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredSizes: sentence(
    '{{docs}} documents copied from {{collection}} took {{current}} with {{codec}} and {{zstd}} with zstd ',
    'after {{flush}}: {{gain}} smaller (creationString read back for each).',
  ),
  measuredRead: 'A full scan took {{figure}} as long with zstd ({{zstd}} vs {{current}}).',
  measuredFsyncRefused: "fsync was refused ({{error}}), so sizes may predate WiredTiger's next checkpoint.",
  supportedGain: 'The claim that {{claim}} holds on this copy.',
  refutedGain: 'The claim that {{claim}} does not hold on this copy.',
  inconclusiveGain: 'The gain sits exactly at {{size}}x, so whether {{claim}} is not shown either way.',
  inconclusiveUnflushed: 'Without a checkpoint the sizes are not judged.',
  inconclusiveNoSize: 'The server reported no storageSize for the scratch collections, so nothing is judged.',
  inconclusiveNoDocs: 'No documents could be read from {{collection}}, so there was nothing to compress.',
} as const;
const M = CONFIRM_MESSAGES;

/** The claim, a direction and a size: zstd stores the same documents `size` times smaller or more (an exact figure). */
export function gainClaim(size: number): RatioClaim {
  return ratioClaim(
    'above',
    size,
    size === 1
      ? 'zstd stores the same documents in less space'
      : `zstd stores the same documents more than ${formatNumber(size)}x smaller`,
  );
}
