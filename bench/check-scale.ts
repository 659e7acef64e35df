/**
 * Wall time and round trips of `check --no-confirm` on one collection as it grows (10k, 100k, 1M posts).
 *
 *   npm run bench:check-scale -- [--sizes 10000,100000,1000000] [--runs 3] [--max-comments 5]
 *                                [--batch 10000] [--seed-budget-min 10] [--server secantusdb|ferretdb]
 *
 * The server is the embedded one (src/servers/embedded.ts): MONGODB_URI if set, else the first of --server
 * (default: mongodb-memory-server, SecantusDB, FerretDB) that starts; the first line printed names it. Round trips are
 * counted twice: by the advisor (Adapter.roundTrips, what the CLI reports) and by the driver's command monitoring
 * (CommandStartedEvent), the honest count of what went on the wire.
 */
import {
  Long,
  MongoClient,
  ObjectId,
  UUID,
  type CommandFailedEvent,
  type CommandStartedEvent,
  type CommandSucceededEvent,
} from 'mongodb';
import { performance } from 'node:perf_hooks';
import type { Adapter, BsonKit, Doc } from '../src/adapters/types';
import { check } from '../src/index';
import type { Snapshot } from '../src/core/types';
import { startServer, type RunningServer } from '../src/servers/embedded';
import { blogPosts } from './lib/blog';
import { fmt, intArg, machine, markdownTable, median, serverOrder, stringArg } from './lib/report';

const DB = 'mongo_advisor_bench_check_scale';
const COLL = 'posts';

const bson: BsonKit = {
  objectId: () => new ObjectId(),
  uuid: (hex) => new UUID(hex),
  long: (v) => Long.fromString(String(v)),
};

/** A command as the bench names it: `aggregate $collStats`, `find _id (natural order)`, `getMore (find (sample))`. */
function labelOf(name: string, cmd: Doc, cursors: Map<string, string>): string {
  switch (name) {
    case 'aggregate': {
      const first = (cmd.pipeline as Doc[] | undefined)?.[0];
      return `aggregate ${first ? (Object.keys(first)[0] ?? '') : ''}`.trim();
    }
    case 'find': {
      const proj = cmd.projection as Doc | undefined;
      return proj && Object.keys(proj).length === 1 && proj._id === 1 ? 'find _id (natural order)' : 'find (sample)';
    }
    case 'getMore':
      return `getMore (${cursors.get(idString(cmd.getMore)) ?? 'unknown cursor'})`;
    default:
      return name;
  }
}

function idString(id: unknown): string {
  return typeof id === 'number' || typeof id === 'bigint' || id instanceof Long ? id.toString() : '?';
}

/** Whether a command reads the bench collection (rather than the server or the database). */
function targetsCollection(cmd: Doc): boolean {
  const first = Object.values(cmd)[0];
  if (first === COLL || cmd.collection === COLL) return true;
  return typeof first === 'object' && first !== null && Object.values(first as Doc)[0] === COLL; // explain
}

interface Sent {
  label: string;
  onCollection: boolean;
  /** The driver's duration for the command: the wire and the server. */
  ms: number;
}

/**
 * The advisor's driver adapter (src/adapters/driver.ts) over a client with command monitoring on, so every
 * command the driver sends is seen. Same command path: `db(name).command(cmd)`.
 */
class MonitoredAdapter implements Adapter {
  readonly kind = 'driver' as const;
  readonly bson = bson;
  readonly source: string;
  private count = 0;
  /** Commands started while `recording`. */
  events: Sent[] = [];
  recording = false;
  private readonly cursors = new Map<string, string>();
  private readonly started = new Map<number, Sent>();

  constructor(
    private readonly client: MongoClient,
    source: string,
  ) {
    this.source = source;
    client.on('commandStarted', (ev: CommandStartedEvent) => {
      if (!this.recording) return;
      const label = labelOf(ev.commandName, ev.command, this.cursors);
      const sent: Sent = { label, onCollection: targetsCollection(ev.command), ms: 0 };
      this.events.push(sent);
      this.started.set(ev.requestId, sent);
    });
    const done = (ev: CommandSucceededEvent | CommandFailedEvent): Sent | undefined => {
      const sent = this.started.get(ev.requestId);
      this.started.delete(ev.requestId);
      if (sent) sent.ms = ev.duration;
      return sent;
    };
    client.on('commandFailed', done);
    client.on('commandSucceeded', (ev: CommandSucceededEvent) => {
      const sent = done(ev);
      const id = idString((ev.reply as { cursor?: { id?: unknown } } | undefined)?.cursor?.id);
      if (sent && id !== '?' && id !== '0') this.cursors.set(id, sent.label.replace(/^getMore \((.*)\)$/, '$1'));
    });
  }

  get roundTrips(): number {
    return this.count;
  }

  async command(db: string, cmd: Doc): Promise<Doc> {
    this.count++;
    return await this.client.db(db).command(cmd);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

interface RunFigures {
  wallMs: number;
  collectMs: number;
  adapterRoundTrips: number;
  events: Sent[];
  sampleSize: number;
  sampleMethod: string;
  findings: number;
}

/**
 * Per server and database: everything before the first per-collection command (server facts, database and
 * collection lists, the capability probes), and later commands that do not read the collection.
 */
function split(events: readonly Sent[]): { fixed: Sent[]; perCollection: Sent[] } {
  const at = events.findIndex((e) => e.label === 'aggregate $collStats');
  const fixed: Sent[] = [];
  const perCollection: Sent[] = [];
  events.forEach((e, i) => (at >= 0 && i >= at && e.onCollection ? perCollection : fixed).push(e));
  return { fixed, perCollection };
}

/** `find (sample) 12 ms, getMore (find (sample)) x16 230 ms, …` in order of first use. */
function tally(sent: readonly Sent[]): string {
  const by = new Map<string, { n: number; ms: number }>();
  for (const e of sent) {
    const t = by.get(e.label) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += e.ms;
    by.set(e.label, t);
  }
  return [...by].map(([l, t]) => `${l}${t.n > 1 ? ` x${t.n}` : ''} ${fmt(t.ms)} ms`).join(', ');
}

async function seedTo(
  client: MongoClient,
  target: number,
  have: number,
  opts: { maxComments: number; batch: number },
): Promise<number> {
  const coll = client.db(DB).collection(COLL);
  const make = blogPosts({ maxComments: opts.maxComments, seed: 11 });
  for (let from = have; from < target; from += opts.batch) {
    const upto = Math.min(target, from + opts.batch);
    const docs = [];
    for (let i = from; i < upto; i++) docs.push(make(i));
    await coll.insertMany(docs, { ordered: false });
  }
  return target;
}

async function oneCheck(adapter: MonitoredAdapter, sampleSize: number | undefined): Promise<RunFigures> {
  adapter.events = [];
  const before = adapter.roundTrips;
  let snapshot: Snapshot | undefined;
  let collectedAt = 0;
  adapter.recording = true;
  const t0 = performance.now();
  const result = await check(adapter, {
    db: DB,
    confirm: false,
    ...(sampleSize === undefined ? {} : { sampleSize }),
    onSnapshot: (s) => {
      collectedAt = performance.now();
      snapshot = s;
    },
  });
  const wallMs = performance.now() - t0;
  adapter.recording = false;
  const sample = snapshot?.databases[0]?.collections[0]?.sample;
  return {
    wallMs,
    collectMs: collectedAt - t0,
    adapterRoundTrips: adapter.roundTrips - before,
    events: adapter.events,
    sampleSize: sample?.size ?? 0,
    sampleMethod: sample?.method ?? 'none',
    findings: result.findings.length,
  };
}

interface Measured {
  size: number;
  /** undefined: the product's default rule. */
  sampling: number | undefined;
  runs: RunFigures[];
}

const n = (x: number): string => x.toLocaleString('en-US');

function parseSizes(v: string): number[] {
  const sizes = v.split(',').map((s) => {
    const x = Number(s.trim().replace(/_/g, '').replace(/k$/i, '000').replace(/m$/i, '000000'));
    if (!Number.isInteger(x) || x <= 0)
      throw new Error(
        `--sizes wants positive integers separated by commas (10000,100000 or 10k,1m), got ${JSON.stringify(s)}`,
      );
    return x;
  });
  return sizes.sort((a, b) => a - b);
}

function report(results: readonly Measured[], seeding: ReadonlyMap<number, string>, skipped: readonly string[]): void {
  const rows = results.map((m) => {
    const last = m.runs.at(-1) as RunFigures;
    const { fixed, perCollection } = split(last.events);
    const agree = m.runs.every((f) => f.events.length === f.adapterRoundTrips);
    return [
      n(m.size),
      seeding.get(m.size) ?? '',
      m.sampling === undefined ? 'default rule' : `fixed ${n(m.sampling)}`,
      `${n(last.sampleSize)} (${last.sampleMethod})`,
      fmt(median(m.runs.map((f) => f.wallMs))),
      fmt(median(m.runs.map((f) => f.collectMs))),
      fmt(median(m.runs.map((f) => f.events.reduce((t, e) => t + e.ms, 0)))),
      fmt(median(m.runs.map((f) => f.wallMs - f.events.reduce((t, e) => t + e.ms, 0)))),
      String(fixed.length),
      String(perCollection.length),
      `${median(m.runs.map((f) => f.events.length))}${agree ? '' : ` (advisor counted ${last.adapterRoundTrips})`}`,
    ];
  });
  console.log('');
  console.log(
    markdownTable(
      [
        'documents',
        'seeding',
        'sampling',
        'sample (method)',
        'check wall ms',
        'collect ms',
        'in commands ms',
        'in process ms',
        'RT server+db',
        'RT per collection',
        'RT total',
      ],
      rows,
    ),
  );
  console.log('');
  for (const m of results) {
    const { fixed, perCollection } = split((m.runs.at(-1) as RunFigures).events);
    const tag = `${n(m.size)} docs, ${m.sampling === undefined ? 'default sample' : `fixed sample ${n(m.sampling)}`}`;
    console.log(`- ${tag}: per server/database (${fixed.length}): ${tally(fixed)}`);
    console.log(`- ${tag}: per collection (${perCollection.length}): ${tally(perCollection)}`);
  }
  for (const s of skipped) console.log(`- skipped ${s}`);
  for (const series of [undefined, ...new Set(results.map((m) => m.sampling).filter((x) => x !== undefined))]) {
    const ms = results.filter((m) => m.sampling === series);
    if (ms.length < 2) continue;
    const first = ms[0] as Measured;
    const last = ms.at(-1) as Measured;
    const ratio = median(last.runs.map((f) => f.wallMs)) / median(first.runs.map((f) => f.wallMs));
    console.log(
      `- wall time, ${series === undefined ? 'default sample' : `fixed sample ${n(series)}`}: ${n(last.size)} ` +
        `vs ${n(first.size)} documents ${ratio.toFixed(2)}x (target: within ` +
        `1.5x) ${ratio <= 1.5 ? 'MET' : 'NOT MET'}`,
    );
  }
  const perColl = results.map((m) => split((m.runs.at(-1) as RunFigures).events).perCollection.length);
  console.log(
    `- round trips per collection: ${perColl.join(', ')} (target: at most ` +
      `6) ${perColl.every((x) => x <= 6) ? 'MET' : 'NOT MET'}`,
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = parseSizes(stringArg(argv, 'sizes') ?? '10000,100000,1000000');
  const runs = intArg(argv, 'runs', 3);
  const maxComments = intArg(argv, 'max-comments', 5);
  const batch = intArg(argv, 'batch', 10_000);
  const budgetMs = intArg(argv, 'seed-budget-min', 10) * 60_000;
  const fixedSample = stringArg(argv, 'fixed-sample') === '0' ? undefined : intArg(argv, 'fixed-sample', 400);

  console.log('# check-scale');
  console.log(machine());
  const server: RunningServer = await startServer({
    order: serverOrder(argv),
    log: (l) => process.stderr.write(`${l}\n`),
  });
  console.log(`server: ${server.description}`);
  const seeder = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
  const adapter = new MonitoredAdapter(
    new MongoClient(server.uri, { monitorCommands: true, serverSelectionTimeoutMS: 10_000, appName: 'mongo-advisor' }),
    server.description,
  );
  const results: Measured[] = [];
  const seeding = new Map<number, string>();
  const skipped: string[] = [];
  try {
    await seeder.connect();
    await seeder.db(DB).dropDatabase();
    console.log(
      `collection ${DB}.${COLL}: blog posts (title, author, tags, createdAt, views, score, published) with ` +
        `0-${maxComments} comments each, ` +
        (`inserted with insertMany in batches of ${n(batch)}; per size, ${runs} runs of check (confirm off) ` +
          `with the default ` +
          `sample${fixedSample ? ` and ${runs} with a fixed sample of ${n(fixedSample)}` : ''}; medians ` +
          `reported`),
    );
    let have = 0;
    let rate = 0; // docs/s of the last seeding step
    for (const size of sizes) {
      if (rate > 0 && ((size - have) / rate) * 1000 > budgetMs) {
        const min = (size - have) / rate / 60;
        skipped.push(
          `${n(size)}: seeding ${n(size - have)} more documents would take about ${min.toFixed(0)} min at ` +
            `the ${fmt(rate)} docs/s measured (budget ${budgetMs / 60_000} min, --seed-budget-min)`,
        );
        continue;
      }
      const added = size - have;
      const s0 = performance.now();
      have = await seedTo(seeder, size, have, { maxComments, batch });
      const seedMs = performance.now() - s0;
      rate = (added / seedMs) * 1000;
      seeding.set(size, `+${n(added)} in ${fmt(seedMs / 1000)} s (${n(Math.round(rate))}/s)`);
      process.stderr.write(`seeded to ${n(size)} (+${n(added)} in ${fmt(seedMs / 1000)} s, ${fmt(rate)} docs/s)\n`);

      for (const sampling of fixedSample === undefined ? [undefined] : [undefined, fixedSample]) {
        const m: Measured = { size, sampling, runs: [] };
        for (let r = 0; r < runs; r++) {
          const f = await oneCheck(adapter, sampling);
          m.runs.push(f);
          process.stderr.write(
            `  check ${r + 1}/${runs} ` +
              `(${sampling === undefined ? 'default sample' : `sample ${sampling}`}): ${fmt(f.wallMs)} ms ` +
              `(collect ${fmt(f.collectMs)} ms), ${f.events.length} commands, sample ${f.sampleSize}\n`,
          );
        }
        results.push(m);
      }
    }
  } finally {
    await seeder
      .db(DB)
      .dropDatabase()
      .catch(() => undefined);
    await seeder.close().catch(() => undefined);
    await adapter.close().catch(() => undefined);
    await server.stop();
  }
  report(results, seeding, skipped);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
