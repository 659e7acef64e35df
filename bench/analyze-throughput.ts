/**
 * The advisor's in-process analysis of sampled documents against mongodb-schema's parseSchema (Compass'
 * schema engine), on the same documents in one run. Prints docs/s medians and their ratio.
 *
 *   npm run bench:analyze-throughput -- [--docs 20000] [--max-comments 99] [--runs 5] [--warmup 1] [--profile]
 *
 * --profile times the advisor alone (no ratio), for `node --cpu-prof bench/run.mjs analyze-throughput --profile`.
 *
 * "The advisor's analysis" is what `check` does in process per sample: Profiler.profile for every document,
 * profileIds over the sampled _ids, id-pattern's ranks of the _ids read in natural order (capped at 10,000 as its
 * collector caps them), then analyze() with every registered rule over the resulting snapshot, taken as if with
 * every rule on (every rule's collector recorded as run; only id-pattern's holds data here).
 */
import { BSON } from 'mongodb';
import { parseSchema } from 'mongodb-schema';
import { performance } from 'node:perf_hooks';
import { Profiler } from '../src/collect/profile';
import { outlierSearch } from '../src/collect/outliers';
import { rules } from '../rules';
import { indexUsageCollector } from '../rules/index-usage/collect';
import {
  idProfile,
  MAX_NATURAL_IDS,
  type NaturalOrder,
  naturalOrder,
  naturalOrderRanks,
} from '../rules/id-pattern/collect';
import { type IdProfile, profileIds } from '../rules/id-pattern/id-profile';
import { collectorsOf } from '../src/core/collector';
import { analyze } from '../src/core/runner';
import type { Capability, CapabilityName, DocProfile, FieldProfile, Snapshot } from '../src/core/types';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../src/core/types';
import { blogPosts, type Post } from './lib/blog';
import { fmt, intArg, machine, markdownTable, median } from './lib/report';

/** id-pattern's collector data for _ids read in natural order (here: the generator's order), as collect stores it. */
function naturalOrderOf(ids: readonly unknown[]): NaturalOrder {
  return { ranks: naturalOrderRanks(ids.slice(0, MAX_NATURAL_IDS)), source: 'natural-scan' };
}

/** Every capability a rule may require, so every rule runs. */
function allCapabilities(): Record<CapabilityName, Capability> {
  const yes: Capability = { supported: true, evidence: 'bench: every capability assumed, so every rule runs' };
  const names: CapabilityName[] = [
    'sample',
    'indexStats',
    'bsonSize',
    'arraySize',
    'collStats',
    'validators',
    'clusteredCollections',
    'collMod',
  ];
  return Object.fromEntries(names.map((n) => [n, yes])) as Record<CapabilityName, Capability>;
}

function snapshotOf(
  docs: DocProfile[],
  id: IdProfile,
  natural: NaturalOrder,
  fields: Map<string, FieldProfile>,
): Snapshot {
  let bytes = 0;
  for (const d of docs) bytes += d.bytes;
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    collectedAt: new Date().toISOString(),
    source: 'bench (in process)',
    server: {
      version: '8.0.0',
      versionArray: [8, 0, 0],
      flavor: 'mongodb',
      storageEngine: 'wiredTiger',
      topology: 'standalone',
      capabilities: allCapabilities(),
      cacheBytes: 1024 ** 3,
    },
    databases: [
      {
        name: 'blog',
        collections: [
          {
            db: 'blog',
            name: 'posts',
            type: 'collection',
            capped: false,
            clustered: false,
            validator: { present: false },
            stats: {
              count: docs.length,
              sizeBytes: bytes,
              avgObjSize: bytes / docs.length,
              storageSizeBytes: bytes / 2,
              totalIndexSizeBytes: docs.length * 20,
              nindexes: 1,
              blockCompressor: 'snappy',
            },
            indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: docs.length * 20 }],
            sample: {
              method: '$sample',
              random: true,
              complete: false,
              dynamicKeys: [],
              requested: docs.length,
              size: docs.length,
              docs,
              fields: Object.fromEntries(fields),
              timeSource: 'createdAt',
            },
            notes: [],
            data: {
              [naturalOrder.id]: natural,
              [idProfile.id]: id,
              [outlierSearch.id]: { status: 'done', reason: null, docs: [] },
              [indexUsageCollector.id]: {
                accesses: { _id_: [{ host: 'bench:27017', ops: 1, since: new Date().toISOString() }] },
              },
            },
          },
        ],
      },
    ],
    notes: [],
    roundTrips: 0,
    collectors: collectorsOf(rules).map((c) => ({ id: c.id, version: c.version, scope: c.scope, couldNot: [] })),
  };
}

/** What check does in process with a sample: profile each document, profile the _ids, run the rules. */
function advisor(posts: readonly Post[]): number {
  const profiler = new Profiler('createdAt');
  const docs = new Array<DocProfile>(posts.length);
  const ids = new Array<unknown>(posts.length);
  for (let i = 0; i < posts.length; i++) {
    const p = posts[i] as Post;
    docs[i] = profiler.profile(p as unknown as Record<string, unknown>);
    ids[i] = p._id;
  }
  const id = profileIds(ids);
  const folded = profiler.finish(docs);
  return analyze(snapshotOf(folded.docs, id, naturalOrderOf(ids), folded.fields), {}, rules).findings.length;
}

/** Visits every value once, as cheaply as JavaScript allows: the floor any analysis pays. */
function traverse(v: unknown): number {
  if (v === null || typeof v !== 'object') return 1;
  if (Array.isArray(v)) {
    let n = 1;
    for (let i = 0; i < v.length; i++) n += traverse(v[i]);
    return n;
  }
  if ((v as { _bsontype?: unknown })._bsontype !== undefined || v instanceof Date) return 1;
  let n = 1;
  const o = v as Record<string, unknown>;
  for (const k in o) n += traverse(o[k]);
  return n;
}

interface Contender {
  name: string;
  run: (docs: readonly Post[]) => unknown;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const n = intArg(argv, 'docs', 20_000);
  const maxComments = intArg(argv, 'max-comments', 99);
  const runs = intArg(argv, 'runs', 5);
  const warmup = argv.includes('--warmup') ? intArg(argv, 'warmup', 1) : 1;
  const gc = (globalThis as { gc?: () => void }).gc;
  const { posts, comments, bsonBytes } = samplePosts(n, maxComments);
  console.log(`# analyze-throughput`);
  console.log(machine());
  console.log(
    `${n.toLocaleString('en-US')} blog posts, 0-${maxComments} comments each ` +
      `(${comments.toLocaleString('en-US')} comments), mean BSON size ${fmt(bsonBytes / n)} bytes; ${runs} ` +
      `timed runs after ${warmup} ` +
      `warm-up${gc ? ', GC before each timing' : ' (run node with --expose-gc to collect garbage between timings)'}`,
  );
  console.log(`rules registered: ${rules.map((r) => r.id).join(', ')}`);

  const contenders: Contender[] = [
    {
      name: 'bare traversal',
      run: (d) => {
        let s = 0;
        for (const p of d) s += traverse(p);
        return s;
      },
    },
    { name: 'mongo-advisor (profile + profileIds + analyze)', run: advisor },
    { name: 'mongodb-schema parseSchema (defaults)', run: (d) => parseSchema(d) },
    { name: 'mongodb-schema parseSchema (storeValues: false)', run: (d) => parseSchema(d, { storeValues: false }) },
  ];
  if (argv.includes('--profile')) {
    profileAdvisor(posts, warmup + runs, gc);
    return;
  }
  const { wall, cpu } = await timeContenders(contenders, posts, warmup, runs, gc);
  printComparison(contenders, wall, cpu, n, runs);
  console.log(`advisor findings on these documents: ${String(advisor(posts))}`);
}

/**
 * `n` generated posts, round-tripped through BSON so they are exactly what the driver hands back from a sample (flat
 * strings, ints as numbers, Date and ObjectId objects), not the generator's own objects.
 */
function samplePosts(n: number, maxComments: number): { posts: Post[]; comments: number; bsonBytes: number } {
  const make = blogPosts({ maxComments, seed: 7 });
  let comments = 0;
  let bsonBytes = 0;
  const posts: Post[] = Array.from({ length: n }, (_, i) => {
    const bytes = BSON.serialize(make(i));
    bsonBytes += bytes.length;
    const p = BSON.deserialize(bytes) as Post;
    comments += p.comments.length;
    return p;
  });
  return { posts, comments, bsonBytes };
}

/** `--profile`: the advisor's run split into its phases, and analyze per rule on the last round (stderr). */
function profileAdvisor(posts: readonly Post[], rounds: number, gc: (() => void) | undefined): void {
  const ids = posts.map((p) => p._id);
  for (let round = 0; round < rounds; round++) {
    gc?.();
    const t0 = performance.now();
    const profiler = new Profiler('createdAt');
    const folded = profiler.finish(posts.map((p) => profiler.profile(p as unknown as Record<string, unknown>)));
    const docs = folded.docs;
    const t1 = performance.now();
    const id = profileIds(ids);
    const natural = naturalOrderOf(ids);
    const t2 = performance.now();
    analyze(snapshotOf(docs, id, natural, folded.fields), {}, rules);
    const t3 = performance.now();
    process.stderr.write(
      `advisor run ${round + 1}: ${fmt(t3 - t0)} ms = Profiler.profile and finish ${fmt(t1 - t0)} + ` +
        `profileIds and natural-order ranks ${fmt(t2 - t1)} + analyze ${fmt(t3 - t2)}\n`,
    );
    if (round === rounds - 1) {
      const snapshot = snapshotOf(docs, id, natural, folded.fields);
      const each = rules.map((r) => {
        const r0 = performance.now();
        analyze(snapshot, { only: [r.id] }, rules);
        return `${r.id} ${fmt(performance.now() - r0)}`;
      });
      process.stderr.write(`analyze per rule (ms): ${each.join(', ')}\n`);
    }
  }
}

/** Wall and CPU milliseconds of each contender per timed round (the warm-up rounds are not kept). */
async function timeContenders(
  contenders: readonly Contender[],
  posts: Post[],
  warmup: number,
  runs: number,
  gc: (() => void) | undefined,
): Promise<{ wall: number[][]; cpu: number[][] }> {
  const wall: number[][] = contenders.map(() => []);
  const cpu: number[][] = contenders.map(() => []);
  for (let round = 0; round < warmup + runs; round++) {
    // Rotate the order so no contender always runs right after another's garbage.
    for (let k = 0; k < contenders.length; k++) {
      const c = (round + k) % contenders.length;
      gc?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await (contenders[c] as Contender).run(posts);
      const ms = performance.now() - t0;
      const used = process.cpuUsage(c0);
      if (round >= warmup) {
        (wall[c] as number[]).push(ms);
        (cpu[c] as number[]).push((used.user + used.system) / 1000);
      }
    }
    if (round >= warmup) {
      const last = (i: number): number => (wall[i] as number[]).at(-1) as number;
      const times = contenders.map((c, i) => `${c.name.split(' (')[0] as string} ${fmt(last(i))} ms`);
      process.stderr.write(`run ${round - warmup + 1}/${runs}: ${times.join(', ')}\n`);
    }
  }
  return { wall, cpu };
}

/** The table of rates and the advisor / parseSchema ratio against the 10x target. */
function printComparison(
  contenders: readonly Contender[],
  wall: number[][],
  cpu: number[][],
  n: number,
  runs: number,
): void {
  const ADVISOR = 1;
  const SCHEMA = 2;
  const rate = (ms: number): number => (n / ms) * 1000;
  const schemaRate = median((wall[SCHEMA] as number[]).map(rate));
  const schemaCpuRate = median((cpu[SCHEMA] as number[]).map(rate));
  const rows = contenders.map((c, i) => {
    const rates = (wall[i] as number[]).map(rate);
    const m = median(rates);
    const cpuRate = median((cpu[i] as number[]).map(rate));
    return [
      c.name,
      fmt(median(wall[i] as number[])),
      fmt(m),
      fmt(Math.min(...rates)),
      fmt(Math.max(...rates)),
      `${(m / schemaRate).toFixed(1)}x`,
      fmt(cpuRate),
      `${(cpuRate / schemaCpuRate).toFixed(1)}x`,
    ];
  });
  console.log('');
  console.log(
    markdownTable(
      [
        'analysis',
        'median ms',
        'median docs/s',
        'min docs/s',
        'max docs/s',
        'vs parseSchema',
        'docs/s of CPU time',
        'vs parseSchema (CPU)',
      ],
      rows,
    ),
  );
  // The ratio within a run (nearest in time, same machine state) is less noisy than the ratio of medians.
  const ratios = (t: number[][]): number[] =>
    (t[ADVISOR] as number[]).map((a, i) => ((t[SCHEMA] as number[])[i] as number) / a);
  const perRun = ratios(wall);
  const ratio = median(perRun);
  const cpuRatio = median(ratios(cpu));
  console.log('');
  console.log(
    `advisor / parseSchema throughput: ${ratio.toFixed(1)}x wall time (median of ${runs} per-run ratios; ` +
      `range ${Math.min(...perRun).toFixed(1)}x-${Math.max(...perRun).toFixed(1)}x), ${cpuRatio.toFixed(1)}x ` +
      `CPU time. Target: at least 10x. ${ratio >= 10 ? 'MET' : 'NOT MET'}`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
