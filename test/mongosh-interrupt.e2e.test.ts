import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { BSON, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCRATCH_PREFIX } from '../src/confirm/scratch';
import { runProcess } from './support/run';
import { dropDb, seedBlog } from './support/seed';

const ROOT = join(__dirname, '..');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');
const DB = 'mongo_advisor_test_mongosh_interrupt';

const mongosh = (uri: string, script: string, env: Record<string, string> = {}) =>
  runProcess(MONGOSH, [`${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`, '--quiet', '--norc', '--eval', `load(${JSON.stringify(PLUGIN)}); ${script}`], { env: { MONGOSH_NO_UPDATE_CHECK: '1', ...env } });

async function scratchDbs(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  return (r.databases as { name: string }[]).map((d) => d.name).filter((n) => n.startsWith(SCRATCH_PREFIX));
}

/** sha256 of every collection of `db`, documents sorted by _id, as BSON: the source, byte for byte. */
async function checksums(client: MongoClient, db: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const names = (await client.db(db).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  for (const name of names) {
    const h = createHash('sha256');
    for await (const d of client.db(db).collection(name).find({}).sort({ _id: 1 })) h.update(BSON.serialize(d));
    out[name] = h.digest('hex');
  }
  return out;
}

/**
 * Per-tenant collections (collection-count's finding), so that a copy of several documents in one insert runs on
 * every server: FerretDB refuses validators (SecantusDB's validator experiment copies hundreds per insert) and
 * array-growth inserts one document at a time, so without these mongosh never reaches `mid-insert` on FerretDB.
 * collection-count's experiment copies TENANT_DOCS documents per insert into each new tenant collection.
 */
const TENANTS = 10;
const TENANT_DOCS = 5;
async function seedTenants(client: MongoClient, db: string): Promise<void> {
  for (let i = 0; i < TENANTS; i++) {
    const c = client.db(db).collection(`tenant_${i}`);
    await c.insertMany(Array.from({ length: TENANT_DOCS }, (_, j) => ({ userId: j, createdAt: new Date(Date.UTC(2024, 0, 1 + j)), kind: j % 2 ? 'a' : 'b' })));
    await c.createIndex({ userId: 1, createdAt: -1 });
  }
}

describe('interrupting advisor.check (real mongosh)', () => {
  const uri = inject('mongoUri');
  let client: MongoClient;
  let before: Record<string, string>;
  beforeAll(async () => {
    await seedBlog(uri, DB);
    client = await MongoClient.connect(uri);
    await seedTenants(client, DB);
    before = await checksums(client, DB);
  });
  afterAll(async () => {
    await client?.close();
    await dropDb(uri, DB);
  });

  for (const [signal, exit] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    for (const phase of ['after-marker', 'mid-insert', 'mid-timing'] as const) {
      it(`${signal} at ${phase}: the plugin drops the scratch database and says so`, async () => {
        const r = await mongosh(uri, 'advisor.check(undefined, { confirmBudget: 2 })', { MONGO_ADVISOR_TEST_INTERRUPT_AT: `${phase}:${signal}` });
        const name = /dropped the scratch database (mongo_advisor_scratch_[0-9a-f]+) \(listDatabases no longer lists it\)/.exec(r.err)?.[1];
        expect(name, r.err + r.out).toBeDefined();
        expect(r.code).toBe(exit);
        expect(await scratchDbs(client)).not.toContain(name);
        expect(await checksums(client, DB)).toEqual(before);
      }, 180_000);
    }
  }

  it('SIGINT ends a mongosh script at once (mongosh owns it): the marker makes the leftover stale, and advisor.cleanup drops it', async () => {
    const had = new Set(await scratchDbs(client));
    const r = await mongosh(uri, 'advisor.check(undefined, { confirmBudget: 2 })', { MONGO_ADVISOR_TEST_INTERRUPT_AT: 'mid-insert:SIGINT' });
    // mongosh ends the evaluation (MongoshInterruptedError, exit 1) or the process (130): no plugin code runs either way
    expect(r.code === 1 || r.code === 130 || r.signal === 'SIGINT', `${String(r.code)} ${String(r.signal)} ${r.err}`).toBe(true);
    // Other test files share this server and may be confirming right now: ours is the new scratch database whose
    // marker names a mongosh process that no longer runs.
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const left: string[] = [];
    for (const n of (await scratchDbs(client)).filter((x) => !had.has(x))) {
      const marker = await client.db(n).collection<{ _id: string; via?: string; pid?: number }>('_advisor_marker').findOne({ _id: 'owner' });
      if (marker?.via === 'mongosh' && typeof marker.pid === 'number' && !alive(marker.pid)) left.push(n);
    }
    expect(left.length, 'mongosh was expected to leave its scratch database behind on SIGINT').toBe(1);
    const name = left[0] as string;
    // the next run reports it (read-only run too), with its size and the command that removes it
    const next = await mongosh(uri, 'advisor.check("posts", { confirm: false }).then((r) => print(r.notes.map((n) => n.message).join("\\n")))');
    expect(next.out).toMatch(new RegExp(`stale scratch databases? left by earlier runs .*${name} \\([^;]+; mongo-advisor \\S+ \\(mongosh, pid \\d+ on [^)]+\\) started [^;]+; that process no longer runs\\).*Remove (it|them) with: advisor\\.cleanup\\(\\)`));
    const listed = await mongosh(uri, 'advisor.cleanup().then((t) => print(t))');
    expect(listed.out).toMatch(new RegExp(`${name}\\s+\\S+ \\w+\\s+STALE: `));
    expect(await scratchDbs(client)).toContain(name);
    const dropped = await mongosh(uri, 'advisor.cleanup({ drop: true }).then((t) => print(t))');
    expect(dropped.out).toContain(`dropped ${name} (listDatabases no longer lists it)`);
    expect(await scratchDbs(client)).not.toContain(name);
    expect(await checksums(client, DB)).toEqual(before);
  }, 240_000);
});
