/**
 * Issue 27: `--log` is read while collect, check and audit talk to the server (src/cli/workload.ts
 * `alongsideWorkload`), and what the user sees is what reading the log first showed.
 *
 * The overlap is shown without timing: the log is a FIFO this test writes, so it cannot end before the test closes
 * it, and the collect must have listed the database (its commands answered by the server) while it is still open.
 * A log that fails while the collect runs stops the run with the log's message and closes the connection; a bad log
 * wins over an unreachable server, through the real CLI; an unreachable --scratch-uri ends audit and lint with its
 * message, their first connection closed. Not about the server: run on SecantusDB only (a skip on the other says so).
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, type WriteStream, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../src/adapters/driver';
import { alongsideWorkload } from '../src/cli/workload';
import { collectDeployment } from '../src/cli/deployment';
import { queryWorkload } from '../src/collect/workload';
import { dataOf } from '../src/core/collector';
import type { Snapshot } from '../src/core/types';
import { Terminal } from './support/pty';
import { runProcess } from './support/run';
import { useLiveDb } from './support/live-db';
import { seedOpenOrders } from './support/seed';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
/** src/cli/bin.ts LINGER_MS (not importable: bin.ts runs the CLI): a process still held past it is cut off. */
const LINGER_MS = 500;
const DB = 'mongo_advisor_test_workload_overlap';
const kind = inject('serverKind');
const onServer = kind === 'secantusdb';
if (!onServer) console.log(`[workload-overlap] skipped on ${kind}: the overlap is the CLI's, not the server's`);

/** A slow-query line of MongoDB's JSON log (id 51803), a find on orders by status. */
function slowQuery(i: number): string {
  const command = { find: 'orders', filter: { status: 'open' }, $db: DB };
  const attr = {
    type: 'command',
    ns: `${DB}.orders`,
    command,
    durationMillis: 150 + (i % 50),
    planSummary: 'COLLSCAN',
  };
  const t = { $date: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)).toISOString() };
  return `${JSON.stringify({ t, s: 'I', c: 'COMMAND', id: 51803, ctx: 'conn1', msg: 'Slow query', attr })}\n`;
}
const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => slowQuery(from + i)).join('');

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref()),
  ]);
}

describe.runIf(onServer)('--log read while the server work runs', () => {
  const live = useLiveDb(DB, seedOpenOrders);
  const uri = live.uri;
  const dir = mkdtempSync(join(tmpdir(), 'ma-overlap-'));
  let n = 0;
  const fifo = (): string => {
    const f = join(dir, `log-${++n}.fifo`);
    execFileSync('mkfifo', [f]);
    return f;
  };
  const write = (w: WriteStream, text: string): Promise<void> =>
    new Promise((resolve, reject) => w.write(text, (err) => (err ? reject(err) : resolve())));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** alongsideWorkload as collect runs it, on the test's database, with the workload collector only. */
  function start(log: string, flags: { maxLogLines?: number } = {}) {
    const err: string[] = [];
    const io = { out: () => undefined, err: (s: string) => void err.push(s), isTTY: false };
    let listed!: () => void;
    const listedOnce = new Promise<void>((resolve) => (listed = resolve));
    let adapter: DriverAdapter | undefined;
    // a progress bar that records what it was asked to draw
    const drawn: string[] = [];
    // what collectDeployment tells its caller's onListed, beside its own bar (src/cli/deployment.ts)
    const listedTotals: number[] = [];
    const bar = {
      stage: (label: string, total: number) => void drawn.push(`${label} ${total}`),
      tick: () => void drawn.push('tick'),
      stop: () => void drawn.push('stop'),
    };
    const run = alongsideWorkload({ log, ...flags }, io, async (r) => {
      adapter = r.own(await DriverAdapter.connect(uri));
      // said before the log ends: held, then said after the log's summary
      r.io.err('said by the server work');
      try {
        return await collectDeployment(adapter, {
          dbs: [DB],
          collectors: [queryWorkload],
          ...(r.workload ? { workload: r.workload } : {}),
          onCollection: () => listed(),
          onListed: (total) => void listedTotals.push(total),
          progress: r.progress(bar),
        });
      } finally {
        await adapter.close();
      }
    });
    return { run, err, drawn, listedTotals, listed: listedOnce, adapter: () => adapter };
  }

  it('lists and samples before the log ends, waits for it, then folds every line into the snapshot', async () => {
    const log = fifo();
    const s = start(log);
    const w = createWriteStream(log);
    await write(w, lines(0, 150));
    // The log cannot end before w does: the collect's commands were answered while it was being read.
    await within(s.listed, 60_000, 'the collect reading a collection while the log is open');
    expect(s.err.join('\n')).not.toMatch(/lines read/);
    expect(s.err).not.toContain('said by the server work');
    // the collection was read, yet the bar not drawn: the log's line is the only one on the terminal meanwhile
    expect(s.drawn).toEqual([]);
    await write(w, lines(150, 150));
    await new Promise<void>((resolve) => w.end(resolve));
    const snapshot: Snapshot = await within(s.run, 60_000, 'the collect after the log ended');
    const data = dataOf(queryWorkload, snapshot.databases[0]);
    const shapes = data?.collections.flatMap((c) => c.shapes) ?? [];
    expect(shapes.map((x) => x.calls)).toEqual([300]);
    // the log's summary first, then what the server work said meanwhile
    const summary = s.err.findIndex((l) => l.includes('300 lines read'));
    expect(summary, s.err.join('\n')).toBeGreaterThanOrEqual(0);
    expect(s.err.indexOf('said by the server work')).toBeGreaterThan(summary);
    // then drawn from where the collect stood: its stage, one tick per collection, stopped
    expect(s.drawn).toEqual(['collecting 1', 'tick', 'stop']);
    // and the caller's onListed was told the same total (collectDeployment's own bar does not replace it)
    expect(s.listedTotals).toEqual([1]);
  }, 120_000);

  it('a log failing while the collect runs: its message, the connection closed, nothing of the work said', async () => {
    const log = fifo();
    const s = start(log, { maxLogLines: 200 });
    const w = createWriteStream(log);
    await write(w, lines(0, 50));
    await within(s.listed, 60_000, 'the collect reading a collection while the log is open');
    // past --max-log-lines while the collect is under way
    const failed = s.run.then(
      () => null,
      (e: unknown) => e as Error,
    );
    await write(w, lines(50, 300)).catch(() => undefined);
    const error = await within(failed, 60_000, 'the run stopping at the cap');
    w.destroy();
    expect(error?.name).toBe('UserError');
    expect(error?.message).toMatch(/^The log \S+log-\d+\.fifo was read up to its cap and not further: /);
    expect(error?.message).toContain('--max-log-lines (now 200)');
    expect(s.err).not.toContain('said by the server work');
    expect(s.drawn).toEqual([]);
    // closed by the run, not by the work (still waiting for the log when it failed)
    await expect(s.adapter()?.command('admin', { ping: 1 })).rejects.toThrow(/must be connected|closed/i);
  }, 120_000);

  it("on a terminal: the log's line, its summary, then the bar, never drawn over each other", async () => {
    const log = join(dir, 'terminal.log');
    writeFileSync(log, lines(0, 3_000));
    const out = join(dir, 'terminal.json');
    const t = new Terminal(process.execPath, [CLI, 'collect', uri, '--db', DB, '--log', log, '-o', out]);
    const { code } = await within(t.exited, 60_000, 'collect on a terminal');
    const shown = t.output;
    expect(code, shown).toBe(0);
    const summary = shown.indexOf('3000 lines read');
    const bar = shown.indexOf('collecting');
    expect(summary, shown).toBeGreaterThan(0);
    expect(bar, shown).toBeGreaterThan(summary);
    expect(shown.lastIndexOf('reading the log')).toBeLessThan(summary);
  }, 120_000);

  describe('through the real CLI: the log wins, as when it was read first', () => {
    const bad = join(dir, 'core.bin');
    const good = join(dir, 'good.log');
    let closedPort = 0;
    beforeAll(async () => {
      const bytes = Buffer.alloc(100_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 3)) % 256;
      writeFileSync(bad, bytes);
      writeFileSync(good, lines(0, 40));
      // a port nothing listens on: bound, then closed
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closedPort = (server.address() as { port: number }).port;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const cli = (args: string[]) => runProcess(process.execPath, [CLI, ...args], { timeoutMs: 60_000 });
    const notJson = /^mongo-advisor: The log \S+core\.bin is not MongoDB's JSON log: /;

    it('a bad log, the server reachable: collect and audit say what check says (exit 2, one line)', async () => {
      for (const command of [['collect'], ['audit', '--no-confirm', '-o', join(dir, 'audit.md'), '-f', 'markdown']]) {
        const r = await cli([command[0] as string, uri, '--db', DB, ...command.slice(1), '--log', bad, '-q']);
        expect(r.code, r.err).toBe(2);
        expect(r.out).toBe('');
        expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
        expect(r.err.trim()).toMatch(notJson);
      }
    }, 120_000);

    it('audit and lint, the --scratch-uri unreachable: its message, exit 2, and the process ends with it', async () => {
      // refused at once: a short selection timeout loses nothing of the message
      const down = `mongodb://127.0.0.1:${closedPort}/?serverSelectionTimeoutMS=300`;
      const scratch = ['--db', DB, '--confirm', '--scratch-uri', down, '-q'];
      // audit with and without a log, lint: the connection to the server was left open, and the process then lingered
      // until the CLI's exit cut it off (LINGER_MS after the message; about 30-60 ms once closed)
      const runs = [
        ['audit', uri, ...scratch, '-o', join(dir, 'x.md')],
        ['audit', uri, ...scratch, '-o', join(dir, 'x.md'), '--log', good],
        ['lint', uri, ...scratch],
      ];
      for (const args of runs) {
        const t0 = Date.now();
        let saidAt = -1;
        const r = await runProcess(process.execPath, [CLI, ...args], {
          timeoutMs: 60_000,
          onErr: () => void (saidAt = saidAt < 0 ? Date.now() : saidAt),
        });
        const lingered = Date.now() - saidAt;
        const what = `${args[0] ?? ''}${args.includes('--log') ? ' --log' : ''}`;
        console.log(`[workload-overlap] ${what}: exit ${lingered} ms after the message, ${Date.now() - t0} ms in all`);
        expect(r.code, r.err).toBe(2);
        expect(r.err.trim().split('\n').at(-1), what).toMatch(
          new RegExp(
            `^mongo-advisor: Could not reach the --scratch-uri server at mongodb://127\\.0\\.0\\.1:${closedPort}/: .*check that`,
          ),
        );
        expect(r.err).not.toMatch(/This is a bug|^\s+at /m);
        expect(lingered, what).toBeLessThan(LINGER_MS / 2);
      }
    }, 120_000);

    it('a bad log, the server unreachable: the log is named, not the connection', async () => {
      const down = `mongodb://127.0.0.1:${closedPort}/?serverSelectionTimeoutMS=1500`;
      for (const command of ['collect', 'check']) {
        const r = await cli([command, down, '--db', DB, '--log', bad, '-q']);
        expect(r.code, r.err).toBe(2);
        expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
        expect(r.err.trim()).toMatch(notJson);
      }
      // a good log with the server down: its summary, then the connection's error
      const r = await cli(['collect', down, '--db', DB, '--log', good]);
      expect(r.code, r.err).toBe(2);
      const said = r.err.trim().split('\n');
      expect(said[0]).toMatch(/good\.log: 40 lines read, 40 slow queries/);
      expect(said.at(-1)).toMatch(/^mongo-advisor: Could not connect|^mongo-advisor: .*127\.0\.0\.1/);
    }, 120_000);
  });
});
