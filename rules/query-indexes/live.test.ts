import { MongoClient } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { check } from '../../src/check';
import { main } from '../../src/cli/main';
import type { Finding } from '../../src/core/types';
import { useLiveDb } from '../../test/support/live-db';
import {
  dropProfile,
  replayShop,
  replayShopEntries,
  seedShop,
  SHOP_MARKER,
  SHOP_MARKER_NUMBER,
  slowLogLines,
} from '../../test/support/shop-workload';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import rule from './index';
import { onlyRules } from '../../test/support/only-rules';
import { liveUri } from '../../test/support/live-uri';

const DB = 'mongo_advisor_test_query_indexes';

/**
 * Each experiment's budget in the proofs below: the verdicts they check rest on counts (examined, the planner's
 * choice, the results compared), which every phase reaches past its budget rather than not at all; the default
 * budgets are test/shop-done.live.test.ts's subject.
 */
const PROOF_BUDGET_MS = 6_000;

const ours = (findings: readonly Finding[]) => findings.filter((f) => f.ruleId === 'query-indexes');

describe('query-indexes on the shop workload, from the profiler (live)', () => {
  const live = useLiveDb(DB, (db) => seedShop(db, { orders: 1000, customers: 60, events: 300 }));

  it('proposes the ESR index, none for the regex, and writes no value', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    // The test turns the profiler on and back off; the advisor never changes the level.
    await replayShop(live.db, 2);
    let snapshotText = '';
    const result = await check(live.adapter, {
      rules: [rule],
      db: DB,
      confirm: false,
      onSnapshot: (s) => void (snapshotText = JSON.stringify(s)),
    });
    const found = ours(result.findings);
    const commands = found.flatMap((f) => f.recommendation?.commands ?? []);
    expect(commands).toContain(
      `db.getSiblingDB("${DB}").getCollection("orders").createIndex(` +
        '{ customerId: 1, status: 1, createdAt: -1 }, ' +
        '{ name: "customerId_1_status_1_createdAt_-1" })',
    );
    // The orders shape by status and customer, sorted by date, is named with that index.
    const byStatus = found.find((f) => f.message.includes('db.orders.find({ customerId: ?number, status: ?string })'));
    expect(byStatus?.message).toContain('{ customerId: 1, status: 1, createdAt: -1 }');
    // The case-insensitive regexes on sku: the remedy, no index.
    const regex = found.filter((f) => f.messageId === 'regexCaseInsensitive');
    expect(regex.length).toBeGreaterThanOrEqual(1);
    for (const f of regex) expect(f.recommendation?.commands ?? []).toEqual([]);
    expect(commands.some((c) => c.includes('sku'))).toBe(false);
    // The events shape (type, then a time range, sorted by time) is served in full by type_1_ts_1: nothing.
    expect(found.filter((f) => f.target.collection === 'events')).toEqual([]);
    // No value of the workload anywhere: the result, the snapshot.
    for (const text of [JSON.stringify(result), snapshotText]) {
      expect(text).not.toContain(SHOP_MARKER);
      expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
    }
    expect(snapshotText).toContain('"query-indexes/workload"');
  });

  it('proves the ESR index on a scratch copy: examined falls, the planner picks it, results equal', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler (system.profile)');
    await dropProfile(live.db);
    await replayShop(live.db, 2);
    // A small budget: the ESR index is decided by its examined counts on every call (a copy is never cut below the
    // whole 1,000 orders, src/confirm/index-proof.ts copyWithin), the time being a second check; the budget is not
    // this test's subject (each of the shop's experiments spends up to it: 20 s took about 48 s in all).
    const lines: string[] = [];
    const log = (line: string): void => void lines.push(line);
    const result = await check(live.adapter, { rules: [rule], db: DB, confirm: true, budgetMs: PROOF_BUDGET_MS, log });
    console.log(`[query-indexes live] progress:\n${lines.filter((l) => /confirming|index proof/.test(l)).join('\n')}`);
    const found = ours(result.findings);
    const esr = found.find((f) => f.evidence.proposed === 'customerId_1_status_1_createdAt_-1');
    const k = esr?.confirmation;
    console.log(`[query-indexes live] ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(k?.status).toBe('supported');
    expect(k?.summary).toMatch(/cut the keys and documents examined from [\d,]+ to [\d,]+ per call/);
    // The regex findings propose no index, so nothing is proven for them.
    for (const f of found.filter((x) => x.messageId.startsWith('regex'))) expect(f.confirmation).toBeUndefined();
    const text = JSON.stringify(result);
    expect(text).not.toContain(SHOP_MARKER);
    expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
    expect(result.confirm?.cleanedUp).toBe(true);
  });

  it('from a slow-query log of the same workload: the same index, proven the same way', async (ctx) => {
    if (!inject('capabilities').has.profiler) ctx.skip('the server has no profiler to build the log from');
    // SecantusDB writes no slow-query lines: the log is the profiler's entries as mongod's JSON log writes them.
    const docs = await replayShopEntries(live.db);
    await dropProfile(live.db);
    const dir = mkdtempSync(join(tmpdir(), 'ma-shop-log-'));
    const log = join(dir, 'mongod.log');
    writeFileSync(log, slowLogLines(docs).join('\n') + '\n');
    try {
      let out = '';
      let err = '';
      const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += `${t}\n`), isTTY: false };
      // This rule alone: the other rules' confirmations (a validator's, 20 s a collection) prove nothing here.
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify(onlyRules(rule.id)));
      const args = [
        'check',
        live.uri,
        '--db',
        DB,
        '-f',
        'json',
        '-q',
        '--confirm-budget',
        String(PROOF_BUDGET_MS / 1000),
        '--log',
        log,
        '--config',
        config,
      ];
      await main(args, io);
      const result = JSON.parse(out) as { findings: Finding[] };
      const esr = ours(result.findings).find((f) => f.evidence.proposed === 'customerId_1_status_1_createdAt_-1');
      console.log(
        `[query-indexes live, --log] ${esr?.confirmation?.status ?? 'none'}: ${esr?.confirmation?.summary ?? ''}`,
      );
      expect(esr?.confirmation?.status).toBe('supported');
      for (const text of [out, err]) {
        expect(text).not.toContain(SHOP_MARKER);
        expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says why when the profiler is missing, and how to get entries', async (ctx) => {
    if (inject('capabilities').has.profiler) ctx.skip('the server has a profiler: the note is for servers without');
    const result = await check(live.adapter, { rules: [rule], db: DB, confirm: false });
    expect(ours(result.findings)).toEqual([]);
    const said = result.notes.map((n) => n.message).join('\n');
    expect(said).toContain('system.profile');
    expect(said).toContain('db.setProfilingLevel(1, { slowms: 100 })');
    expect(said).toContain('--log');
  });
});

describe('check --log with the slow-query log fixture (live)', () => {
  // The fixture's kept slow queries: db.coll by b (a COLLSCAN of 232,922 documents returning 0), two on shop.orders.
  const uri = liveUri();

  it('counts what it read, and judges the shape of the database checked', async () => {
    const client = await MongoClient.connect(uri);
    try {
      await client.db('db').dropDatabase();
      await client
        .db('db')
        .collection('coll')
        .insertMany([{ b: 1 }, { b: 2 }, { b: 3 }]);
      let out = '';
      let err = '';
      const io = {
        out: (s: string) => void (out += s),
        err: (s: string) => void (err += `${s}\n`),
        isTTY: false,
      };
      // without -q: the reader's counts are progress, which -q leaves out
      const args = ['check', uri, '--db', 'db', '--no-confirm', '-f', 'json', '--log'];
      const code = await main([...args, 'test/fixtures/workload/mongod.log'], io);
      expect(err).toContain(
        'the log test/fixtures/workload/mongod.log: 11 lines read, 7 slow queries, 3 operations kept, ' +
          "2 malformed, truncated or too long skipped, 2 of the advisor's own left out.",
      );
      const result = JSON.parse(out) as { findings: Finding[] };
      const found = ours(result.findings);
      expect(found.map((f) => f.messageId)).toEqual(['unindexed']);
      expect(found[0]?.message).toContain('No index serves db.coll.find({ b: ?number }): 1 call');
      expect(found[0]?.message).toContain('read 232,922 documents to return 0');
      expect(found[0]?.recommendation?.commands).toEqual([
        'db.getSiblingDB("db").getCollection("coll").createIndex({ b: 1 }, { name: "b_1" })',
      ]);
      expect(code).toBe(1);
    } finally {
      await client.db('db').dropDatabase();
      await client.close();
    }
  });
});
