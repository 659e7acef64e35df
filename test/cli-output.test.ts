/**
 * Output that cannot be written: the real CLI (dist/cli.cjs) with its stdout on a pipe the reader closed, on
 * /dev/full, and `-o` to /dev/full. Each is one line on stderr and exit 2, no stack, and no verdict. No server: the
 * CLI lints a declared spec (warnings only, so a written report would pass with exit 0).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const dir = mkdtempSync(join(tmpdir(), 'ma-output-'));
const SPEC = join(dir, 'spec.json');
// 300 collections, each with a redundant index: a report of a few hundred kB, more than a pipe buffer holds.
const redundant = [{ key: { a: 1 } }, { key: { a: 1, b: 1 } }];
const collections = Array.from({ length: 300 }, (_, i) => ({ name: `c${i}`, indexes: redundant }));
writeFileSync(SPEC, JSON.stringify({ db: 'app', collections }));

interface Run {
  code: number | null;
  err: string;
}

/** Runs the CLI with the given stdout; `closeStdout` closes the reading end of a piped stdout at once. */
async function run(
  args: string[],
  stdout: 'pipe' | 'ignore' | number,
  closeStdout = false,
  env: Record<string, string> = {},
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', stdout, 'pipe'],
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  if (closeStdout) child.stdout?.destroy();
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return await new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, err }));
  });
}

const NO_STACK = /^\s+at .+:\d+:\d+\)?$/m;

function expectOneLine(r: Run, where: RegExp, code: RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.err).not.toMatch(NO_STACK);
  expect(r.err).not.toMatch(/lint passed|lint failed/);
  const lines = r.err.trim().split('\n');
  expect(lines, r.err).toHaveLength(1);
  expect(lines[0]).toMatch(where);
  expect(lines[0]).toMatch(code);
  expect(lines[0]).toMatch(/-o <file>/);
}

describe('a report that cannot be written (real CLI)', () => {
  it('the CLI is built', () => {
    expect(existsSync(CLI), 'run node scripts/build.mjs --skip-types first').toBe(true);
  });

  for (const format of ['sarif', 'text', 'markdown']) {
    it(`stdout on a pipe its reader closed (-f ${format}): one line, exit 2, no verdict`, async () => {
      const r = await run(['lint', '--spec', SPEC, '-f', format], 'pipe', true);
      expectOneLine(r, /^mongo-advisor: Could not write the report to stdout/, /EPIPE/);
    });
  }

  it('stdout on /dev/full, and -o - there: one line, exit 2, no verdict', async (ctx) => {
    if (!existsSync('/dev/full')) ctx.skip('this system has no /dev/full');
    for (const extra of [[], ['-o', '-']]) {
      const fd = openSync('/dev/full', 'w');
      try {
        const r = await run(['lint', '--spec', SPEC, '-f', 'sarif', ...extra], fd);
        expectOneLine(r, /^mongo-advisor: Could not write the report to stdout/, /ENOSPC/);
      } finally {
        closeSync(fd);
      }
    }
  });

  it('-o /dev/full: one line naming the file, exit 2, no verdict', async (ctx) => {
    if (!existsSync('/dev/full')) ctx.skip('this system has no /dev/full');
    const r = await run(['lint', '--spec', SPEC, '-f', 'markdown', '-o', '/dev/full'], 'ignore');
    expectOneLine(r, /^mongo-advisor: Could not write the report to \/dev\/full/, /ENOSPC/);
  });

  it('a report that was written still gets its verdict (the control)', async () => {
    const file = join(dir, 'out.sarif');
    const r = await run(['lint', '--spec', SPEC, '-f', 'sarif', '-o', file], 'ignore');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/Wrote the report to .*out\.sarif\nmongo-advisor lint passed/);
  });

  it('a run whose last operation never answers ends with exit 2 and says so, never exits as a pass', async () => {
    // The event loop empties while main still awaits (src/cli/bin.ts): Node alone would exit 0.
    const r = await run(['lint', '--spec', SPEC, '-f', 'sarif'], 'ignore', false, {
      MONGO_ADVISOR_TEST_UNSETTLED: '1',
    });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/^mongo-advisor: the run stopped before it finished: an operation never answered/);
    expect(r.err).not.toMatch(NO_STACK);
  });
});
