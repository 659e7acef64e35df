/**
 * Does the index proof repeat? Seeds the shop of issue 20 (test/support/shop-workload.ts) once, with `--orders`
 * orders, and runs query-indexes' check with confirmation `--runs` times over the same data and the same workload (the
 * shop's orders finds, as a slow-query log: no profiler needed), then prints per run the verdict, how many documents
 * the proof copied and why, keys + documents examined per call without → with the index, the time ratio with its
 * interval and the insert ratio; then whether the verdicts agree and how many pairs of runs have overlapping time
 * intervals (a proof that would not repeat is not yet a proof).
 *
 *   node bench/run.mjs index-proof [--runs 3] [--warmup-runs 1] [--orders 25000] [--budget 30]
 *     [--server secantusdb|ferretdb|mongodb-memory-server] [--docs N] [--json out.json]
 *
 * `--budget` is the confirmation budget per finding in seconds (`--confirm-budget`, default 30 as for check);
 * `--docs` sets the rule's `proofDocs` (default its default, 20,000). MONGODB_URI runs it on a server already running.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Readable } from 'node:stream';
import { MongoClient } from 'mongodb';
import rule from '../rules/query-indexes';
import { DriverAdapter } from '../src/adapters/driver';
import { check } from '../src/check';
import { formatRatioFigure, formatSignificant } from '../src/core/format';
import { intervalLabel } from '../src/core/stats';
import type { Finding } from '../src/core/types';
import { startServer } from '../src/servers/embedded';
import { readSlowQueryLog } from '../src/workload/log-reader';
import { seedShop, shopCommands, slowLogLines } from '../test/support/shop-workload';
import { fmt, intArg, machine, markdownTable, pairwiseOverlap, serverOrder, stringArg } from './lib/report';

const DB = 'mongo_advisor_bench_index_proof';

interface Seen {
  status: string;
  copied: string;
  why: string;
  examined: string;
  time: string;
  interval: { median: number; low: number; high: number } | null;
  insert: string;
  /** Why it is not supported, as its line says (counts and names only). */
  reason: string;
  seconds: number;
}

/** The shop's sorted orders finds, twice each, as a slow-query log of the bench database. */
async function workload(): Promise<{ from: string; records: readonly unknown[] }> {
  const finds = shopCommands()
    .map((c) => c.command)
    .filter((c) => c.find === 'orders' && c.sort !== undefined);
  const entries = [...finds, ...finds].map((command) => ({
    ns: `${DB}.orders`,
    command: { ...command, $db: DB },
    millis: 40,
  }));
  const { records } = await readSlowQueryLog(Readable.from([slowLogLines(entries).join('\n') + '\n']));
  return { from: 'the shop log', records };
}

/** What one confirmation showed, from its line and its brief (figures only: the proof prints no value). */
function seenOf(f: Finding): Seen {
  const c = f.confirmation;
  const copy = /^On ([\d,]+) copied documents \(([^)]+)\)/.exec(c?.summary ?? '');
  const r = c?.ratio;
  const interval =
    r && Number.isFinite(r.low) && Number.isFinite(r.high) ? { median: r.median, low: r.low, high: r.high } : null;
  const brief = c?.brief ?? '';
  return {
    status: c?.status ?? 'none',
    copied: copy?.[1] ?? '—',
    why: copy?.[2] ?? c?.reason ?? '—',
    examined: /examined ([\d,]+ → [\d,]+) per call/.exec(brief)?.[1] ?? '—',
    time: r ? formatRatioFigure(r, intervalLabel(r.coverage), [1]) : '—',
    interval,
    insert: /inserts (.+) with it/.exec(brief)?.[1] ?? '—',
    reason: /(?:, but |did not earn its place: )(.+)\.$/.exec(c?.summary ?? '')?.[1] ?? '',
    seconds: (c?.durationMs ?? 0) / 1000,
  };
}

async function runOnce(uri: string, budgetMs: number, docs: number | undefined): Promise<Seen> {
  const adapter = await DriverAdapter.connect(uri);
  try {
    const settings = docs ? { rules: { [rule.id]: { options: { proofDocs: docs } } } } : {};
    const result = await check(adapter, {
      rules: [rule],
      db: DB,
      confirm: true,
      budgetMs,
      settings,
      workload: await workload(),
      // The proof's phases with their seconds (counts only), to see where the budget goes.
      log: (line) => void (line.includes('index proof:') && process.stderr.write(`${line}\n`)),
    });
    const f = result.findings.find((x) => x.ruleId === rule.id && typeof x.evidence.proposed === 'string');
    if (!f) throw new Error('no index was proposed for the shop orders shape: nothing to prove');
    return seenOf(f);
  } finally {
    await adapter.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const runs = intArg(argv, 'runs', 3);
  const warmupRuns = Number(stringArg(argv, 'warmup-runs') ?? 1);
  const orders = intArg(argv, 'orders', 25_000);
  const budgetMs = intArg(argv, 'budget', 30) * 1000;
  const docsArg = stringArg(argv, 'docs');
  const docs = docsArg === undefined ? undefined : intArg(argv, 'docs', 1);
  const jsonOut = stringArg(argv, 'json');
  const server = await startServer({
    ...(serverOrder(argv) ? { order: serverOrder(argv) } : {}),
    log: (l) => process.stderr.write(`${l}\n`),
  });
  const seen: Seen[] = [];
  try {
    const client = await MongoClient.connect(server.uri);
    try {
      await client.db(DB).dropDatabase();
      await seedShop(client.db(DB), { orders, customers: 300, events: 100 });
      for (let i = -warmupRuns; i < runs; i++) {
        const s = await runOnce(server.uri, budgetMs, docs);
        const load = (loadavg()[0] ?? 0).toFixed(1);
        const label = i < 0 ? `warm-up ${i + warmupRuns + 1}/${warmupRuns} (not reported)` : `run ${i + 1}/${runs}`;
        process.stderr.write(`${label}: ${s.status}, ${s.seconds.toFixed(0)} s, load ${load}\n`);
        if (i >= 0) seen.push(s);
      }
    } finally {
      await client
        .db(DB)
        .dropDatabase()
        .catch(() => undefined);
      await client.close();
    }
  } finally {
    await server.stop();
  }
  report(seen, `${server.description}; ${fmt(orders, 0)} orders; budget ${budgetMs / 1000} s`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(seen, null, 2));
}

function report(seen: readonly Seen[], where: string): void {
  const rows = seen.map((s, i) => [
    String(i + 1),
    s.status,
    `${s.copied} (${s.why})`,
    s.examined,
    s.time,
    s.insert,
    `${s.seconds.toFixed(0)} s`,
    s.reason || '—',
  ]);
  console.log(`Index proof, ${seen.length} runs: ${where}; ${machine()}\n`);
  const header = ['run', 'verdict', 'copied', 'examined/call', 'time with/without', 'inserts', 'took', 'why not'];
  console.log(markdownTable(header, rows));
  const verdicts = new Set(seen.map((s) => s.status));
  const { overlapping, pairs } = pairwiseOverlap(seen.map((s) => s.interval));
  const medians = seen.flatMap((s) => (s.interval ? [s.interval.median] : []));
  const range = medians.length
    ? `${formatSignificant(Math.min(...medians))}x–${formatSignificant(Math.max(...medians))}x`
    : '—';
  console.log(
    `\nverdicts ${verdicts.size === 1 ? 'identical' : 'DIFFER'} (${[...verdicts].join(', ')}); ` +
      `time intervals overlapping in ${overlapping} of ${pairs} pairs; medians ${range}`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
