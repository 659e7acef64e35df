/**
 * The configuration is searched from the working folder up to the project root (package.json or .git) or the home
 * folder, never above: a `.mongo-advisor.json` in a shared parent (a temp folder) names a JavaScript spec, and lint
 * would run that code for whoever lints below it. The real CLI (dist/cli.cjs); the spec's code plants a marker file
 * when it runs, so "ignored" is seen on disk, not inferred from the output.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSearchPath } from '../src/core/config';
import { runProcess } from './support/run';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const SPEC_JS = `require('node:fs').writeFileSync(require('node:path').join(__dirname, 'js-ran'), 'the spec ran');
module.exports = { db: 'app', collections: [{ name: 'posts', indexes: [{ key: { a: 1 } }, { key: { a: 1, b: 1 } }] }] };
`;

describe('configuration search stops at the project boundary (real CLI)', () => {
  const shared = mkdtempSync(join(tmpdir(), 'ma-boundary-'));
  const project = join(shared, 'project');
  const plain = join(shared, 'plain', 'deeper');
  const home = join(shared, 'home');
  const marker = join(shared, 'js-ran');
  const lint = (cwd: string, homeDir = join(shared, 'elsewhere')) => {
    const env = { HOME: homeDir, MONGODB_URI: '' };
    return runProcess(process.execPath, [CLI, 'lint', '--format', 'json'], { cwd, timeoutMs: 60_000, env });
  };

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
    mkdirSync(join(project, 'src'), { recursive: true });
    mkdirSync(plain, { recursive: true });
    mkdirSync(join(home, 'work'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'victim' }));
    writeFileSync(join(shared, '.mongo-advisor.json'), JSON.stringify({ spec: 'spec.js' }));
    writeFileSync(join(shared, 'spec.js'), SPEC_JS);
  });
  afterAll(() => rmSync(shared, { recursive: true, force: true }));

  it('a config with a .js spec above the project root is ignored, and its code never runs', async () => {
    const r = await lint(join(project, 'src'));
    expect(existsSync(marker)).toBe(false);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/lint needs something to check/);
    expect(r.err).not.toMatch(/This is a bug|^\s+at /m);
  });

  it('nor from a folder in no project and outside home: only the folder itself is searched', async () => {
    expect(configSearchPath(plain, home)).toEqual([plain]);
    const r = await lint(plain);
    expect(existsSync(marker)).toBe(false);
    expect(r.code).toBe(2);
  });

  it('the same config runs its spec where it is inside the project (the control: the marker is written)', async () => {
    const r = await lint(shared);
    expect(r.err).not.toMatch(/lint needs something to check/);
    expect(r.code).toBe(0); // a warning, under lint's default --fail-on error
    expect(r.out).toContain('spec-redundant-index'); // the spec's index a_1 is a prefix of a_1_b_1
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
  });

  it('the search path: up to and including the project root, or the home folder', () => {
    expect(configSearchPath(join(project, 'src'), home)).toEqual([join(project, 'src'), project]);
    expect(configSearchPath(join(home, 'work'), home)).toEqual([join(home, 'work'), home]);
  });
});
