import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BSON, MongoClient, UUID } from 'mongodb';
import { afterAll, beforeAll, expect } from 'vitest';
import { SCRATCH_PREFIX } from '../../src/confirm/scratch';
import { rulesOff } from './rules-off';
import { dropDb } from './seed';

/**
 * Asserts that the scratch database a run names in its `where` ("scratch database <name> on …") is gone.
 * Only that one: other test files may have their own scratch databases at the same moment.
 */
export async function expectScratchDropped(client: MongoClient, where: string | null | undefined): Promise<void> {
  const name = /scratch database (\S+)/.exec(where ?? '')?.[1];
  expect(name, `no scratch database named in ${JSON.stringify(where)}`).toMatch(new RegExp(`^${SCRATCH_PREFIX}`));
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  expect((r.databases as { name: string }[]).map((d) => d.name)).not.toContain(name);
}

/** The scratch databases on the server now (any run's: filter by a run's own name or marker). */
export async function scratchDbs(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  return (r.databases as { name: string }[]).map((d) => d.name).filter((n) => n.startsWith(SCRATCH_PREFIX));
}

/** The scratch databases on the server at `uri` now, read on a connection of its own. */
export async function scratchDatabases(uri: string): Promise<string[]> {
  const client = await MongoClient.connect(uri);
  return scratchDbs(client).finally(() => client.close());
}

/**
 * Scratch databases that appeared since `before` and are still there. Another test file on the same server may hold
 * one of its own for a while (it drops it when its confirmation ends), so a newcomer is waited on; one left behind
 * for good is a leak.
 */
export async function scratchLeftSince(uri: string, before: readonly string[]): Promise<string[]> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const fresh = (await scratchDatabases(uri)).filter((n) => !before.includes(n));
    if (fresh.length === 0 || Date.now() > deadline) return fresh;
    await sleep(2_000);
  }
}

/** sha256 of every collection of `db`, documents sorted by _id, as BSON: the source, byte for byte. */
export async function checksums(client: MongoClient, db: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const names = (await client.db(db).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of names) {
    const h = createHash('sha256');
    for await (const d of client.db(db).collection(name).find({}).sort({ _id: 1 })) h.update(BSON.serialize(d));
    out[name] = h.digest('hex');
  }
  return out;
}

export const TENANTS = 10;
const TENANT_DOCS = 5;

/**
 * Per-tenant collections (collection-count's finding), whose experiment copies several documents in one insert on
 * both servers (FerretDB refuses validators, so nothing else inserts in bulk there): the interrupt tests' mid-insert.
 */
export async function seedTenants(client: MongoClient, db: string): Promise<void> {
  for (let i = 0; i < TENANTS; i++) {
    const c = client.db(db).collection(`tenant_${i}`);
    await c.insertMany(
      Array.from({ length: TENANT_DOCS }, (_, j) => ({
        userId: j,
        createdAt: new Date(Date.UTC(2024, 0, 1 + j)),
        kind: j % 2 ? 'a' : 'b',
      })),
    );
    await c.createIndex({ userId: 1, createdAt: -1 });
  }
}

/**
 * The rules an interrupt test's run keeps on: collection-count alone, whose one experiment on the tenants reaches every
 * phase (test/interrupt.e2e.test.ts fails a phase the run never reaches: no "Interrupted" line). The others off.
 */
export const INTERRUPT_RULES = rulesOff('collection-count');

/** Documents of the interrupt tests' `sessions`: only read and checksummed (collection-count's experiment runs). */
const SESSIONS = 100;

/**
 * The source an interrupt test checks: `sessions` (SESSIONS documents shaped as the demo's: UUID v4 _ids, a secondary
 * index) and TENANTS tenant collections in `db`, seeded once for the file (beforeAll), with a client and the checksums
 * taken before any run, so each test can assert the source is unchanged; dropped afterwards. Read `client` and
 * `before` inside tests (set once beforeAll has run). The runs check `sessions` with collection-count alone
 * (INTERRUPT_RULES): its finding spans the database, and its one experiment reaches every phase of
 * INTERRUPT_PHASES (a marker, creates, copies of several documents per insert, index builds, timed trials, the drop)
 * in a few seconds, where the demo blog's 11 MB of posts and the validator's copy of 3,000 sessions cost most of each
 * run before.
 */
export function useInterruptSource(uri: string, db: string): { client: MongoClient; before: Record<string, string> } {
  const state = {} as { client: MongoClient; before: Record<string, string> };
  beforeAll(async () => {
    state.client = await MongoClient.connect(uri);
    await state.client.db(db).dropDatabase();
    const now = Date.now();
    const sessions = state.client.db(db).collection<{ _id: UUID }>('sessions');
    await sessions.insertMany(
      Array.from({ length: SESSIONS }, (_, i) => ({
        _id: new UUID(),
        userId: i % 30,
        startedAt: new Date(now - i * 60_000),
        device: i % 3 === 0 ? 'mobile' : 'desktop',
      })),
    );
    await sessions.createIndex({ userId: 1 });
    await seedTenants(state.client, db);
    state.before = await checksums(state.client, db);
  });
  afterAll(async () => {
    await state.client?.close();
    await dropDb(uri, db);
  });
  return state;
}
