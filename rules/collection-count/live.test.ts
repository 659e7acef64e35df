import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { collectSnapshot } from '../../src/collect';
import { serverStatus } from '../../src/collect/server-status';
import { confirmFindings } from '../../src/confirm';
import { say } from '../../src/confirm/verdict';
import { formatText } from '../../src/report/text';
import { dataOf } from '../../src/core/collector';
import type { Snapshot } from '../../src/core/types';
import { runRule, runRuleWithNotes } from '../../test/support/rule-tester';
import rule from './index';
import { tenantGroupsOf, totalsOf } from './analyze';
import { inventory } from './collect';
import { accessClaim, CONFIRM_MESSAGES } from './confirm';
import { type SentCommand, recordingAdapter } from '../../test/support/recording';
import { expectScratchDropped } from '../../test/support/scratch';
import { liveUri } from '../../test/support/live-uri';

const DB = 'mongo_advisor_test_collection_count';
const TENANTS = 12;

describe('collection-count (live)', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  let client: MongoClient;
  let adapter: DriverAdapter;
  let snap: Snapshot;
  let viewReason: string | null = null;
  let sent: SentCommand[] = [];

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    await db.dropDatabase();
    for (let i = 0; i < TENANTS; i++) {
      const c = db.collection(`tenant_${i}`);
      await c.insertMany([
        { userId: i, createdAt: new Date(), kind: 'a' },
        { userId: i + 1, createdAt: new Date(), kind: 'b' },
      ]);
      await c.createIndex({ userId: 1, createdAt: -1 });
    }
    await db.collection('settings').insertOne({ key: 'theme' });
    try {
      await db.createCollection('settings_view', { viewOn: 'settings', pipeline: [{ $match: { key: 'theme' } }] });
    } catch (err) {
      viewReason = (err as Error).message.split('\n')[0] ?? 'refused';
    }
    adapter = await DriverAdapter.connect(uri);
    const recorded = recordingAdapter(adapter);
    snap = await collectSnapshot(recorded, { db: DB, collectors: rule.needs ?? [] });
    sent = recorded.sent;
  });

  afterAll(async () => {
    await adapter?.close();
    await client?.db(DB).dropDatabase();
    await client?.close();
  });

  it('counts the database: collections and indexes', () => {
    const inv = dataOf(inventory, snap);
    const d = inv?.databases.find((x) => x.name === DB);
    expect(d?.collections).toBe(TENANTS + 1);
    expect(d?.indexes).toBe(TENANTS * 2 + 1); // exact: the core read every index list of the checked database
    expect(totalsOf(inv as NonNullable<typeof inv>).collections).toBeGreaterThanOrEqual(TENANTS + 1);
  });

  it('counts views apart (a view has no table)', (ctx) => {
    if (viewReason) {
      const note = `views not checked: this server (${kind}) refused to create a view: ${viewReason}`;
      console.log(`[collection-count live] ${note}`);
      ctx.skip(note);
    }
    expect(dataOf(inventory, snap)?.databases.find((x) => x.name === DB)?.views).toBe(1);
  });

  it('reuses the index lists the core collect read: no second listIndexes on the checked database', () => {
    const listIndexes = sent.filter((s) => s.db === DB && s.name === 'listIndexes');
    expect(listIndexes.length).toBe(TENANTS + 1); // the core collect's, one per collection
  });

  it('reads no index list outside the checked database unless the table count could change the verdict', () => {
    const inv = dataOf(inventory, snap);
    if (!inv) throw new Error('no inventory');
    // The inventory comes last: its commands are the last ones sent.
    const own = sent.slice(sent.length - inv.roundTrips);
    console.log(
      `[collection-count live] ${kind}: the inventory sent ${inv.roundTrips} ` +
        `commands: ${own.map((s) => `${s.label}@${s.db}`).join(', ')}`,
    );
    expect(own.filter((s) => s.name === 'listDatabases').length).toBe(1);
    expect(own.filter((s) => s.name === 'listCollections' && s.db === DB)).toEqual([]); // the core's listing is reused
    for (const s of own.filter((x) => x.name === 'listCollections'))
      expect(['admin', 'local', 'config']).not.toContain(s.db);
    // Before any read, the collections outside this database could hold 64 indexes each: when even that stays
    // under the default line (10,000 tables), no index list outside it can change the verdict.
    const t = totalsOf(inv);
    const beforeReads = t.collections + (TENANTS * 2 + 1) + 64 * (t.collections - (TENANTS + 1));
    const outside = own.filter((s) => s.name === 'listIndexes' && s.db !== DB);
    if (beforeReads < 10_000) {
      expect(outside).toEqual([]);
      for (const d of inv.databases.filter((x) => x.name !== DB)) expect(d.collectionNames?.sets).toBeUndefined();
    } else {
      // other test files' collections push the bound past the line: lists outside may be read, one per collection at
      // most
      console.log(
        `[collection-count live] ${kind}: ${t.collections} collections on the server (up to ${beforeReads} ` +
          `tables before reading): ${outside.length} index lists read outside the checked database`,
      );
      expect(outside.length).toBeLessThanOrEqual(t.collections - (TENANTS + 1));
    }
  });

  it('finds the per-tenant group with its shared index set', () => {
    const g = tenantGroupsOf(
      dataOf(inventory, snap) ?? { databases: [], indexSets: [], skipped: [], roundTrips: 0 },
    ).find((x) => x.db === DB);
    expect(g).toMatchObject({
      pattern: 'tenant_{id}',
      members: TENANTS,
      indexesRead: TENANTS,
      sameIndexes: TENANTS,
      kind: 'collection',
    });
    expect(g?.indexes.map((i) => i.key)).toEqual([{ userId: 1, createdAt: -1 }]);
    expect(g?.examples.length).toBe(3);
  });

  it(
    "reads data handles where serverStatus carries WiredTiger's data-handle section, and says why not " + 'elsewhere',
    async () => {
      // What the server proves it reports, read here with the test's own client: not its engine's name.
      let status: Record<string, unknown> | null = null;
      try {
        status = await client.db('admin').command({ serverStatus: 1 });
      } catch (err) {
        console.log(`[collection-count live] serverStatus refused on ${kind}: ${(err as Error).message}`);
      }
      const dh = (status?.wiredTiger as Record<string, Record<string, unknown> | undefined> | undefined)?.[
        'data-handle'
      ];
      const figures = dataOf(serverStatus, snap);
      if (typeof dh?.['connection data handles currently active'] === 'number') {
        expect(figures?.dataHandles?.active).toBeGreaterThan(0);
        expect(figures?.dataHandlesReason).toBeUndefined();
      } else if (status === null) {
        // refused: the server-status collector says so, and has no data
        expect(figures).toBeUndefined();
        expect(snap.notes.map((n) => n.message).join('\n')).toContain('serverStatus was refused');
      } else {
        const engine = (status.storageEngine as { name?: unknown } | undefined)?.name;
        console.log(
          `[collection-count live] data handles not read on ${kind} (storage engine ${String(engine)}, ` +
            `wiredTiger ` +
            `section ${'wiredTiger' in status ? 'present' : 'absent'}): ${figures?.dataHandlesReason ?? ''}`,
        );
        expect(figures?.dataHandles).toBeNull();
        const note = runRuleWithNotes(rule, snap).notes.find((n) => n.message.includes('data-handle'));
        expect(note?.message).toBe(`collection-count: ${figures?.dataHandlesReason ?? ''}`);
        if (engine === 'wiredTiger' && !('wiredTiger' in status)) {
          // a server that names WiredTiger without its statistics: said as such, never "wiredTiger, not WiredTiger"
          expect(note?.message).toContain(
            'reports storage engine wiredTiger but its serverStatus has no wiredTiger section',
          );
        } else expect(note?.message).toMatch(/wiredTiger|WiredTiger/);
        expect(note?.message).not.toMatch(/engine is wiredTiger, not WiredTiger/);
      }
    },
  );

  it('recommends folding the tenants, and the confirmation times first access on scratch', async () => {
    const findings = runRule(rule, snap).filter(
      (f) => f.messageId.startsWith('tenantCollections') && f.target.db === DB,
    );
    expect(findings.length).toBe(1);
    expect(findings[0]?.recommendation?.action).toContain('fold into one collection `tenant`');
    expect(findings[0]?.recommendation?.commands).toContain(
      `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("tenant").createIndex({ tenantId: 1, userId: 1, ` +
        'createdAt: -1 })',
    );
    // Only warn findings are confirmed by default; a group of 12 is info, so ask for it explicitly.
    const asWarn = findings.map((f) => ({ ...f, severity: 'warn' as const }));
    // the labels, the sentence and the cleanup are the subject, not the verdict: a short budget (one round at least)
    const run = await confirmFindings(snap, asWarn, adapter, [rule], { budgetMs: 4_000 });
    const c = run.findings[0]?.confirmation;
    console.log(`[collection-count live] ${c?.status ?? 'none'}: ${c?.summary ?? ''}`);
    expect(['supported', 'refuted', 'inconclusive']).toContain(c?.status);
    // at least 40 collections per round (MIN_TENANTS), whatever the group's size: the per-collection cost averages
    // better
    const perRound = Math.max(TENANTS, 40);
    expect(c?.measurements.map((m) => m.label)).toEqual([
      `first find on each of ${perRound} new collections`,
      `first find for each of ${perRound} new tenants in one collection`,
    ]);
    expect(c?.summary).toContain('warm handle, not a cold open');
    expect(run.cleanedUp).toBe(true);
    await expectScratchDropped(client, run.where);
  });

  it('a refuted finding prints its advice only as withdrawn: no fold advice left in the text report', async () => {
    const findings = runRule(rule, snap).filter(
      (f) => f.messageId.startsWith('tenantCollections') && f.target.db === DB,
    );
    expect(findings.length).toBe(1);
    const asWarn = findings.map((f) => ({ ...f, severity: 'warn' as const }));
    // The verdict is forced (the real experiment's is whatever the server gives): the run refutes, as on SecantusDB.
    const claim = accessClaim('tenantId');
    const summary = say(CONFIRM_MESSAGES, 'refutedAccess', { claim: claim.text });
    const refuting = {
      ...rule,
      confirm: {
        ...rule.confirm!,
        run: () => Promise.resolve({ status: 'refuted' as const, claim, summary, measurements: [] }),
      },
    };
    const run = await confirmFindings(snap, asWarn, adapter, [refuting], { budgetMs: 5_000 });
    expect(run.findings[0]?.confirmation?.status).toBe('refuted');
    const text = formatText(
      {
        tool: { name: 'mongo-advisor', version: '0.0.0' },
        startedAt: new Date(0).toISOString(),
        durationMs: 0,
        source: 'test',
        server: {
          version: snap.server.version,
          flavor: snap.server.flavor,
          storageEngine: snap.server.storageEngine,
          topology: snap.server.topology,
          imitator: snap.server.imitator,
        },
        scope: { db: DB, collections: [] },
        findings: run.findings,
        notes: [],
        roundTrips: 0,
        confirm: { enabled: true, where: run.where, cleanedUp: run.cleanedUp },
      },
      { color: false, verbose: true },
    );
    expect(text).toContain('Withdrawn: fold into one collection `tenant`');
    expect(text).not.toMatch(/Fold them/i);
    // the one fold advice left is the withdrawn one, and none of its commands is printed
    expect(text.match(/\bfold (them|into)\b/gi)).toEqual(['fold into']);
    expect(text).not.toContain('db.createCollection');
    expect(run.cleanedUp).toBe(true);
    await expectScratchDropped(client, run.where);
  });
});
