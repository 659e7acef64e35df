/**
 * `check --no-confirm` of a database holding many mostly-empty collections (1,000 and 10,000 by default):
 * wall time, round trips (by command), peak memory of this process, snapshot size, and the deployment
 * inventory (the collection-count rule's collector, rules/collection-count/collect.ts): its round trips in the run,
 * its bytes in the snapshot, and its time run again alone. Target: 10,000 collections in under 30 s, memory under 300
 * MB.
 *
 *   node bench/run.mjs collection-count [--sizes 1000,10000] [--concurrency 4,8] [--with-docs-every 100] [--probe-only]
 * [--server secantusdb|ferretdb]
 *
 * The server is the embedded one (src/servers/embedded.ts): MONGODB_URI if set, else the first of --server
 * (default: mongodb-memory-server, SecantusDB, FerretDB) that starts. Peak memory is this process's (the advisor's),
 * sampled every 25 ms; the server's is not in it.
 */
import { Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { performance } from 'node:perf_hooks';
import type { Adapter, BsonKit, Doc } from '../src/adapters/types';
import { check } from '../src/index';
import { dataOf } from '../src/core/collector';
import { mapPool } from '../src/core/pool';
import type { Snapshot } from '../src/core/types';
import { startServer } from '../src/servers/embedded';
import { inventory } from '../rules/collection-count/collect';
import { manyCollections, seedOnly } from './lib/many-collections';
import { runCli } from './lib/audit-run';
import { LISTING_BATCH } from '../src/collect/groups';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fmt, machine, markdownTable, serverOrder, stringArg } from './lib/report';

const DB = 'mongo_advisor_bench_collection_count';

const bson: BsonKit = {
  objectId: () => new ObjectId(),
  uuid: (hex) => new UUID(hex),
  long: (v) => Long.fromString(String(v)),
};

/** The driver adapter's command path, tallying commands by name and the time the client waited on each. */
class CountingAdapter implements Adapter {
  readonly kind = 'driver' as const;
  readonly bson = bson;
  private count = 0;
  tally = new Map<string, { n: number; ms: number }>();
  constructor(
    private readonly client: MongoClient,
    readonly source: string,
  ) {}
  get roundTrips(): number {
    return this.count;
  }
  async command(db: string, cmd: Doc): Promise<Doc> {
    this.count++;
    const name = Object.keys(cmd)[0] ?? '?';
    const label =
      name === 'aggregate'
        ? `aggregate ${Object.keys(((cmd.pipeline as Doc[] | undefined) ?? [])[0] ?? {})[0] ?? ''}`
        : name;
    const t0 = performance.now();
    try {
      return await this.client.db(db).command(cmd);
    } finally {
      const t = this.tally.get(label) ?? { n: 0, ms: 0 };
      t.n++;
      t.ms += performance.now() - t0;
      this.tally.set(label, t);
    }
  }
  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Peak RSS and heap of this process while `work` runs. */
async function peakMemory<T>(work: () => Promise<T>): Promise<{ value: T; rss: number; heap: number }> {
  let rss = process.memoryUsage().rss;
  let heap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 25);
  try {
    const value = await work();
    const m = process.memoryUsage();
    return { value, rss: Math.max(rss, m.rss), heap: Math.max(heap, m.heapUsed) };
  } finally {
    clearInterval(timer);
  }
}

/** Grows the database to `target` collections named tenant_<i>, each with one secondary index; every `docsEvery`-th
 * gets 5 documents. */
async function seed(client: MongoClient, target: number, docsEvery: number): Promise<void> {
  const db = client.db(DB);
  const have = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  const todo = Array.from({ length: target }, (_, i) => i).filter((i) => !have.has(`tenant_${i}`));
  if (todo.length === 0) return;
  const t0 = performance.now();
  let done = 0;
  await mapPool(todo, 8, async (i) => {
    const name = `tenant_${i}`;
    await db.createCollection(name);
    await db.collection(name).createIndex({ userId: 1, createdAt: -1 });
    if (i % docsEvery === 0)
      await db
        .collection(name)
        .insertMany(Array.from({ length: 5 }, (_, k) => ({ userId: k, createdAt: new Date(), note: `n${k}` })));
    if (++done % 1000 === 0)
      process.stderr.write(
        `  seeded ${done.toLocaleString('en-US')} of ${todo.length.toLocaleString('en-US')} collections ` +
          `(${fmt((performance.now() - t0) / 1000)} s)\n`,
      );
  });
}

/**
 * What one per-collection command costs at this size, on `probes` collections spread over the database, one at a
 * time: the core collect's `$collStats` (storage stats and count) and `listIndexes`, and the fast `count` that could
 * tell empty collections apart before `$collStats`.
 */
async function probeCommands(client: MongoClient, size: number, probes: number): Promise<string> {
  const db = client.db(DB);
  const names = Array.from(
    { length: Math.min(probes, size) },
    (_, i) => `tenant_${Math.floor((i * size) / Math.min(probes, size))}`,
  );
  const timeIt = async (label: string, run: (name: string) => Promise<unknown>): Promise<string> => {
    const t0 = performance.now();
    for (const n of names) await run(n);
    return `${label} ${fmt((performance.now() - t0) / names.length, 2)} ms`;
  };
  const parts = [
    await timeIt('$collStats storageStats+count', (n) =>
      db.command({ aggregate: n, pipeline: [{ $collStats: { storageStats: {}, count: {} } }], cursor: {} }),
    ),
    await timeIt('listIndexes', (n) => db.command({ listIndexes: n })),
    await timeIt('count (no filter)', (n) => db.command({ count: n })),
  ];
  const t0 = performance.now();
  await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  parts.push(`listDatabases ${fmt(performance.now() - t0)} ms`);
  return `per command, one at a time over ${names.length} collections: ${parts.join('; ')}`;
}

interface Row {
  size: number;
  concurrency: number;
  wallS: number;
  collectS: number;
  roundTrips: number;
  inventoryS: number;
  inventoryRoundTrips: number;
  rssMB: number;
  heapMB: number;
  snapshotKB: number;
  snapshotBytes: number;
  deploymentBytes: number;
  findings: string;
  top: string;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = (stringArg(argv, 'sizes') ?? '1000,10000').split(',').map(Number);
  if (argv.includes('--seed-only')) return seedOnly(sizes);
  if (argv.includes('--audit')) return auditSizes(sizes, !argv.includes('--no-collect'));
  const lanes = (stringArg(argv, 'concurrency') ?? '4').split(',').map(Number);
  const docsEvery = Number(stringArg(argv, 'with-docs-every') ?? '100');
  const runCheck = !argv.includes('--probe-only');
  const server = await startServer({ order: serverOrder(argv), log: (l) => process.stderr.write(`${l}\n`) });
  console.log(`server: ${server.description}`);
  console.log(machine());
  const client = await MongoClient.connect(server.uri);
  const rows: Row[] = [];
  try {
    await client.db(DB).dropDatabase();
    for (const size of [...sizes].sort((a, b) => a - b)) {
      process.stderr.write(`seeding ${size.toLocaleString('en-US')} collections…\n`);
      await seed(client, size, docsEvery);
      console.log(`${size.toLocaleString('en-US')} collections, ${await probeCommands(client, size, 200)}`);
      for (const concurrency of runCheck ? lanes : []) {
        const r = await measureCheck(server.uri, size, concurrency);
        rows.push(r);
        printRow(r);
      }
    }
  } finally {
    await client
      .db(DB)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await server.stop();
  }
  console.log('');
  printTable(rows);
}

/** One check of the seeded database at `concurrency`, then the inventory collector alone on the same state. */
async function measureCheck(uri: string, size: number, concurrency: number): Promise<Row> {
  const adapter = new CountingAdapter(await MongoClient.connect(uri), uri);
  let snapshot: Snapshot | undefined;
  let collected = 0;
  const t0 = performance.now();
  const {
    value: result,
    rss,
    heap,
  } = await peakMemory(() =>
    check(adapter, {
      db: DB,
      confirm: false,
      concurrency,
      onSnapshot: (s) => {
        collected = performance.now();
        snapshot = s;
      },
    }),
  );
  const wall = performance.now() - t0;
  const roundTrips = adapter.roundTrips;
  const top = [...adapter.tally]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, 4)
    .map(([l, t]) => `${l} x${t.n.toLocaleString('en-US')} ${fmt(t.ms / 1000)} s`)
    .join('; ');
  // The inventory alone, on the snapshot just taken (it reads the same server state again). Alone it has no
  // listCollections of the checked database from the core, so it sends one more than in the run.
  const taken = snapshot as Snapshot;
  const before = adapter.roundTrips;
  const i0 = performance.now();
  await inventory.collect({
    adapter,
    server: taken.server,
    maxTimeMS: 10_000,
    serverStatus: null,
    note: () => undefined,
    run: new Map(),
    databases: taken.databases,
    databaseNames: null,
    listed: {},
  });
  const inventoryS = (performance.now() - i0) / 1000;
  const inRun = dataOf(inventory, snapshot);
  const byRule = new Map<string, number>();
  for (const f of result.findings)
    byRule.set(`${f.ruleId}/${f.messageId}`, (byRule.get(`${f.ruleId}/${f.messageId}`) ?? 0) + 1);
  const row: Row = {
    size,
    concurrency,
    wallS: wall / 1000,
    collectS: (collected - t0) / 1000,
    roundTrips,
    inventoryS,
    inventoryRoundTrips: inRun?.roundTrips ?? adapter.roundTrips - before,
    rssMB: rss / 2 ** 20,
    heapMB: heap / 2 ** 20,
    snapshotKB: Buffer.byteLength(JSON.stringify(snapshot)) / 1024,
    snapshotBytes: Buffer.byteLength(JSON.stringify(snapshot)),
    deploymentBytes: Buffer.byteLength(JSON.stringify(inRun ?? null)),
    findings:
      [...byRule]
        .map(([k, v]) => `${k} ${v}`)
        .filter((s) => s.startsWith('collection-count'))
        .join(', ') || 'none',
    top,
  };
  await adapter.close();
  return row;
}

function printRow(r: Row): void {
  console.log(
    `${r.size.toLocaleString('en-US')} collections, concurrency ${r.concurrency}: wall ${fmt(r.wallS)} s ` +
      `(collect ${fmt(r.collectS)} s), ${r.roundTrips.toLocaleString('en-US')} round trips, peak ` +
      `RSS ${fmt(r.rssMB)} MB, heap ${fmt(r.heapMB)} MB; inventory ${r.inventoryRoundTrips} round trips in the ` +
      `run, ${fmt(r.inventoryS)} s alone; snapshot ${r.snapshotBytes.toLocaleString('en-US')} B of which the ` +
      `inventory ${r.deploymentBytes.toLocaleString('en-US')} B; ${r.findings}`,
  );
  console.log(`  slowest commands: ${r.top}`);
}

function printTable(rows: readonly Row[]): void {
  console.log(
    markdownTable(
      [
        'collections',
        'concurrency',
        'wall s',
        'collect s',
        'round trips',
        'inventory s (alone)',
        'inventory round trips (in the run)',
        'peak RSS MB',
        'peak heap MB',
        'snapshot KB',
        'inventory B',
      ],
      rows.map((r) => [
        r.size.toLocaleString('en-US'),
        String(r.concurrency),
        fmt(r.wallS),
        fmt(r.collectS),
        r.roundTrips.toLocaleString('en-US'),
        fmt(r.inventoryS),
        String(r.inventoryRoundTrips),
        fmt(r.rssMB),
        fmt(r.heapMB),
        fmt(r.snapshotKB),
        r.deploymentBytes.toLocaleString('en-US'),
      ]),
    ),
  );
}

interface AuditRow {
  size: number;
  wallS: number;
  cpuS: number | null;
  listingS: number;
  /** The same bare listing again, right after the audit (the server's catalogue warm). */
  listingAfterS: number;
  roundTrips: number;
  peakRssMB: number | null;
  reportKB: number;
  snapshotKB: number | null;
  collectS: number | null;
  groups: string;
  realCollection: string;
}

/**
 * The server's bare listing, as the audit's first step sends it: listDatabases, then every database's listCollections
 * streamed in batches of LISTING_BATCH through the driver, nothing kept. What the audit cannot be faster than.
 */
async function bareListing(uri: string): Promise<number> {
  const client = await MongoClient.connect(uri);
  try {
    const t0 = performance.now();
    const dbs = (await client.db('admin').command({ listDatabases: 1, nameOnly: true })).databases as {
      name: string;
    }[];
    for (const { name } of dbs) {
      if (['admin', 'local', 'config'].includes(name)) continue;
      const cursor = client
        .db(name)
        .runCursorCommand({ listCollections: 1, authorizedCollections: true, cursor: { batchSize: LISTING_BATCH } });
      cursor.setBatchSize(LISTING_BATCH);
      while (await cursor.hasNext()) cursor.readBufferedDocuments();
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await client.close();
  }
}

type JsonFinding = { ruleId: string; messageId: string; message: string; target: { db: string; collection?: string } };

/**
 * Issue 29's "one real collection among the tenants": every finding `check -c orders` gives on mc_0.orders (50,000
 * tenants beside it at 100,000) is in the audit too. "n of n" when so, else the missing ones.
 */
async function realCollectionCheck(uri: string, dir: string, audit: readonly JsonFinding[]): Promise<string> {
  const file = path.join(dir, 'check-orders.json');
  const run = await runCli(['check', uri, '--db', 'mc_0', '-c', 'orders', '--no-confirm', '-f', 'json', '-o', file]);
  if (run.code !== 0 && run.code !== 1) return `check exited ${run.code}`;
  const key = (f: JsonFinding): string => `${f.ruleId}/${f.messageId} ${f.target.db}.${f.target.collection ?? ''}`;
  const alone = (JSON.parse(fs.readFileSync(file, 'utf8')) as { findings: JsonFinding[] }).findings.filter(
    (f) => f.target.collection === 'orders' && f.ruleId !== 'collection-count',
  );
  const got = new Set(audit.map(key));
  const missing = alone.filter((f) => !got.has(key(f)));
  return missing.length === 0
    ? `${alone.length} of ${alone.length}`
    : `missing ${missing.length} of ${alone.length}: ${missing.map(key).join(', ')}`;
}

/**
 * `audit --no-confirm` end to end (node dist/cli.cjs, built first) on the seeded stores (bench/lib/many-collections.ts:
 * mc_0 with half the tenants, mc_1 and mc_2 a quarter each, a real collection in each): the server's bare listing
 * (bareListing) before the audit (its first listing since it started: cold) and right after it (warm), and the
 * audit: wall time, CPU seconds of the CLI, round trips (the JSON report's `roundTrips`), peak RSS of the CLI process,
 * the report's size; then `check -c orders` of mc_0 against the audit's findings, then `collect` for the snapshot's
 * size (skip with --no-collect).
 */
async function auditSizes(sizes: readonly number[], collect: boolean): Promise<void> {
  console.log(machine());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mongo-advisor-bench-audit-'));
  const rows: AuditRow[] = [];
  for (const size of [...sizes].sort((a, b) => a - b)) {
    const server = await manyCollections(size);
    try {
      const listingS = await bareListing(server.uri);
      const report = path.join(dir, `audit-${size}.json`);
      const run = await runCli(['audit', server.uri, '--no-confirm', '-f', 'json', '-o', report]);
      if (run.code !== 0 && run.code !== 1) throw new Error(`audit exited ${run.code}: ${run.stderr}`);
      const result = JSON.parse(fs.readFileSync(report, 'utf8')) as { roundTrips: number; findings: JsonFinding[] };
      const groups = result.findings
        .filter((f) => f.ruleId === 'collection-count' && f.messageId.startsWith('tenantCollections'))
        .map(
          (f) => /^([\d,]+) collections in `([^`]+)` are named `([^`]+)`/.exec(f.message)?.slice(1, 4).join(' ') ?? '?',
        )
        .join('; ');
      const listingAfterS = await bareListing(server.uri);
      const realCollection = await realCollectionCheck(server.uri, dir, result.findings);
      let snapshotKB: number | null = null;
      let collectS: number | null = null;
      if (collect) {
        const file = path.join(dir, `snapshot-${size}.json`);
        const c = await runCli(['collect', server.uri, '-o', file]);
        if (c.code === 0) {
          snapshotKB = fs.statSync(file).size / 1024;
          collectS = c.wallS;
        } else console.log(`collect exited ${c.code}: ${c.stderr}`);
      }
      const row: AuditRow = {
        size,
        wallS: run.wallS,
        cpuS: run.cpuS,
        listingS,
        listingAfterS,
        roundTrips: result.roundTrips,
        peakRssMB: run.peakRssMB,
        reportKB: fs.statSync(report).size / 1024,
        snapshotKB,
        collectS,
        groups,
        realCollection,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    } finally {
      await server.stop();
    }
  }
  printAuditTable(rows);
  if (rows.some((r) => !/^(\d+) of \1$/.test(r.realCollection))) process.exitCode = 1;
}

function printAuditTable(rows: readonly AuditRow[]): void {
  console.log(
    markdownTable(
      [
        'collections',
        'bare listing s (before, after)',
        'audit wall s',
        'wall / listing after',
        'CLI CPU s',
        'round trips',
        'peak RSS MB',
        'JSON report KB',
        'collect s',
        'snapshot KB',
        'mc_0.orders findings in the audit',
      ],
      rows.map((r) => [
        r.size.toLocaleString('en-US'),
        `${fmt(r.listingS)}, ${fmt(r.listingAfterS)}`,
        fmt(r.wallS),
        `${fmt(r.wallS / r.listingAfterS)}x`,
        r.cpuS === null ? '—' : fmt(r.cpuS),
        r.roundTrips.toLocaleString('en-US'),
        r.peakRssMB === null ? '—' : fmt(r.peakRssMB),
        fmt(r.reportKB),
        r.collectS === null ? '—' : fmt(r.collectS),
        r.snapshotKB === null ? '—' : fmt(r.snapshotKB),
        r.realCollection,
      ]),
    ),
  );
  console.log(`tenant groups named (members, db, pattern): ${rows.map((r) => `${r.size}: ${r.groups}`).join(' | ')}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
