/**
 * Names from the database never reach a terminal raw: a collection named with ESC (a colour sequence), OSC and BEL
 * is reported with those characters escaped, by the real CLI, on every test server that accepts such a name.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../src/core/format';
import { useLiveDb } from './support/live-db';
import { runProcess } from './support/run';

const DB = 'mongo_advisor_test_terminal';
const HOSTILE = 'evil\u001b[31mRED\u001b]0;title\u0007\u202ename';
const CLI = join(__dirname, '..', 'dist', 'cli.cjs');

describe('terminal-safe output (live)', () => {
  it('terminalSafe escapes every control character a terminal would act on, and keeps text, tabs and newlines', () => {
    expect(terminalSafe(HOSTILE)).toBe('evil\\u{1b}[31mRED\\u{1b}]0;title\\u{7}\\u{202e}name');
    expect(terminalSafe('plain\ttext\nnext line, émoji ✔')).toBe('plain\ttext\nnext line, émoji ✔');
  });

  let accepted = '';
  const live = useLiveDb(DB, async (db) => {
    try {
      await db.collection(HOSTILE).insertMany(Array.from({ length: 30 }, (_, i) => ({ i, tags: Array.from({ length: 300 }, (_, k) => k) })));
    } catch (err) {
      accepted = (err as Error).message;
    }
  });

  it('check prints the hostile collection name escaped, in the report and in an error line', async (ctx) => {
    if (accepted) ctx.skip(`the server refused the collection name: ${accepted}`);
    const report = await runProcess(process.execPath, [CLI, 'check', live.uri, '--db', DB, '--no-confirm', '--fail-on', 'error']);
    expect(report.code).toBe(0);
    expect(report.out).toContain('evil\\u{1b}[31mRED');
    expect(report.out + report.err).not.toMatch(/[\u001b\u0007\u202e]/);
    const missing = await runProcess(process.execPath, [CLI, 'check', live.uri, '--db', DB, '--collection', 'nope\u001b[2J', '--no-confirm']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope\\u{1b}[2J');
    expect(missing.out + missing.err).not.toMatch(/[\u001b\u0007\u202e]/);
  });
});
