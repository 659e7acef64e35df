/**
 * A confirming run is never silent for long where no progress bar is drawn: the real CLI with stderr on a pipe, and
 * the real mongosh (which prints nothing while a promise runs). Each experiment gets one line with its number and
 * budget as it starts; the gaps between lines are measured as they arrive. (The beat a long step gets is pinned in
 * test/cli-progress.test.ts, where a step can be made to last.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { HEARTBEAT_MS } from '../src/lib/heartbeat';
import { rulesOff, rulesOffConfig } from './support/rules-off';
import { type ProcessResult, runProcess } from './support/run';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');
const BUDGET_S = 8;
/**
 * The one rule whose experiment runs: array-growth's on posts outlasts a heartbeat within the budget. Each further
 * experiment would add its budget and show nothing new about the lines (one per experiment, whatever the rule).
 */
const KEEP = 'array-growth';
const RULES = rulesOff(KEEP);
/** The CLI's configuration holding RULES. */
const dir = mkdtempSync(join(tmpdir(), 'ma-progress-'));
const config = rulesOffConfig(dir, 'rules.json', KEEP);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The longest silence allowed: a beat's interval plus slack for a machine shared with other test files. */
const MAX_GAP_MS = HEARTBEAT_MS + 4_000;

interface Timed extends ProcessResult {
  /** Milliseconds between the first line on stderr, each chunk after it, and the end (a program's start is not
   * ours). */
  gaps: number[];
}

async function timed(cmd: string, args: string[]): Promise<Timed> {
  const stamps: number[] = [];
  const r = await runProcess(cmd, args, {
    timeoutMs: 300_000,
    env: { MONGODB_URI: '', MONGOSH_NO_UPDATE_CHECK: '1' },
    onErr: () => stamps.push(Date.now()),
  });
  stamps.push(Date.now());
  return { ...r, gaps: stamps.slice(1).map((t, i) => t - (stamps[i] as number)) };
}

interface Confirmed {
  findings: { ruleId: string; confirmation?: { durationMs: number } }[];
}

/** What every confirming run must show on stderr, given the JSON report it printed. */
function expectProgress(run: Timed, report: Confirmed): void {
  const ran = report.findings.filter((f) => f.confirmation && f.confirmation.durationMs > 0);
  expect(ran.length, run.err).toBeGreaterThan(0);
  const starts = run.err.match(/^confirming \d+ of \d+: [\w-]+ on .+, budget \d+ s$/gm) ?? [];
  expect(starts.length, run.err).toBe(ran.length);
  expect(run.err).toContain(`budget ${BUDGET_S} s`);
  // The drop is a step of its own, after the last experiment: no beat names a finished experiment during it.
  const lines = run.err.split('\n');
  const drop = lines.findIndex((l) => /^dropping the scratch database mongo_advisor_scratch_/.test(l));
  const lastStart = lines.map((l) => /^confirming \d+ of/.test(l)).lastIndexOf(true);
  expect(drop, run.err).toBeGreaterThan(lastStart);
  expect(
    Math.max(...run.gaps),
    `gaps between stderr lines (ms): ${run.gaps.join(', ')}\n${run.err}`,
  ).toBeLessThanOrEqual(MAX_GAP_MS);
}

describe('progress where no bar is drawn (real CLI on a pipe, real mongosh)', () => {
  const uri = liveUri();

  it('check with stderr on a pipe: one line per experiment with its budget, never silent for long', async () => {
    const run = await timed(process.execPath, [
      CLI,
      'check',
      uri,
      '--db',
      DB,
      '-c',
      'posts',
      '-f',
      'json',
      '--confirm-budget',
      String(BUDGET_S),
      '--config',
      config,
    ]);
    expect(run.code === 0 || run.code === 1, run.err).toBe(true);
    expect(run.err).toMatch(new RegExp(`^collecting ${DB}`, 'm'));
    // No colour codes on a pipe.
    expect(run.err).not.toContain('\x1b[');
    expectProgress(run, JSON.parse(run.out) as Confirmed);
  }, 300_000);

  it('-q keeps stderr free of progress lines', async () => {
    const run = await timed(process.execPath, [
      CLI,
      'check',
      uri,
      '--db',
      DB,
      '-c',
      'events',
      '-q',
      '--no-confirm',
      '-f',
      'json',
    ]);
    expect(run.code === 0 || run.code === 1, run.err).toBe(true);
    expect(run.err).not.toMatch(/^collecting /m);
  }, 120_000);

  it(
    'advisor.check in mongosh: the same lines on stderr while it confirms; stdout keeps the report ' + 'alone',
    async () => {
      const url = `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
      const script =
        `load(${JSON.stringify(join(ROOT, 'dist', 'advisor.js'))}); advisor.check("posts", { ` +
        `confirmBudget: ${BUDGET_S}, rules: ${JSON.stringify(RULES)} })`;
      const run = await timed(MONGOSH, [url, '--quiet', '--norc', '--json=relaxed', '--eval', script]);
      expect(run.code, run.err).toBe(0);
      expectProgress(run, JSON.parse(run.out) as Confirmed);
    },
    300_000,
  );
});
