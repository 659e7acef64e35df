/**
 * Issue 26 item 5 / issue 27: bounded reading of --log and --queries. A gzip of newlines (2 MB held 2^31 of them and
 * kept a run busy for 5 minutes, silent) ends at the cap with what, why and how to raise it; so do the queries caps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { byteSize, readWorkload } from '../src/cli/workload';
import { UserError } from '../src/core/errors';

const dir = mkdtempSync(path.join(tmpdir(), 'advisor-caps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const io = () => {
  const err: string[] = [];
  return { io: { out: () => undefined, err: (s: string) => void err.push(s), isTTY: false }, err };
};

describe('caps on --log and --queries', () => {
  it('stops a gzip of newlines at --max-log-lines and says what, why and how to raise it', async () => {
    const bomb = path.join(dir, 'bomb.log.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(32 << 20, 10), { level: 9 }));
    const run = readWorkload({ log: bomb, maxLogLines: 1_000_000, quiet: true }, io().io);
    await expect(run).rejects.toThrow(UserError);
    const message = String(((await run.catch((e: unknown) => e)) as Error).message);
    expect(message).toMatch(/^The log .*bomb\.log\.gz was read up to its cap and not further: /);
    expect(message).toContain('lines (0 slow queries) read, and it goes on');
    expect(message).toContain('a gzip of newlines');
    expect(message).toContain('--max-log-lines (now 1,000,000)');
  });

  it('stops at --max-log-bytes, cut at the cap', async () => {
    const big = path.join(dir, 'big.log');
    writeFileSync(big, '{"t":1,"id":1}\n'.repeat(10_000));
    const run = readWorkload({ log: big, maxLogBytes: 64 * 1024, quiet: true }, io().io);
    await expect(run).rejects.toThrow(/64 KiB|65,536|64\.0 KiB/);
    await expect(run).rejects.toThrow(/--max-log-bytes \(now /);
  });

  it('refuses a queries file past --max-queries-lines or --max-queries-bytes, naming the option', async () => {
    const q = path.join(dir, 'q.jsonl');
    writeFileSync(q, '{"find":"orders","filter":{"a":1},"$db":"shop"}\n'.repeat(50));
    await expect(readWorkload({ queries: q, maxQueriesLines: 10 }, io().io)).rejects.toThrow(
      /has 51 lines, more than the 10 .*--max-queries-lines/,
    );
    await expect(readWorkload({ queries: q, maxQueriesBytes: 100 }, io().io)).rejects.toThrow(
      /larger than 100 bytes.*--max-queries-bytes/,
    );
    const ok = await readWorkload({ queries: q }, io().io);
    expect(ok?.from).toContain('q.jsonl');
  });

  it('reads sizes as a DBA writes them', () => {
    expect(byteSize('500m')).toBe(500 * 2 ** 20);
    expect(byteSize('32g')).toBe(32 * 2 ** 30);
    expect(byteSize('64KiB')).toBe(64 * 1024);
    expect(byteSize('1048576')).toBe(1048576);
    expect(() => byteSize('lots')).toThrow(/expected a size/);
  });

  it('off a terminal, a short read prints its summary and no progress line (those come every 5 s)', async () => {
    const small = path.join(dir, 'small.log');
    writeFileSync(small, '{"t":1,"id":1}\n'.repeat(100));
    const { io: o, err } = io();
    await readWorkload({ log: small }, o).catch(() => undefined);
    expect(err.join('\n')).toContain('100 lines read');
    expect(err.join('\n')).not.toContain('reading the log');
  });
});
