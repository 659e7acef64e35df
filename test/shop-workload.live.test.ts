import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rules } from '../rules';
import { check } from '../src/check';
import { main } from '../src/cli/main';
import { queryWorkload } from '../src/collect/workload';
import { dataOf } from '../src/core/collector';
import type { Finding, Note, Snapshot } from '../src/core/types';
import { onlyRules } from './support/only-rules';
import { useLiveDb } from './support/live-db';
import {
  dropProfile,
  replayShop,
  replayShopEntries,
  seedShop,
  SHOP_MARKER,
  SHOP_MARKER_NUMBER,
  shopProfileDocs,
  slowLogLines,
} from './support/shop-workload';
import { readProfileDocuments } from '../src/workload/profiler';
import { readSlowQueryLog } from '../src/workload/log-reader';
import { shapesOf } from '../src/workload/shape';
import type { WorkloadRecord } from '../src/workload/record';

/** Shape id → calls, over the records of the shop's namespaces. */
function shapeCounts(records: readonly WorkloadRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.ns.db !== 'shop' || r.command === undefined) continue;
    for (const s of shapesOf(r.command, r.ns.db)) counts.set(s.id, (counts.get(s.id) ?? 0) + 1);
  }
  return counts;
}

describe('the shop workload of issue 20, from the profiler and from a log built of it', () => {
  const live = useLiveDb('shop', (db) => seedShop(db, { orders: 600, customers: 60, events: 300 }));

  it('both readers give the same shapes with the same call counts, and the shapes hold no value', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    const docs = await replayShopEntries(live.db);
    const fromProfiler = readProfileDocuments(docs);
    const fromLog = await readSlowQueryLog(Readable.from([slowLogLines(docs).join('\n') + '\n']));
    const a = shapeCounts(fromProfiler.records);
    const b = shapeCounts(fromLog.records);
    // orders by status+customer, two regexes, the $lookup (2 shapes), the update, events by type, orders by total
    expect(a.size).toBeGreaterThanOrEqual(6);
    expect([...b.entries()].sort()).toEqual([...a.entries()].sort());
    const shapes = fromProfiler.records.flatMap((r) => (r.command ? shapesOf(r.command, r.ns.db) : []));
    const printed = JSON.stringify(shapes);
    expect(printed).not.toContain(SHOP_MARKER);
    expect(printed).not.toContain(String(SHOP_MARKER_NUMBER));
  });
});

const UNUSED_DB = 'mongo_advisor_test_unused_drop';
const indexUsage = rules.filter((r) => r.id === 'index-usage');
const unusedIds = /^unusedByWorkload/;

/** index-usage's findings on an index of the shop. */
const onIndex = (findings: readonly Finding[], coll: string, index: string): Finding[] =>
  findings.filter((f) => f.ruleId === 'index-usage' && f.target.collection === coll && f.target.index === index);

/** Shapes of orders the drop proof replays (every one but the $lookup's, whose calls run on customers). */
function replayableOrders(snapshot: Snapshot | undefined): { replayable: number; lookups: number } {
  const db = snapshot?.databases.find((d) => d.name === UNUSED_DB);
  const shapes = (db ? dataOf(queryWorkload, db) : undefined)?.collections.find((c) => c.name === 'orders')?.shapes;
  const lookups = (shapes ?? []).filter((s) => s.shape.command === 'lookup').length;
  return { replayable: (shapes?.length ?? 0) - lookups, lookups };
}

/**
 * The Done-when verdict on `total_1` (no query of the shop reads `total`): the hide-then-drop finding, confirmed by
 * replaying every shape of orders without it; and nothing on `type_1_ts_1`, which serves the events shape.
 */
function expectDropProven(findings: readonly Finding[], snapshot: Snapshot | undefined, label: string): void {
  const [total, ...more] = onIndex(findings, 'orders', 'total_1');
  expect(more).toEqual([]);
  expect(total?.messageId).toMatch(unusedIds);
  expect(total?.severity).toBe('warn');
  // Hide now, drop later where the server can hide (MongoDB 4.4+: SecantusDB says it is 8.2), else the drop alone
  // (FerretDB); the drop names its database, and is never in the block pasted first when there is a hide.
  const drop = `db.getSiblingDB(${JSON.stringify(UNUSED_DB)}).getCollection("orders").dropIndex("total_1")`;
  const r = total?.recommendation;
  if (r?.later) {
    expect(r.later.commands).toEqual([drop]);
    expect(r.commands?.[0]).toBe(drop.replace('dropIndex', 'hideIndex'));
    expect((r.commands ?? []).join('\n')).not.toMatch(/^db.*dropIndex/m);
  } else expect(r?.commands).toEqual([drop]);
  const k = total?.confirmation;
  console.log(`[unused-drop live, ${label}] ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
  if (inject('serverKind') === 'ferretdb') {
    // FerretDB's explain names no plan stage nor index: the drop cannot be proven there, and the proof says so.
    expect(k?.status).toBe('not-run');
    expect(k?.summary).toContain('explain names no plan stage');
  } else {
    expect(k?.status).toBe('supported');
    const { replayable, lookups } = replayableOrders(snapshot);
    expect(replayable).toBeGreaterThanOrEqual(4);
    expect(k?.summary).toContain(`the ${replayable} query shapes the workload ran on this collection were replayed`);
    // No shape names `total`: no plan chose total_1, the plans are the same without it, and nothing was timed.
    expect(k?.summary).toContain('no plan chose it with it in place');
    // The $lookup from customers adds one shape on orders.customerId: judged from its shape, not replayed.
    expect(lookups).toBe(1);
    expect(k?.summary).toContain('Not replayed: the $lookup shape');
  }
  expect(onIndex(findings, 'events', 'type_1_ts_1')).toEqual([]);
  expect(onIndex(findings, 'orders', 'createdAt_1_status_1')).toEqual([]);
}

describe('an index no shape of the shop uses: hide, then drop, proven by replaying every shape (live)', () => {
  const live = useLiveDb(UNUSED_DB, (db) => seedShop(db, { orders: 600, customers: 60, events: 300 }));
  let dir = '';
  let config = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ma-unused-drop-'));
    config = join(dir, 'only-index-usage.json');
    writeFileSync(config, JSON.stringify(onlyRules('index-usage')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** check through the real CLI with the shop's log (written as mongod writes slow queries), index-usage only. */
  async function checkLog(extra: string[]): Promise<{ findings: Finding[]; notes: Note[]; out: string; err: string }> {
    const log = join(dir, 'mongod.log');
    writeFileSync(log, slowLogLines(shopProfileDocs(UNUSED_DB, 2)).join('\n') + '\n');
    let out = '';
    let err = '';
    const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += `${t}\n`), isTTY: false };
    const args = ['check', live.uri, '--db', UNUSED_DB, '-f', 'json', '-q', '--config', config];
    await main([...args, '--confirm-budget', '60', '--log', log, ...extra], io);
    const result = JSON.parse(out) as { findings: Finding[]; notes: Note[] };
    return { ...result, out, err };
  }

  it('from the profiler at level 2: hide then drop total_1, every shape of orders replayed without it', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await dropProfile(live.db);
    const restore = await replayShop(live.db, 2, true);
    let snapshot: Snapshot | undefined;
    try {
      const result = await check(live.adapter, {
        rules: indexUsage,
        db: UNUSED_DB,
        confirm: true,
        // Every shape is timed with and without the index, in alternation: the budget is shared among them.
        budgetMs: 60_000,
        onSnapshot: (s) => void (snapshot = s),
      });
      const db = snapshot?.databases.find((d) => d.name === UNUSED_DB);
      const shapes = (db ? dataOf(queryWorkload, db) : undefined)?.collections.find((c) => c.name === 'orders');
      console.log(`[unused-drop live, profiler] orders shapes: ${shapes?.shapes.map((s) => s.printed).join(' | ')}`);
      // The profiler is at level 2 while the advisor samples orders: its own reads carry its comment and are left
      // out (SecantusDB's profiler records no appName). The shop sends no aggregate to orders.
      expect(shapes?.shapes.map((s) => s.printed).filter((p) => p.startsWith('db.orders.aggregate('))).toEqual([]);
      expectDropProven(result.findings, snapshot, 'profiler');
      const text = JSON.stringify(result) + JSON.stringify(snapshot);
      expect(text).not.toContain(SHOP_MARKER);
      expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
      expect(result.confirm?.cleanedUp).toBe(true);
    } finally {
      await restore();
    }
  });

  it('from a profiler at level 1: no unused finding, and a line says why', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await dropProfile(live.db);
    const restore = await replayShop(live.db, 1, true);
    try {
      await live.db.command({ profile: 1, slowms: 100 });
      const result = await check(live.adapter, { rules: indexUsage, db: UNUSED_DB, confirm: false });
      expect(result.findings.filter((f) => unusedIds.test(f.messageId))).toEqual([]);
      const said = result.notes.map((n) => n.message).join('\n');
      expect(said).toContain('level 1 records only operations slower than 100 ms');
      expect(said).toContain('`total_1`');
    } finally {
      await restore();
    }
  });

  it('from a log file given with --workload-complete: the same verdict', async () => {
    await dropProfile(live.db);
    const { findings, out, err } = await checkLog(['--workload-complete', '--save-snapshot', join(dir, 'snap.json')]);
    // The snapshot file holds no real call: the shapes' counts are what the proof is compared with.
    const snapshot = JSON.parse(readFileSync(join(dir, 'snap.json'), 'utf8')) as Snapshot;
    expectDropProven(findings, snapshot, '--log --workload-complete');
    for (const text of [out, err]) {
      expect(text).not.toContain(SHOP_MARKER);
      expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
    }
  });

  it('from a log file without --workload-complete: no unused finding, and a line says why', async () => {
    await dropProfile(live.db);
    const { findings, notes } = await checkLog([]);
    expect(findings.filter((f) => unusedIds.test(f.messageId))).toEqual([]);
    const said = notes.map((n) => n.message).join('\n');
    expect(said).toContain('cannot call an index unused');
    expect(said).toContain('pass --workload-complete when it holds every one');
  });
});
