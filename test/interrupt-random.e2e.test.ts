import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksums, scratchDbs, useInterruptSource } from './support/scratch';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_interrupt_random';
/**
 * Interrupted runs. Every phase of a confirmation is interrupted deterministically, with each signal, by
 * test/interrupt.e2e.test.ts (SecantusDB) and test/mongosh-interrupt.e2e.test.ts; this file adds moments no hook names,
 * on FerretDB (test/projects.ts), so the CLI's interrupt is also proved live on the other server. Each moment is drawn
 * over the confirmation of a whole run measured first on this machine (from the scratch database's announcement to the
 * run's end): a moment before it leaves nothing to leak, one after it interrupts nothing. The source is the interrupt
 * tests' small one (every rule on): collecting the demo blog took most of each run on FerretDB.
 */
const RUNS = 5;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const scratchOf = (err: string): string | undefined =>
  /scratch database (mongo_advisor_scratch_[0-9a-f]+)/.exec(err)?.[1];

interface Run {
  code: number | null;
  err: string;
  /** From the start to the exit, and to the moment stderr named the scratch database (undefined: it never did). */
  ms: number;
  confirmingAt?: number;
}

/** The real CLI checking the whole blog with short budgets, signalled `signal` after `delay` ms (none: never). */
async function check(uri: string, signal?: NodeJS.Signals, delay = 0): Promise<Run> {
  const args = [CLI, 'check', uri, '--db', DB, '--confirm-budget', '2', '--confirm-docs', '100', '-f', 'json'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const started = performance.now();
  let err = '';
  let confirmingAt: number | undefined;
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (confirmingAt === undefined && scratchOf(err)) confirmingAt = performance.now() - started;
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const timer = signal ? setTimeout(() => child.kill(signal), delay) : undefined;
  const code = await closed;
  clearTimeout(timer);
  return { code, err, ms: performance.now() - started, ...(confirmingAt !== undefined ? { confirmingAt } : {}) };
}

describe(`${RUNS} interrupts at random moments (real CLI) leave no scratch database`, () => {
  const uri = liveUri();
  const src = useInterruptSource(uri, DB);
  const listed = async (name: string): Promise<boolean> => (await scratchDbs(src.client)).includes(name);

  it(`a whole run, then ${RUNS} runs each signalled (SIGINT, SIGTERM or SIGHUP) at a random moment of it`, async () => {
    // the whole run: it confirms (a scratch database), drops it, and sets the span the moments are drawn from
    const whole = await check(uri);
    const first = scratchOf(whole.err);
    expect(first, whole.err).toBeDefined();
    expect(whole.code, whole.err).not.toBeNull();
    expect(await listed(first as string), whole.err).toBe(false);
    const from = whole.confirmingAt ?? 0;
    const leaks: string[] = [];
    const moments: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const signal = SIGNALS[i % SIGNALS.length] as NodeJS.Signals;
      // anywhere from the scratch database's announcement to the last experiment's cleanup
      const delay = Math.floor(from + Math.random() * (whole.ms - from));
      const run = await check(uri, signal, delay);
      const name = scratchOf(run.err);
      moments.push(
        `${signal} at ${delay} ms: exit ${String(run.code)}, ${name ? 'confirming' : 'before confirmation'}`,
      );
      if (name && (await listed(name)))
        leaks.push(`run ${i} (${signal} at ${delay} ms, exit ${String(run.code)}): ${name}\n${run.err}`);
    }
    console.log(
      `interrupt-random: whole run ${Math.round(whole.ms)} ms, confirming from ${Math.round(from)} ms; ` +
        moments.join('; '),
    );
    expect(leaks, leaks.join('\n')).toEqual([]);
    expect(await checksums(src.client, DB)).toEqual(src.before);
  }, 600_000);
});
