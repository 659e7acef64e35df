/**
 * The whole `collect --log` path against a bare loop over the same generated log, in one run.
 *
 *   node bench/run.mjs workload-log [--lines 1000000] [--size 2g] [--dir /tmp] [--runs 1] [--slow-share 0.2]
 *                                   [--no-cli] [--keep]
 *
 * The log is generated first (default 1,000,000 lines, or --size bytes; in os.tmpdir(), deleted after unless --keep):
 * noise lines as mongod writes them (connections, client metadata, network, WiredTiger checkpoints, index builds) and
 * slow-query lines ("id":51803) of eleven shapes with varying values (among them an update logged by the WRITE
 * component with the statement as its command), one in a hundred from the advisor's own appName. The generator counts
 * what it wrote per shape.
 *
 * (a) bare: a child `node` running readline over the file, `line.includes('"id":51803')`, JSON.parse of those lines.
 * (b) reader: readSlowQueryLog(path, {onRecord}) in this process, grouped by namespace, kind and filter keys.
 * (c) cli: a child `node dist/cli.cjs collect <uri> --db … --log <file> -q -o <snapshot>` against an embedded
 *     SecantusDB seeded with a few documents per collection of the log: the path a user runs, end to end (the log read
 *     and folded while the CLI connects, probes, lists and samples; then the workload collector and the snapshot). Its
 *     per-shape calls, read back from the snapshot, are checked against the generator's counts.
 * Each prints MiB/s and lines/s of wall time, the ratio to bare, and the peak RSS (children: VmHWM from /proc, read
 * every 50 ms; the reader: this process' RSS sampled every 50 ms).
 */
import { createWriteStream, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { startEmbedded } from '../src/servers/embedded';
import { readSlowQueryLog } from '../src/workload/log-reader';
import { fmt, machine, markdownTable, stringArg, intArg } from './lib/report';

type Groups = Map<string, number>;

const argv = process.argv.slice(2);

function sizeArg(): number {
  const raw = (stringArg(argv, 'size') ?? '2g').toLowerCase();
  const m = /^(\d+(?:\.\d+)?)([kmg]?)b?$/.exec(raw);
  if (!m) throw new Error(`--size wants a size like 500m or 2g, got ${JSON.stringify(raw)}`);
  const unit = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 }[m[2] as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(m[1]) * unit);
}

let seed = 42;
/** mulberry32: a small seeded generator, so every run writes the same log. */
function rnd(n: number): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
}
const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)] as T;
const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[rnd(16)]).join('');

const two = (n: number): string => String(n).padStart(2, '0');
const when = (): string =>
  `{"$date":"2025-03-04T${two(rnd(24))}:${two(rnd(60))}:${two(rnd(60))}.${String(rnd(1000)).padStart(3, '0')}+00:00"}`;
/** The line's head with the padding the file destination adds after the component and the id. */
const head = (c: string, id: number, ctx: string): string => {
  const padC = ' '.repeat(Math.max(1, 9 - c.length));
  const padId = ' '.repeat(Math.max(1, 8 - String(id).length));
  return `{"t":${when()},"s":"I",  "c":"${c}",${padC}"id":${id},${padId}"ctx":"${ctx}",`;
};
const remote = (): string => `"10.0.${rnd(255)}.${rnd(255)}:${40000 + rnd(20000)}"`;
const uuid = (): string => `{"uuid":{"$uuid":"${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}"}}`;
const conn = (): string => `conn${rnd(99999)}`;

/** Noise lines in the form mongod writes them (ids and attributes of mongod's own messages). */
const NOISE: (() => string)[] = [
  () =>
    `${head('NETWORK', 22943, 'listener')}"msg":"Connection accepted","attr":{"remote":${remote()},` +
    `"uuid":${uuid()},"connectionId":${rnd(99999)},"connectionCount":${rnd(500)}}}`,
  () =>
    `${head('NETWORK', 22944, conn())}"msg":"Connection ended","attr":{"remote":${remote()},` +
    `"uuid":${uuid()},"connectionId":${rnd(99999)},"connectionCount":${rnd(500)}}}`,
  () =>
    `${head('NETWORK', 51800, conn())}"msg":"client metadata","attr":{"remote":${remote()},` +
    `"client":"${conn()}","negotiatedCompressors":[],"doc":{"application":{"name":"orders-api"},` +
    `"driver":{"name":"nodejs","version":"6.9.0"},"platform":"Node.js v20.11.0, LE",` +
    `"os":{"name":"linux","architecture":"x64","version":"6.1.0","type":"Linux"}}}}`,
  () =>
    `${head('STORAGE', 22430, 'Checkpointer')}"msg":"WiredTiger message","attr":{"message":` +
    `{"ts_sec":${1700000000 + rnd(9999999)},"ts_usec":${rnd(999999)},"thread":"${rnd(9999)}:0x7f${hex(10)}",` +
    `"session_name":"WT_SESSION.checkpoint","category":"WT_VERB_CHECKPOINT_PROGRESS","category_id":6,` +
    `"verbose_level":"DEBUG_1","verbose_level_id":1,"msg":"saving checkpoint snapshot min: ${rnd(99999)}, ` +
    `snapshot max: ${rnd(99999)} snapshot count: 0, oldest timestamp: (0, 0) , meta checkpoint timestamp: ` +
    `(0, 0) base write gen: ${rnd(999999)}"}}}`,
  () =>
    `${head('ACCESS', 20250, conn())}"msg":"Authentication succeeded","attr":{"mechanism":"SCRAM-SHA-256",` +
    `"speculative":true,"principalName":"app","authenticationDatabase":"admin","remote":${remote()},"extraInfo":{}}}`,
  () =>
    `${head('INDEX', 20345, `IndexBuildsCoordinatorMongod-${rnd(9)}`)}"msg":"Index build: done building",` +
    `"attr":{"buildUUID":${uuid()},"namespace":"shop.orders","index":"status_1","ident":"index-${rnd(999)}-` +
    `${hex(12)}","collectionIdent":"collection-${rnd(999)}-${hex(12)}","commitTimestamp":null}}`,
];

interface Shape {
  ns: string;
  key: string;
  /** Logged by the WRITE component with the statement as the command (4.4+), of this type. */
  write?: 'update' | 'remove';
  command: () => string;
}

const statuses = ['open', 'paid', 'shipped', 'void', 'returned'];
const oid = (): string => `{"$oid":"${hex(24)}"}`;
const SHAPES: Shape[] = [
  {
    ns: 'shop.orders',
    key: 'find createdAt,status',
    command: () =>
      `{"find":"orders","filter":{"status":"${pick(statuses)}","createdAt":{"$gte":${when()}}},` +
      `"sort":{"createdAt":-1},"limit":${1 + rnd(100)},"$db":"shop"}`,
  },
  {
    ns: 'shop.orders',
    key: 'find customerId',
    command: () => `{"find":"orders","filter":{"customerId":${oid()}},"$db":"shop"}`,
  },
  {
    ns: 'app.users',
    key: 'find email',
    command: () => `{"find":"users","filter":{"email":"u${rnd(1e6)}@example.com"},"limit":1,"$db":"app"}`,
  },
  {
    ns: 'app.users',
    key: 'find age,country',
    command: () =>
      `{"find":"users","filter":{"age":{"$gt":${rnd(50)},"$lt":${50 + rnd(50)}},` +
      `"country":"${pick(['DE', 'FR', 'US', 'JP'])}"},"projection":{"name":1},"$db":"app"}`,
  },
  {
    ns: 'shop.orders',
    key: 'aggregate status',
    command: () =>
      `{"aggregate":"orders","pipeline":[{"$match":{"status":"${pick(statuses)}"}},` +
      `{"$group":{"_id":"$customerId","n":{"$sum":1}}}],"cursor":{},"$db":"shop"}`,
  },
  {
    ns: 'logs.events',
    key: 'count ts,type',
    command: () =>
      `{"count":"events","query":{"type":"${pick(['click', 'view', 'buy'])}","ts":{"$gte":${when()}}},` +
      `"$db":"logs"}`,
  },
  {
    ns: 'shop.orders',
    key: 'update _id',
    command: () =>
      `{"update":"orders","updates":[{"q":{"_id":${oid()}},` +
      `"u":{"$set":{"status":"${pick(statuses)}"}}}],"ordered":true,"$db":"shop"}`,
  },
  {
    ns: 'shop.orders',
    key: 'update customerId,status',
    write: 'update',
    command: () =>
      `{"q":{"status":"${pick(statuses)}","customerId":${oid()}},"u":{"$set":{"flagged":true}},` +
      `"multi":true,"upsert":false}`,
  },
  {
    ns: 'app.sessions',
    key: 'delete expiresAt',
    command: () => `{"delete":"sessions","deletes":[{"q":{"expiresAt":{"$lt":${when()}}},"limit":0}],"$db":"app"}`,
  },
  {
    ns: 'shop.products',
    key: 'distinct brand',
    command: () => `{"distinct":"products","key":"category","query":{"brand":"b${rnd(500)}"},"$db":"shop"}`,
  },
  {
    ns: 'jobs.queue',
    key: 'findAndModify priority,state',
    command: () =>
      `{"findAndModify":"queue","query":{"state":"ready","priority":{"$gte":${rnd(10)}}},` +
      `"update":{"$set":{"state":"running"}},"new":true,"$db":"jobs"}`,
  },
];

const hash = (n: number): string => hex(n).toUpperCase();
function slowAttrs(ctx: string, component: string, type: string, ns: string, appName: string, command: string) {
  return (
    `${head(component, 51803, ctx)}"msg":"Slow query","attr":{"type":"${type}","ns":"${ns}",` +
    `"appName":"${appName}","command":${command},"planSummary":"COLLSCAN",` +
    `"planningTimeMicros":${rnd(900)},"keysExamined":0,"docsExamined":${rnd(200000)},"cursorExhausted":true,` +
    `"numYields":${rnd(300)},"nreturned":${rnd(100)},"planCacheShapeHash":"${hash(8)}",` +
    `"queryShapeHash":"${hash(64)}","planCacheKey":"${hash(8)}","queryFramework":"classic",` +
    `"reslen":${rnd(90000)},"locks":{"Global":{"acquireCount":{"r":${1 + rnd(300)}}}},"storage":{},` +
    `"cpuNanos":${rnd(1e9)},"remote":${remote()},"protocol":"op_msg","durationMillis":${100 + rnd(2000)}}}`
  );
}

/**
 * A slow query's line; a WRITE statement is followed, as mongod does, by the COMMAND line of the update that carried
 * it, on the same connection (the reader counts the statement once).
 */
function slowLines(shape: Shape, appName: string): string[] {
  const ctx = conn();
  const command = shape.command();
  if (!shape.write) return [slowAttrs(ctx, 'COMMAND', 'command', shape.ns, appName, command)];
  const [db, coll] = shape.ns.split('.') as [string, string];
  const carrier = `{"update":"${coll}","updates":[${command}],"ordered":true,"$db":"${db}"}`;
  return [
    slowAttrs(ctx, 'WRITE', shape.write, shape.ns, appName, command),
    slowAttrs(ctx, 'COMMAND', 'command', shape.ns, appName, carrier),
  ];
}

/** Writes the log; returns what it wrote per shape (the advisor's own lines apart). */
async function generate(
  file: string,
  limit: { bytes?: number; lines?: number },
  slowShare: number,
): Promise<{ groups: Groups; own: number; lines: number }> {
  const out = createWriteStream(file, { highWaterMark: 8 << 20 });
  const groups: Groups = new Map();
  let own = 0;
  let written = 0;
  let lines = 0;
  while (limit.bytes !== undefined ? written < limit.bytes : lines < (limit.lines ?? 0)) {
    const parts: string[] = [];
    const batch = limit.lines !== undefined ? Math.min(4000, limit.lines - lines) : 4000;
    for (let i = 0; i < batch; i++) {
      let line: string;
      if (rnd(1000) < slowShare * 1000) {
        const shape = pick(SHAPES);
        const mine = rnd(100) === 0;
        const got = slowLines(shape, mine ? 'mongo-advisor' : 'orders-api');
        line = got.join('\n');
        i += got.length - 1;
        lines += got.length - 1;
        if (mine) own++;
        else groups.set(`${shape.ns} ${shape.key}`, (groups.get(`${shape.ns} ${shape.key}`) ?? 0) + 1);
      } else line = pick(NOISE)();
      lines++;
      parts.push(line);
    }
    const chunk = parts.join('\n') + '\n';
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { groups, own, lines };
}

const FILTER_OF: Record<string, (c: Readonly<Record<string, unknown>>) => unknown> = {
  find: (c) => c.filter,
  count: (c) => c.query,
  distinct: (c) => c.query,
  findAndModify: (c) => c.query,
  aggregate: (c) => (c.pipeline as { $match?: unknown }[] | undefined)?.[0]?.$match,
  update: (c) => (c.updates as { q?: unknown }[] | undefined)?.[0]?.q,
  q: (c) => c.q,
  delete: (c) => (c.deletes as { q?: unknown }[] | undefined)?.[0]?.q,
};

/** The bench's grouping: ns, command kind, sorted top-level filter keys. */
function groupKey(ns: string, command: Readonly<Record<string, unknown>>): string {
  const kind = Object.keys(command)[0] ?? '?';
  const filter = FILTER_OF[kind]?.(command);
  const keys = filter && typeof filter === 'object' ? Object.keys(filter).sort().join(',') : '';
  return `${ns} ${kind} ${keys}`;
}

function bump(groups: Groups, key: string): void {
  groups.set(key, (groups.get(key) ?? 0) + 1);
}

/** The bare loop, run in a child node: readline + JSON.parse of the slow-query lines, nothing else. */
const BARE = `
const rl = require('node:readline').createInterface({
  input: require('node:fs').createReadStream(process.argv[1], { highWaterMark: 1 << 20 }),
  crlfDelay: Infinity,
});
let n = 0;
(async () => {
  for await (const line of rl) {
    if (!line.includes('"id":51803')) continue;
    JSON.parse(line);
    n++;
  }
  console.log(n);
})();
`;

async function reader(file: string): Promise<Groups> {
  const groups: Groups = new Map();
  await readSlowQueryLog(file, {
    onRecord: (r) => bump(groups, groupKey(`${r.ns.db}.${r.ns.coll}`, r.command)),
  });
  return groups;
}

interface Timing {
  seconds: number;
  peakRssMB: number;
  check: string;
}

/** Peak RSS of a child, from /proc (VmHWM: the high-water mark), read until it exits. */
function watchPeak(pid: number): { stop: () => number } {
  let peak = 0;
  const read = (): void => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // gone
    }
  };
  const timer = setInterval(read, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function child(args: string[]): Promise<{ seconds: number; peakRssMB: number; stdout: string; code: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const peak = watchPeak(proc.pid as number);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number>((resolve) => proc.on('close', (c) => resolve(c ?? 1)));
  const seconds = (performance.now() - t0) / 1000;
  const peakRssMB = peak.stop();
  if (code !== 0) console.log(`  exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { seconds, peakRssMB, stdout, code };
}

async function timedReader(file: string, expected: Groups): Promise<Timing> {
  (globalThis as { gc?: () => void }).gc?.();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  const groups = await reader(file);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { seconds, peakRssMB: peak / 2 ** 20, check: sameCounts(groups, expected) ? 'match' : 'DIFFER' };
}

function sameCounts(a: Groups, b: Groups): boolean {
  return a.size === b.size && [...a].every(([k, n]) => b.get(k) === n);
}

/** The namespaces of the generated shapes, seeded with a few documents each so that collect samples them. */
async function seedServer(uri: string): Promise<string[]> {
  const client = await MongoClient.connect(uri);
  try {
    const dbs = new Set<string>();
    for (const ns of new Set(SHAPES.map((x) => x.ns))) {
      const [db, coll] = ns.split('.') as [string, string];
      dbs.add(db);
      await client
        .db(db)
        .collection(coll)
        .drop()
        .catch(() => undefined);
      await client
        .db(db)
        .collection(coll)
        .insertMany(Array.from({ length: 50 }, (_, i) => ({ i, status: statuses[i % statuses.length] })));
    }
    return [...dbs];
  } finally {
    await client.close();
  }
}

interface SnapshotShape {
  calls: number;
  shape: { command: string; coll: string; predicates: { path: string }[] };
}

/** Calls per generator group, read back from the snapshot collect wrote. */
function snapshotGroups(file: string): Groups {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    databases: { name: string; data?: Record<string, { collections: { shapes: SnapshotShape[] }[] } | null> }[];
  };
  const groups: Groups = new Map();
  for (const d of snap.databases) {
    for (const c of d.data?.['query-indexes/workload']?.collections ?? []) {
      for (const s of c.shapes) {
        const keys = s.shape.predicates.map((p) => p.path).sort();
        const key = `${d.name}.${s.shape.coll} ${s.shape.command} ${keys.join(',')}`;
        groups.set(key, (groups.get(key) ?? 0) + s.calls);
      }
    }
  }
  return groups;
}

async function main(): Promise<void> {
  const runs = intArg(argv, 'runs', 1);
  const slowShare = Number(stringArg(argv, 'slow-share') ?? '0.2');
  const limit = stringArg(argv, 'size') !== undefined ? { bytes: sizeArg() } : { lines: intArg(argv, 'lines', 1e6) };
  const withCli = !argv.includes('--no-cli');
  const dir = stringArg(argv, 'dir') ?? os.tmpdir();
  const file = path.join(dir, `mongo-advisor-bench-${process.pid}.log`);
  const snapshot = path.join(dir, `mongo-advisor-bench-${process.pid}.json`);
  const cli = path.join(__dirname, '..', '..', 'dist', 'cli.cjs');
  console.log(`# workload-log: ${machine()}`);
  const g0 = performance.now();
  const server = withCli ? await startEmbedded('secantusdb') : null;
  try {
    const expected = await generate(file, limit, slowShare);
    const size = statSync(file).size;
    const mb = size / 2 ** 20;
    console.log(`generated ${fmt(mb)} MiB, ${expected.lines} lines in ${fmt((performance.now() - g0) / 1000)} s`);
    const dbs = server ? await seedServer(server.uri) : [];
    const rows: string[][] = [];
    const row = (i: number, loop: string, t: Timing, bare: number): void =>
      void rows.push([
        String(i + 1),
        loop,
        fmt(mb),
        String(expected.lines),
        fmt(t.seconds, 2),
        fmt(mb / t.seconds),
        fmt(expected.lines / t.seconds / 1000),
        `${(bare / t.seconds).toFixed(2)}x`,
        fmt(t.peakRssMB),
        t.check,
      ]);
    for (let i = 0; i < runs; i++) {
      const b = await child(['-e', BARE, file]);
      const slowSeen = Number(b.stdout.trim());
      const bare: Timing = { seconds: b.seconds, peakRssMB: b.peakRssMB, check: `${slowSeen} slow lines` };
      row(i, 'bare (readline + JSON.parse)', bare, bare.seconds);
      row(i, 'reader (readSlowQueryLog)', await timedReader(file, expected.groups), bare.seconds);
      if (server) {
        const dbArgs = dbs.flatMap((d) => ['--db', d]);
        const args = [cli, 'collect', server.uri, ...dbArgs, '--log', file, '-q', '-o', snapshot];
        const c = await child(args);
        const got = c.code === 0 ? snapshotGroups(snapshot) : new Map<string, number>();
        const check = sameCounts(got, expected.groups) ? 'match' : 'DIFFER';
        if (check !== 'match')
          for (const [k, n] of expected.groups) console.log(`  ${k}: generated ${n}, collect ${got.get(k) ?? 0}`);
        row(i, 'collect --log (CLI, end to end)', { seconds: c.seconds, peakRssMB: c.peakRssMB, check }, bare.seconds);
      }
    }
    const slow = [...expected.groups.values()].reduce((a, b) => a + b, 0);
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    console.log(
      `\n${fmt(mb)} MiB, ${expected.lines} lines, ${slow} slow queries in ${expected.groups.size} shapes, ` +
        `${expected.own} of the advisor's own left out; load ${load}; server ${server?.description ?? 'none'}\n`,
    );
    const header = ['run', 'loop', 'MiB', 'lines', 'wall s', 'MiB/s', 'k lines/s', 'vs bare', 'peak RSS MiB'];
    header.push('per-shape counts');
    console.log(markdownTable(header, rows));
    for (const [k, n] of [...expected.groups].sort()) console.log(`  ${k}: ${n}`);
  } finally {
    if (!argv.includes('--keep')) rmSync(file, { force: true });
    rmSync(snapshot, { force: true });
    await server?.stop();
  }
}
main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
