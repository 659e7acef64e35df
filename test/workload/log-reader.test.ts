import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { ObjectId } from 'bson';
import { afterAll, describe, expect, it } from 'vitest';
import { LogCapReached, readSlowQueryLog, unusableLog } from '../../src/workload/log-reader';
import { recordOfProfileDocument } from '../../src/workload/profiler';
import { formatShape, shapesOf } from '../../src/workload/shape';
import { noShapeNote, WorkloadTally } from '../../src/workload/tally';

const fixture = path.join(__dirname, '../fixtures/workload/mongod.log');
const text = readFileSync(fixture);
const dir = mkdtempSync(path.join(tmpdir(), 'advisor-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const expectedCounts = {
  lines: 11,
  slowQueries: 7,
  records: 3,
  malformed: 1,
  truncated: 1,
  own: 1,
  scratch: 1,
  tooLong: 0,
  statementsLogged: 0,
  bytes: text.length,
};

/** A stream that hands the data over in small uneven pieces, as a pipe does. */
function trickle(data: Buffer, piece = 7): Readable {
  const out = new PassThrough();
  let at = 0;
  const next = (): void => {
    if (at >= data.length) return void out.end();
    out.write(data.subarray(at, at + piece));
    at += piece;
    setImmediate(next);
  };
  next();
  return out;
}

describe('readSlowQueryLog over the fixture', () => {
  it('reads the slow queries and counts what it leaves out', async () => {
    const { records, counts, notes } = await readSlowQueryLog(fixture);
    expect(counts).toEqual(expectedCounts);
    expect(records.map((r) => [r.ns.db, r.ns.coll, r.op])).toEqual([
      ['db', 'coll', 'find'],
      ['shop', 'orders', 'find'],
      ['shop', 'orders', 'getMore'],
    ]);
    expect(notes.join('\n')).toMatch(/line 10/); // the malformed line, by number
    expect(notes.join('\n')).toMatch(/truncated/);
  });

  it('normalises the log names (durationMillis, numYields, reslen) and keeps both hash generations', async () => {
    const [docs, newer] = (await readSlowQueryLog(fixture)).records;
    expect(docs).toMatchObject({
      source: 'log',
      appName: 'MongoDB Shell',
      durationMillis: 111,
      keysExamined: 0,
      docsExamined: 232922,
      nreturned: 0,
      numYields: 232,
      responseLength: 96,
      planSummary: 'COLLSCAN',
      fromPlanCache: true,
      queryHash: '9C05019A',
      planCacheKey: 'C41063D6',
    });
    expect(docs?.planCacheShapeHash).toBeUndefined();
    expect(newer).toMatchObject({
      planCacheShapeHash: '7A1B2C3D',
      hasSortStage: true,
      usedDisk: false,
      fromMultiPlanner: true,
    });
    expect(newer?.queryShapeHash).toMatch(/^[0-9A-F]{64}$/);
    expect(newer?.queryHash).toBeUndefined();
  });

  it('keeps the command with its BSON types for replay, out of JSON and inspection', async () => {
    const [, newer, more] = (await readSlowQueryLog(fixture)).records;
    const filter = newer?.command.filter as { createdAt: { $gte: unknown } };
    expect(filter.createdAt.$gte).toBeInstanceOf(Date);
    const match = (more?.originatingCommand?.pipeline as { $match: { customerId: unknown } }[])[0];
    expect(match?.$match.customerId).toBeInstanceOf(ObjectId);
    const printed = JSON.stringify(newer) + JSON.stringify(more);
    expect(printed).not.toContain('open');
    expect(printed).not.toContain('64b7f0c2');
    expect(Object.keys(newer ?? {})).not.toContain('command');
  });

  it('reads gzip the same, told by its magic bytes whatever the name', async () => {
    const gz = path.join(dir, 'mongod.log.1'); // no .gz: detection is by content
    writeFileSync(gz, gzipSync(text));
    const r = await readSlowQueryLog(gz);
    expect(r.counts).toEqual(expectedCounts);
  });

  it('reads a stream (stdin) given in pieces, plain and gzip', async () => {
    expect((await readSlowQueryLog(trickle(text))).counts).toEqual(expectedCounts);
    expect((await readSlowQueryLog(trickle(gzipSync(text), 5))).counts).toEqual(expectedCounts);
  });

  it('says where gzip data ends early and keeps what it read', async () => {
    const gz = gzipSync(Buffer.concat([text, text, text]));
    const r = await readSlowQueryLog(Readable.from([gz.subarray(0, gz.length - 40)]));
    expect(r.notes.join('\n')).toMatch(/gzip data ends early or is damaged after line \d+/);
    expect(r.counts.records).toBeGreaterThanOrEqual(6);
  });

  it('skips and counts lines over the limit without holding them, and carries on after', async () => {
    const long = `{"id":51803,"attr":{"pad":"${'x'.repeat(5000)}"}}\n`;
    const data = Buffer.concat([Buffer.from(long), text, Buffer.from(long.trimEnd())]);
    const r = await readSlowQueryLog(trickle(data, 1000), { maxLineBytes: 4096 });
    expect(r.counts).toEqual({ ...expectedCounts, lines: 13, tooLong: 2, bytes: data.length });
    expect(r.notes.join('\n')).toMatch(/2 line\(s\) longer than 4096 bytes were skipped \(first: line 1\)/);
  });

  it('hands records to onRecord instead of collecting them', async () => {
    const seen: string[] = [];
    const r = await readSlowQueryLog(fixture, { onRecord: (rec) => seen.push(rec.op) });
    expect(seen).toEqual(['find', 'find', 'getMore']);
    expect(r.records).toEqual([]);
  });

  it('names a missing file in plain words', async () => {
    await expect(readSlowQueryLog(path.join(dir, 'nope.log'))).rejects.toThrow(/Cannot read the log .*no such file/);
  });

  it('never quotes a line in its notes', async () => {
    const { notes } = await readSlowQueryLog(fixture);
    expect(notes.join('\n')).not.toMatch(/orders|open|sku|A-1/);
  });
});

describe('unusableLog: what cannot be the workload, and what can', () => {
  const read = async (data: string | Buffer): Promise<string | null> =>
    unusableLog(await readSlowQueryLog(Readable.from([Buffer.from(data)])));

  it('takes the fixture, a log cut mid-line (tail -c), and a JSON log without a slow query', async () => {
    expect(await read(text)).toBeNull();
    expect(await read(text.subarray(37))).toBeNull();
    const quiet = text
      .toString()
      .split('\n')
      .filter((l) => !l.includes('"id":51803'))
      .join('\n');
    const r = await readSlowQueryLog(Readable.from([Buffer.from(quiet)]));
    expect(unusableLog(r)).toBeNull();
    expect(r.notes.join('\n')).toMatch(/^It holds no slow query \(no line with "id":51803\): mongod logs only/m);
  });

  it('refuses an empty input, a MongoDB 4.2 text log, gzip cut before a line, only over-long lines', async () => {
    expect(await read('')).toMatch(/^is empty: /);
    // The 4.2 text format (https://www.mongodb.com/docs/v4.2/reference/log-messages/): a timestamp, severity, component
    const legacy = Array.from(
      { length: 30 },
      (_, i) => `2020-01-0${(i % 9) + 1}T10:00:00.000+0000 I  COMMAND  [conn${i}] command shop.orders ... 150ms`,
    ).join('\n');
    expect(await read(legacy)).toMatch(/^is not MongoDB's JSON log: none of its first 20 lines is a JSON log entry/);
    expect(await read(gzipSync(text).subarray(0, 12))).toMatch(/^starts as gzip but ends early or is damaged before/);
    const long = unusableLog(
      await readSlowQueryLog(Readable.from([Buffer.from(`{"id":51803,"x":"${'y'.repeat(5000)}"}\n`)]), {
        maxLineBytes: 4096,
      }),
    );
    expect(long).toMatch(/^holds only lines longer than 4096 bytes/);
  });
});

describe('writes in the log (issue 27): WRITE statements, command forms, findAndModify', () => {
  const writes = path.join(__dirname, '../fixtures/workload/writes.log');

  it('reads the statement form into the command form and counts a statement once', async () => {
    const r = await readSlowQueryLog(writes);
    expect(r.counts).toMatchObject({ lines: 7, slowQueries: 7, records: 6, statementsLogged: 1, malformed: 0 });
    expect(r.records.map((x) => x.op)).toEqual(['update', 'delete', 'delete', 'findAndModify', 'getMore', 'insert']);
    const [update, remove] = r.records;
    expect(update?.command.update).toBe('orders');
    expect((update?.command.updates as { multi?: boolean }[])[0]?.multi).toBe(true);
    expect(remove?.command.delete).toBe('sessions');
    expect(r.notes.join('\n')).toContain('1 update or delete command(s) whose statements mongod also logged');
  });

  // At a sampleRate below 1 mongod samples a statement's line and its command's line apart (each operation draws on
  // its own), so the next command on a connection may follow a statement it does not carry: a distinct update, kept.
  it("keeps a command that follows another command's statement on the same connection (sampleRate < 1)", async () => {
    const [statementA, commandA] = readFileSync(writes, 'utf8').split('\n');
    // B: another update on the same connection and namespace, its own statement not sampled, its command logged
    const commandB = (commandA as string).replace('"status":"open"', '"status":"held"').replace('stale', 'aged');
    const r = await readSlowQueryLog(Readable.from([[statementA, commandB].join('\n') + '\n']));
    expect(r.counts).toMatchObject({ slowQueries: 2, records: 2, statementsLogged: 0 });
    // the statement and its own command are still one operation
    const same = await readSlowQueryLog(Readable.from([[statementA, commandA, commandB].join('\n') + '\n']));
    expect(same.counts).toMatchObject({ slowQueries: 3, records: 2, statementsLogged: 1 });
  });

  it('gives each kind its shape, and says why the others gave none', async () => {
    const tally = new WorkloadTally();
    await readSlowQueryLog(writes, { onRecord: (rec) => tally.add(rec) });
    const printed = (db: string): string[] =>
      [...(tally.dbs.get(db)?.shapes.values() ?? [])].map((t) => formatShape(t.shape));
    expect(printed('shop')).toEqual([
      'db.orders.update({ createdAt: { $lt: ?date }, status: ?string })',
      'db.sessions.delete({ expiresAt: { $lt: ?date } })',
      'db.sessions.delete({ userId: ?number }).limit(?)',
    ]);
    expect(printed('jobs')).toEqual(['db.queue.findAndModify({ state: ?string }).sort({ priority: -1 }).limit(?)']);
    const shop = tally.dbs.get('shop');
    expect(shop ? noShapeNote(shop, 'shop') : null).toBe(
      '1 operation(s) of shop that were read gave no query shape: 1 getMore without its originating command.',
    );
    // the insert is no gap: it is counted by collection, by its ninserted (its documents travel beside the command)
    expect([...(shop?.inserts ?? [])]).toEqual([['orders', 1000]]);
    // Values stay out of the shapes.
    expect(JSON.stringify([...(shop?.shapes.values() ?? [])])).not.toMatch(/stale|open|2024-0/);
  });

  it('reads a profiler entry of a delete statement (op "remove", command {q, limit}) the same way', () => {
    const doc = {
      op: 'remove',
      ns: 'shop.sessions',
      command: { q: { expiresAt: { $lt: new Date(0) } }, limit: 0 },
      millis: 150,
    };
    const rec = recordOfProfileDocument(doc);
    if (typeof rec === 'string') throw new Error(rec);
    expect(rec.op).toBe('delete');
    expect(shapesOf(rec.command, 'shop').map(formatShape)).toEqual([
      'db.sessions.delete({ expiresAt: { $lt: ?date } })',
    ]);
  });
});

describe('caps on a log: a gzip of newlines ends at the cap, with what to do', () => {
  it('stops a gzip bomb (2^28 newlines in ~260 KB) at the line cap, fast', async () => {
    // Generated here, streaming: 256 chunks of 1 MiB of newlines through deflate, never held whole.
    const gz = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gz.on('data', (c: Buffer) => parts.push(c));
    const ended = new Promise((resolve) => gz.on('end', resolve));
    const mib = Buffer.alloc(1 << 20, 10);
    for (let i = 0; i < 256; i++) if (!gz.write(mib)) await new Promise((resolve) => gz.once('drain', resolve));
    gz.end();
    await ended;
    const bomb = Buffer.concat(parts);
    expect(bomb.length).toBeLessThan(2 ** 20);
    const t0 = Date.now();
    const err: unknown = await readSlowQueryLog(Readable.from([bomb]), { maxLines: 5_000_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LogCapReached);
    const cap = err as LogCapReached;
    expect(cap.cap).toBe('lines');
    expect(cap.progress.lines).toBeGreaterThan(5_000_000);
    expect(cap.progress.lines).toBeLessThan(5_000_000 + 2 ** 20);
    expect(Date.now() - t0).toBeLessThan(30_000);
    // The byte cap too, cut exactly at the cap.
    const bytes = (await readSlowQueryLog(Readable.from([bomb]), { maxBytes: 3_000_000 }).catch(
      (e: unknown) => e,
    )) as LogCapReached;
    expect(bytes.cap).toBe('bytes');
    expect(bytes.progress.bytes).toBe(3_000_000);
  }, 60_000);
});
