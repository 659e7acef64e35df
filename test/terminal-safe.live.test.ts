/**
 * Names from the database never reach a terminal raw: a collection named with ESC (a colour sequence), OSC and BEL
 * is reported with those characters escaped, by the real CLI, on every test server that accepts such a name.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../src/core/format';
import { useLiveDb } from './support/live-db';
import { runProcess } from './support/run';

const DB = 'mongo_advisor_test_terminal';
const HOSTILE = 'evil\u001b[31mRED\u001b]0;title\u0007\u202ename';
// C1 CSI, a bidi isolate and a right-to-left mark; and a field name with an OSC 8 hyperlink.
const HOSTILE2 = 'bidi\u2066\u200f\u009b31mC1';
const HOSTILE_FIELD = 'stamp\u001b]8;;http://evil/\u0007';
// A newline and what would read as a report line of its own after it.
const NEWLINE = 'nl\n✖ error  fake.line';
/** Any raw character a terminal would act on, of those the names above hold. */
const RAW = /[\u001b\u0007\u202e\u2066\u200f\u009b]/;
const CLI = join(__dirname, '..', 'dist', 'cli.cjs');

describe('terminal-safe output (live)', () => {
  it('terminalSafe escapes every control character a terminal would act on, and keeps text, tabs and newlines', () => {
    expect(terminalSafe(HOSTILE)).toBe('evil\\u{1b}[31mRED\\u{1b}]0;title\\u{7}\\u{202e}name');
    expect(terminalSafe('plain\ttext\nnext line, émoji ✔')).toBe('plain\ttext\nnext line, émoji ✔');
    expect(terminalSafe(HOSTILE2)).toBe('bidi\\u{2066}\\u{200f}\\u{9b}31mC1');
  });

  let accepted = '';
  let accepted2 = '';
  let acceptedNl = '';
  const live = useLiveDb(DB, async (db) => {
    try {
      await db
        .collection(HOSTILE)
        .insertMany(Array.from({ length: 30 }, (_, i) => ({ i, tags: Array.from({ length: 300 }, (_, k) => k) })));
    } catch (err) {
      accepted = (err as Error).message;
    }
    try {
      const docs = Array.from({ length: 30 }, (_, i) => ({ i, tags: Array.from({ length: 300 }, (_, k) => k) }));
      await db.collection(NEWLINE).insertMany(docs);
    } catch (err) {
      acceptedNl = (err as Error).message;
    }
    try {
      await db
        .collection(HOSTILE2)
        .insertMany(Array.from({ length: 30 }, (_, i) => ({ i, [HOSTILE_FIELD]: new Date(Date.UTC(2024, 0, 1 + i)) })));
    } catch (err) {
      accepted2 = (err as Error).message;
    }
  });

  it('check prints the hostile collection name escaped, in the report and in an error line', async (ctx) => {
    if (accepted) ctx.skip(`the server refused the collection name: ${accepted}`);
    const report = await runProcess(process.execPath, [
      CLI,
      'check',
      live.uri,
      '--db',
      DB,
      '--no-confirm',
      '--fail-on',
      'error',
    ]);
    expect(report.code).toBe(0);
    expect(report.out).toContain('evil\\u{1b}[31mRED');
    expect(report.out + report.err).not.toMatch(RAW);
    const missing = await runProcess(process.execPath, [
      CLI,
      'check',
      live.uri,
      '--db',
      DB,
      '--collection',
      'nope\u001b[2J',
      '--no-confirm',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope\\u{1b}[2J');
    expect(missing.out + missing.err).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it('Markdown (lint), the audit report and its ticket summary, and hints never hold the names raw', async (ctx) => {
    if (accepted) ctx.skip(`the server refused the collection name: ${accepted}`);
    const md = await runProcess(process.execPath, [CLI, 'lint', live.uri, '--db', DB, '--format', 'markdown', '-q']);
    // (Markdown escapes the backslash of the escape once more.)
    expect(md.out).toMatch(/evil\\\\?u\{1b\}\[31mRED/);
    expect(md.out + md.err).not.toMatch(RAW);
    const dir = mkdtempSync(join(tmpdir(), 'ma-terminal-'));
    for (const format of ['markdown', 'text']) {
      const file = join(dir, `audit.${format}`);
      const audit = await runProcess(process.execPath, [
        CLI,
        'audit',
        live.uri,
        '--db',
        DB,
        '--no-confirm',
        '-q',
        '--format',
        format,
        '--output',
        file,
      ]);
      expect(audit.code, audit.err).toBe(0);
      // stdout: the ticket summary, pasted into a terminal first.
      expect(audit.out + audit.err, format).not.toMatch(RAW);
      expect(readFileSync(file, 'utf8'), format).not.toMatch(RAW);
    }
    // A hint built from names the server holds: "did you mean" over the field census.
    if (accepted2) ctx.skip(`the server refused the field name: ${accepted2}`);
    const hint = await runProcess(process.execPath, [
      CLI,
      'check',
      live.uri,
      '--db',
      DB,
      '--collection',
      HOSTILE2,
      '--no-confirm',
      '--time-field',
      'stamp',
    ]);
    expect(hint.out + hint.err).not.toMatch(RAW);
    if (hint.code === 0)
      ctx.skip(
        'this server gave no sampled documents for the collection, so no field census to check --time-field against',
      );
    expect(hint.code).toBe(2);
    expect(hint.err).toMatch(
      /--time-field "stamp" names no field.*Did you mean "stamp\\u\{1b\}\]8;;http:\/\/evil\/\\u\{7\}"/,
    );
    expect(hint.out + hint.err).not.toMatch(RAW);
  });

  it('audit -o - (HTML, text, Markdown): names escaped; a newline in a name never starts a line', async (ctx) => {
    if (accepted) ctx.skip(`the server refused the collection name: ${accepted}`);
    for (const format of ['html', 'text', 'markdown']) {
      const args = ['audit', live.uri, '--db', DB, '--no-confirm', '-q', '--format', format, '-o', '-'];
      const r = await runProcess(process.execPath, [CLI, ...args]);
      expect(r.code, r.err).toBe(0);
      expect(r.out + r.err, format).not.toMatch(RAW);
      expect(r.out, format).toContain('evil\\u{1b}[31mRED');
      if (acceptedNl) continue;
      // (the text report's wrapping folds the two spaces into one)
      expect(r.out, format).toMatch(/nl\\n✖ error +fake\.line/);
      expect(
        r.out.split('\n').filter((l) => /^\s*✖ error +fake/.test(l)),
        format,
      ).toEqual([]);
    }
    if (acceptedNl) ctx.skip(`the server refused a collection name with a newline: ${acceptedNl}`);
  });

  it('the progress bar (stderr on a terminal) shows the names escaped', async (ctx) => {
    if (accepted) ctx.skip(`the server refused the collection name: ${accepted}`);
    const dir = mkdtempSync(join(tmpdir(), 'ma-progress-'));
    // script(1) gives the CLI a terminal, so the bar draws; the bar's own cursor moves are ESC sequences too, so look
    // for the names' sequences only.
    const cmd = [
      process.execPath,
      CLI,
      'collect',
      live.uri,
      '--db',
      DB,
      '--concurrency',
      '1',
      '--output',
      join(dir, 's.json'),
    ]
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const r = await runProcess('script', ['-qec', cmd, '/dev/null'], { env: { COLUMNS: '200' } });
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/collecting/);
    expect(r.out).toMatch(/evil\\u\{1b\}\[31mRED|bidi\\u\{2066\}/);
    for (const raw of ['\u001b[31mRED', '\u001b]0;title', '\u0007', '\u202e', '\u2066', '\u200f', '\u009b'])
      expect(r.out.includes(raw), JSON.stringify(raw)).toBe(false);
  });
});
