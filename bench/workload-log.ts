/**
 * The JSON log reader (src/workload/log-reader.ts) against a bare loop over the same generated log, in one run.
 *
 *   node bench/run.mjs workload-log [--size 2g] [--dir /tmp] [--runs 1] [--slow-share 0.2] [--keep]
 *
 * The log is generated first (default 2 GiB, in os.tmpdir(), deleted after unless --keep): noise lines as mongod
 * writes them (connections, client metadata, network, WiredTiger checkpoints, index builds) and slow-query lines
 * ("id":51803) of ten shapes with varying values, one in a hundred from the advisor's own appName. The generator
 * counts what it wrote per shape.
 *
 * (a) bare: readline over the file, `line.includes('"id":51803')`, JSON.parse of those lines, grouping.
 * (b) reader: readSlowQueryLog(path, {onRecord}) with the same grouping on its records.
 * Each prints MiB/s of wall and of CPU time (steadier on a shared machine), their ratios to bare, and the peak
 * RSS sampled every 50 ms while it ran. The per-shape counts of
 * both are checked against the generator's (grouping = ns + command kind + sorted keys of the filter; the real
 * shape function comes later).
 */
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
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
function slowLine(shape: Shape, appName: string): string {
  return (
    `${head('COMMAND', 51803, conn())}"msg":"Slow query","attr":{"type":"command","ns":"${shape.ns}",` +
    `"appName":"${appName}","command":${shape.command()},"planSummary":"COLLSCAN",` +
    `"planningTimeMicros":${rnd(900)},"keysExamined":0,"docsExamined":${rnd(200000)},"cursorExhausted":true,` +
    `"numYields":${rnd(300)},"nreturned":${rnd(100)},"planCacheShapeHash":"${hash(8)}",` +
    `"queryShapeHash":"${hash(64)}","planCacheKey":"${hash(8)}","queryFramework":"classic",` +
    `"reslen":${rnd(90000)},"locks":{"Global":{"acquireCount":{"r":${1 + rnd(300)}}}},"storage":{},` +
    `"cpuNanos":${rnd(1e9)},"remote":${remote()},"protocol":"op_msg","durationMillis":${100 + rnd(2000)}}}`
  );
}

/** Writes the log; returns what it wrote per shape (the advisor's own lines apart). */
async function generate(file: string, bytes: number, slowShare: number): Promise<{ groups: Groups; own: number }> {
  const out = createWriteStream(file, { highWaterMark: 8 << 20 });
  const groups: Groups = new Map();
  let own = 0;
  let written = 0;
  while (written < bytes) {
    const parts: string[] = [];
    for (let i = 0; i < 4000; i++) {
      let line: string;
      if (rnd(1000) < slowShare * 1000) {
        const shape = pick(SHAPES);
        const mine = rnd(100) === 0;
        line = slowLine(shape, mine ? 'mongo-advisor' : 'orders-api');
        if (mine) own++;
        else groups.set(`${shape.ns} ${shape.key}`, (groups.get(`${shape.ns} ${shape.key}`) ?? 0) + 1);
      } else line = pick(NOISE)();
      parts.push(line);
    }
    const chunk = parts.join('\n') + '\n';
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { groups, own };
}

const FILTER_OF: Record<string, (c: Readonly<Record<string, unknown>>) => unknown> = {
  find: (c) => c.filter,
  count: (c) => c.query,
  distinct: (c) => c.query,
  findAndModify: (c) => c.query,
  aggregate: (c) => (c.pipeline as { $match?: unknown }[] | undefined)?.[0]?.$match,
  update: (c) => (c.updates as { q?: unknown }[] | undefined)?.[0]?.q,
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

async function bare(file: string): Promise<Groups> {
  const groups: Groups = new Map();
  const rl = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.includes('"id":51803')) continue;
    const e = JSON.parse(line) as { attr: { ns: string; appName?: string; command: Record<string, unknown> } };
    if (e.attr.appName === 'mongo-advisor') continue;
    bump(groups, groupKey(e.attr.ns, e.attr.command));
  }
  return groups;
}

async function reader(file: string): Promise<Groups> {
  const groups: Groups = new Map();
  await readSlowQueryLog(file, {
    onRecord: (r) => bump(groups, groupKey(`${r.ns.db}.${r.ns.coll}`, r.command)),
  });
  return groups;
}

interface Timing {
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  groups: Groups;
}

async function timed(run: () => Promise<Groups>): Promise<Timing> {
  (globalThis as { gc?: () => void }).gc?.();
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const groups = await run();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMB: peak / 2 ** 20, groups };
}

function sameCounts(a: Groups, b: Groups): boolean {
  return a.size === b.size && [...a].every(([k, n]) => b.get(k) === n);
}

async function main(): Promise<void> {
  const bytes = sizeArg();
  const runs = intArg(argv, 'runs', 1);
  const slowShare = Number(stringArg(argv, 'slow-share') ?? '0.2');
  const file = path.join(stringArg(argv, 'dir') ?? os.tmpdir(), `mongo-advisor-bench-${process.pid}.log`);
  console.log(`# workload-log: ${machine()}`);
  const g0 = performance.now();
  try {
    const expected = await generate(file, bytes, slowShare);
    const size = statSync(file).size;
    const mb = size / 2 ** 20;
    console.log(`generated ${fmt(mb)} MiB in ${fmt((performance.now() - g0) / 1000)} s: ${file}`);
    const expectedByKind = expected.groups;
    const rows: string[][] = [];
    for (let i = 0; i < runs; i++) {
      const order: ['bare' | 'reader', () => Promise<Groups>][] = [
        ['bare', () => bare(file)],
        ['reader', () => reader(file)],
      ];
      if (i % 2 === 1) order.reverse();
      const got: Record<string, Timing> = {};
      for (const [name, run] of order) got[name] = await timed(run);
      const b = got.bare as Timing;
      const r = got.reader as Timing;
      const ok = (t: Timing): string => (sameCounts(t.groups, expectedByKind) ? 'match' : 'DIFFER');
      const ratio = `${(b.seconds / r.seconds).toFixed(2)}x`;
      const cpuRatio = `${(b.cpuSeconds / r.cpuSeconds).toFixed(2)}x`;
      rows.push([
        String(i + 1),
        'bare',
        fmt(mb / b.seconds),
        '1.00x',
        fmt(mb / b.cpuSeconds),
        '1.00x',
        fmt(b.peakRssMB),
        ok(b),
      ]);
      rows.push([
        String(i + 1),
        'reader',
        fmt(mb / r.seconds),
        ratio,
        fmt(mb / r.cpuSeconds),
        cpuRatio,
        fmt(r.peakRssMB),
        ok(r),
      ]);
      if (ok(r) !== 'match') {
        for (const [k, n] of expectedByKind) console.log(`  ${k}: generated ${n}, reader ${r.groups.get(k) ?? 0}`);
      }
    }
    const slow = [...expectedByKind.values()].reduce((a, b) => a + b, 0);
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
    console.log(
      `\n${fmt(mb)} MiB, ${slow} slow queries in ${expectedByKind.size} groups, ${expected.own} of the ` +
        `advisor's own left out; load ${load}\n`,
    );
    const header = ['run', 'loop', 'MiB/s', 'vs bare', 'MiB/CPU-s', 'vs bare (CPU)', 'peak RSS MiB'];
    header.push('per-group counts');
    console.log(markdownTable(header, rows));
    for (const [k, n] of [...expectedByKind].sort()) console.log(`  ${k}: ${n}`);
  } finally {
    if (!argv.includes('--keep')) rmSync(file, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
