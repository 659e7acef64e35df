/**
 * Hostile input at the workload's front doors, through the real CLI binary: `--log` given what is not a JSON log
 * (binary, empty, a directory, gzip cut short, one line of 50 MB, a path that does not exist), `--queries` given what
 * is not a queries file (invalid Extended JSON, a command that is not a query) or names no terminal should print raw
 * (control characters and ANSI escapes in a collection's and a database's name). Each ends in a clear line (what,
 * why, what to do), never a stack trace, with every name escaped on the terminal.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { useLiveDb } from './support/live-db';
import { type ProcessResult, runProcess } from './support/run';
import { seedOpenOrders } from './support/seed';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_workload_input';
const SPEC = join(__dirname, 'fixtures', 'workload', 'lint', 'spec-bare.json');
/** A collection name a terminal would obey: colour red, then ring the bell. */
const HOSTILE = 'ord\u001b[31mers\u0007';
/** A database name that would set the terminal's title. */
const HOSTILE_DB = 'sh\u001b]0;pwned\u0007op';

async function cli(args: string[]): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args], { timeoutMs: 90_000 });
}

/** No stack trace, no "this is a bug", no raw control character (the names are escaped), no value from the files. */
function clean(r: ProcessResult): void {
  const all = r.out + r.err;
  expect(all).not.toMatch(/This is a bug|unexpected error|^\s+at .+:\d+:\d+\)?$/m);
  expect(all).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  expect(all).not.toContain('s3cr3t');
}

/** A slow-query line of MongoDB's JSON log (id 51803, OpDebug::report in mongo/src/mongo/db/curop.cpp). */
function slowQuery(i: number): string {
  const command = { find: 'orders', filter: { status: 's3cr3t', n: i }, $db: DB };
  const attr = { type: 'command', ns: `${DB}.orders`, command, durationMillis: 150 + i, planSummary: 'COLLSCAN' };
  const t = { $date: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() };
  return JSON.stringify({ t, s: 'I', c: 'COMMAND', id: 51803, ctx: 'conn1', msg: 'Slow query', attr });
}

describe('the workload front doors given hostile input (real CLI)', () => {
  const { uri } = useLiveDb(DB, seedOpenOrders);
  const dir = mkdtempSync(join(tmpdir(), 'ma-workload-input-'));
  const file = (name: string, data: string | Buffer): string => {
    const f = join(dir, name);
    writeFileSync(f, data);
    return f;
  };
  /** check with a workload, on the test's database, read-only. */
  const check = (...args: string[]): Promise<ProcessResult> =>
    cli(['check', uri, '--db', DB, '--no-confirm', '-q', ...args]);
  // without -q: the reader's counts are progress, which -q leaves out (its warnings stay)
  const checkCounted = (...args: string[]): Promise<ProcessResult> =>
    cli(['check', uri, '--db', DB, '--no-confirm', ...args]);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('--log', () => {
    const fails = (r: ProcessResult, why: RegExp): void => {
      clean(r);
      expect(r.code, r.err).toBe(2);
      expect(r.out).toBe('');
      const last = r.err.trim().split('\n').at(-1) ?? '';
      expect(last).toMatch(why);
      // what to do, said in the same line
      expect(last).toMatch(/give mongod's log file \(systemLog\.path\), plain or gzip, or leave --log out/);
    };

    it('a binary file: not a JSON log, what to give instead (exit 2)', async () => {
      const bytes = Buffer.alloc(200_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 3)) % 256;
      const r = await check('--log', file('core.bin', bytes));
      fails(r, /^mongo-advisor: The log \S+core\.bin is not MongoDB's JSON log: none of its first 20 lines is a JSON/);
    });

    it('an empty file, and empty stdin: said so (exit 2)', async () => {
      fails(await check('--log', file('empty.log', '')), /^mongo-advisor: The log \S+empty\.log is empty: it holds no/);
      const stdin = await runProcess(process.execPath, [CLI, 'check', uri, '--db', DB, '--no-confirm', '--log', '-'], {
        input: '',
      });
      fails(stdin, /^mongo-advisor: The log on stdin is empty/);
    });

    it('a directory, a missing path, one that cannot be opened: one line each, both doors (exit 2)', async () => {
      const sub = join(dir, 'logs');
      mkdirSync(sub, { recursive: true });
      const loop = join(dir, 'loop-a');
      symlinkSync(join(dir, 'loop-b'), loop);
      symlinkSync(loop, join(dir, 'loop-b'));
      const unopenable = [
        [join(dir, 'x'.repeat(5000)), 'the path is longer than the system allows'],
        [join(file('plain.log', 'x'), 'inside'), 'a part of its path is not a directory'],
        [loop, 'its path has a loop of symbolic links'],
      ] as const;
      for (const [path, why] of unopenable)
        for (const flag of ['--log', '--queries']) {
          const r = await check(flag, path);
          clean(r);
          expect(r.code, r.err).toBe(2);
          expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
          expect(r.err.trim()).toMatch(/^mongo-advisor: Cannot read /);
          expect(r.err.trim().endsWith(`: ${why}.`), r.err.slice(-200)).toBe(true);
        }
      for (const [path, why] of [
        [sub, /^mongo-advisor: Cannot read the log \S+logs: it is a directory\.$/],
        [join(dir, 'nope.log'), /^mongo-advisor: Cannot read the log \S+nope\.log: no such file\.$/],
        [
          join(dir, `nope${HOSTILE}.log`),
          /^mongo-advisor: Cannot read the log \S+nopeord\\u\{1b\}\[31mers\\u\{7\}\.log:/,
        ],
      ] as const) {
        const r = await check('--log', path);
        clean(r);
        expect(r.code, r.err).toBe(2);
        expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
        expect(r.err.trim()).toMatch(why);
      }
    });

    it('gzip cut short: what was read is kept, a line says where it broke off; cut before a line: exit 2', async () => {
      // Cut at half the compressed bytes: the cut lands inside the data, some lines before it
      const lines = Array.from({ length: 400 }, (_, i) => slowQuery(i)).join('\n') + '\n';
      const gz = gzipSync(lines);
      const r = await checkCounted(
        '--log',
        file('cut.log.gz', gz.subarray(0, Math.floor(gz.length / 2))),
        '-f',
        'json',
      );
      clean(r);
      expect(r.code, r.err).not.toBe(2);
      const counted = /: (\d+) lines read, (\d+) slow queries, (\d+) operations kept/.exec(r.err);
      const [read, kept] = [Number(counted?.[1]), Number(counted?.[3])];
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(400);
      expect(kept).toBeGreaterThan(0);
      // the line it broke off after: the last whole one (a cut line's head is counted as read, and skipped)
      const after = Number(/The gzip data ends early or is damaged after line (\d+): what follows/.exec(r.err)?.[1]);
      expect([read - 1, read]).toContain(after);
      const result = JSON.parse(r.out) as { notes: { message: string }[] };
      expect(result.notes.map((n) => n.message).join('\n')).not.toMatch(/holds no operation on/);

      fails(await check('--log', file('head.log.gz', gz.subarray(0, 12))), /starts as gzip but ends early or is/);
    });

    it('one line of 50 MB: skipped unread, and a log of nothing else is said to be no log (exit 2)', async () => {
      const huge = Buffer.alloc(50 * 1024 * 1024, 0x78);
      Buffer.from('{"id":51803,"attr":"').copy(huge);
      huge[huge.length - 1] = 0x0a;
      const started = Date.now();
      fails(
        await check('--log', file('huge.log', huge)),
        /holds only lines longer than 4194304 bytes, which mongod does/,
      );
      console.log(`[workload input] ${inject('serverKind')}: a 50 MB line refused in ${Date.now() - started} ms`);
      // Next to real slow queries, the long line is one skipped line and the run goes on
      const mixed = Buffer.concat([huge, Buffer.from(`${slowQuery(1)}\n`)]);
      const r = await checkCounted('--log', file('mixed.log', mixed));
      clean(r);
      expect(r.code, r.err).not.toBe(2);
      expect(r.err).toMatch(/: 2 lines read, 1 slow query, 1 operation kept, 1 malformed, truncated or too long/);
      expect(r.err).toContain('1 line(s) longer than 4194304 bytes were skipped (first: line 1).');
    });
  });

  describe('--queries', () => {
    const fails = (r: ProcessResult, why: RegExp): void => {
      clean(r);
      expect(r.code, r.err).toBe(2);
      expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
      expect(r.err).toMatch(why);
    };

    it('invalid Extended JSON: the lines named, no value quoted, the format said (exit 2)', async () => {
      const f = file(
        'bad.jsonl',
        [
          '{"find": "orders", "filter": {"status": {"$oid": "s3cr3t"}}, "$db": "shop"}',
          '{"find": "orders", "filter": {"status": "s3cr3t"}, "$db": "shop"',
        ].join('\n'),
      );
      const r = await check('--queries', f);
      fails(r, /^mongo-advisor: \S+bad\.jsonl is not a queries file: no entry of it could be read \(line 1: the entry/);
      expect(r.err).toContain('line 2: the entry is not valid Extended JSON');
      expect(r.err).toMatch(/\)\. Write one command per line in Extended JSON, e\.g\. \{"find": "orders"/);
      // the same through lint, offline
      fails(await cli(['lint', '--queries', f, '--spec', SPEC]), /is not a queries file: no entry of it could be/);
    });

    it('a command that is not a query: named by line, with what to do (exit 2)', async () => {
      const f = file(
        'writes.jsonl',
        [
          '{"find": "orders", "filter": {"status": "s3cr3t"}, "$db": "shop"}',
          '{"insert": "orders", "documents": [{"status": "s3cr3t"}], "$db": "shop"}',
          '{"dropDatabase": 1, "$db": "shop"}',
        ].join('\n'),
      );
      const r = await check('--queries', f);
      fails(r, /^mongo-advisor: \S+writes\.jsonl has 2 unreadable entries: line 2: the entry is not one of find,/);
      expect(r.err).toContain('line 3: the entry is not one of find');
      expect(r.err).toContain('inserts and admin commands have no query shape to judge; leave them out');
    });

    it('names with control characters and ANSI escapes: read, judged, and escaped wherever printed', async () => {
      const f = file(
        'hostile.jsonl',
        [
          JSON.stringify({ find: HOSTILE, filter: { status: 's3cr3t' }, $db: 'shop' }),
          JSON.stringify({ find: 'orders', filter: { n: 5 }, $db: HOSTILE_DB }),
        ].join('\n'),
      );
      const lint = await cli(['lint', '--queries', f, '--spec', SPEC]);
      clean(lint);
      expect(lint.code, lint.err).toBe(1);
      expect(lint.out).toContain('shop.ord\\u{1b}[31mers\\u{7}');
      expect(lint.out).toContain(
        'db.getSiblingDB("shop").getCollection("ord\\u001b[31mers\\u0007").createIndex({ status: 1 })',
      );
      expect(lint.out).toContain('sh\\u{1b}]0;pwned\\u{7}op.orders');
      const json = await cli(['lint', '--queries', f, '--spec', SPEC, '-f', 'json']);
      clean(json);
      const sarif = await cli(['lint', '--queries', f, '--spec', SPEC, '-f', 'sarif']);
      clean(sarif);
      expect(sarif.code).toBe(1);

      // check reads the file (and the path's own escapes are escaped), then judges what its database holds
      const named = join(dir, `q${HOSTILE}.jsonl`);
      writeFileSync(named, JSON.stringify({ find: HOSTILE, filter: { status: 's3cr3t' }, $db: DB }));
      const r = await checkCounted('--queries', named);
      clean(r);
      expect(r.code, r.err).not.toBe(2);
      expect(r.err).toMatch(/the queries file \S+qord\\u\{1b\}\[31mers\\u\{7\}\.jsonl: 1 query read\./);
    });
  });
});
