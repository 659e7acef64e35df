/**
 * Are the demo's confirmation verdicts stable? Seeds the demo's blog (src/demo/seed.ts) and runs the demo's check
 * with confirmation (`check()` from src/check.ts with the demo's settings, what `mongo-advisor demo` runs) `--runs`
 * times on one embedded server, reseeding before each run, then prints each finding's verdict per run, its ratio
 * and interval (with the interval's stated coverage), and whether all runs agree.
 *
 *   node bench/run.mjs confirm-stability [--runs 5] [--server secantusdb|ferretdb|mongodb-memory-server] [--json out.json]
 *
 * A run takes about as long as `mongo-advisor demo` (80 s on the shared 2-core machine).
 */
import { writeFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { rules } from '../rules';
import { DriverAdapter } from '../src/adapters/driver';
import { check } from '../src/check';
import { formatCoverage } from '../src/core/stats';
import type { Finding } from '../src/core/types';
import { DEMO_DB } from '../src/demo/run';
import { DEMO_SETTINGS, seedDemo } from '../src/demo/seed';
import { startServer } from '../src/servers/embedded';
import { fmt, intArg, machine, markdownTable, median, serverOrder, stringArg } from './lib/report';

interface Seen {
  status: string;
  ratio: string;
  trials: string;
  /** The experiment's wall time, seconds. */
  seconds: number;
}

const keyOf = (f: Finding): string => `${f.ruleId}/${f.messageId} ${f.target.db === DEMO_DB ? '' : `${f.target.db}.`}${f.target.collection ?? ''}${f.target.path ? ` ${f.target.path}` : ''}${f.target.index ? ` ${f.target.index}` : ''}`;

function ratioText(f: Finding): string {
  const r = f.confirmation?.ratio as ({ median: number; low: number; high: number; coverage?: number } | undefined);
  if (!r) return '—';
  const cov = r.coverage !== undefined ? ` @${formatCoverage(r.coverage)}` : '';
  return `${r.median.toFixed(2)} [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]${cov}`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const runs = intArg(argv, 'runs', 5);
  const jsonOut = stringArg(argv, 'json');
  const server = await startServer({ ...(serverOrder(argv) ? { order: serverOrder(argv) } : {}), log: (l) => process.stderr.write(`${l}\n`) });
  const perRun: Map<string, Seen>[] = [];
  const seconds: number[] = [];
  try {
    const client = await MongoClient.connect(server.uri);
    try {
      for (let i = 0; i < runs; i++) {
        await client.db(DEMO_DB).dropDatabase();
        await seedDemo(client, DEMO_DB);
        const adapter = await DriverAdapter.connect(server.uri);
        const t0 = performance.now();
        try {
          const result = await check(adapter, { db: DEMO_DB, rules, confirm: true, settings: DEMO_SETTINGS });
          const seen = new Map<string, Seen>();
          for (const f of result.findings) {
            const c = f.confirmation;
            if (!c) continue;
            const trials = c.measurements.filter((m) => m.unit === 'ms').map((m) => m.trials).join('/');
            seen.set(keyOf(f), { status: c.status, ratio: ratioText(f), trials: trials || '—', seconds: c.durationMs / 1000 });
          }
          perRun.push(seen);
        } finally {
          await adapter.close();
        }
        seconds.push((performance.now() - t0) / 1000);
        process.stderr.write(`run ${i + 1}/${runs}: ${seconds[i]?.toFixed(0)} s, ${perRun[i]?.size} confirmations\n`);
      }
    } finally {
      await client.db(DEMO_DB).dropDatabase().catch(() => undefined);
      await client.close();
    }
  } finally {
    await server.stop();
  }

  const keys = [...new Set(perRun.flatMap((m) => [...m.keys()]))].sort();
  const rows = keys.map((k) => {
    const statuses = perRun.map((m) => m.get(k)?.status ?? 'absent');
    const agree = statuses.every((s) => s === statuses[0]);
    return [k, ...statuses, agree ? 'yes' : 'NO'];
  });
  const ratioRows = keys.map((k) => {
    const secs = perRun.map((m) => m.get(k)?.seconds).filter((x): x is number => x !== undefined);
    return [k, ...perRun.map((m) => m.get(k)?.ratio ?? '—'), perRun[0]?.get(k)?.trials ?? '—', fmt(median(secs))];
  });
  const runCols = perRun.map((_, i) => `run ${i + 1}`);
  console.log(`# confirm-stability (${server.description}; ${runs} runs of the demo's check with confirmation)`);
  console.log(machine());
  console.log(`check wall time per run: ${seconds.map((s) => `${s.toFixed(0)} s`).join(', ')}`);
  console.log();
  console.log(markdownTable(['finding', ...runCols, 'all agree'], rows));
  console.log();
  console.log(`${rows.filter((r) => r[r.length - 1] === 'yes').length} of ${rows.length} findings have the same verdict in all ${runs} runs.`);
  console.log();
  console.log('Ratio (median [low, high] @ stated coverage) per run, the timed trials of run 1 per measurement, and the experiment\'s median wall time:');
  console.log();
  console.log(markdownTable(['finding', ...runCols, 'trials (run 1)', 'median s'], ratioRows));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ keys, perRun: perRun.map((m) => Object.fromEntries(m)), seconds }, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
