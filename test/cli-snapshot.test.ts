import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Binary, MongoClient, ObjectId } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { main } from '../src/cli/main';
import { loadSnapshot, parseSnapshot, SNAPSHOT_JSON_SCHEMA } from '../src/core/snapshot-file';
import { clusteredExplain } from '../rules/clustered-trap/collect';
import type { CheckResult, Snapshot } from '../src/core/types';
import { collectionOf, snapshotOf, withData } from './support/fixtures';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (s) => (out += s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => (err += `${s}\n`),
    isTTY: false,
  });
  return { code, out, err };
}

/** Every leaf value of the seeded documents, as they could show up in a file: strings, _id forms, dates. */
function leafValues(v: unknown, out: { strings: Set<string>; ids: Set<string>; dates: Set<string> }, key = ''): void {
  if (typeof v === 'string') out.strings.add(v);
  else if (v instanceof Date) out.dates.add(v.toISOString());
  else if (v instanceof ObjectId) {
    out.ids.add(v.toHexString());
    out.dates.add(v.getTimestamp().toISOString());
  } else if (v instanceof Binary) {
    out.ids.add(Buffer.from(v.buffer).toString('hex'));
    out.ids.add(Buffer.from(v.buffer).toString('base64'));
    if (v.sub_type === 4) out.ids.add(v.toUUID().toHexString(true));
  } else if (Array.isArray(v)) v.forEach((x) => leafValues(x, out, key));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) leafValues(x, out, k);
}

/** Numbers to 12 significant digits: $sample returns documents in a random order, and float sums follow it. */
function settle<T>(v: T): T {
  return JSON.parse(JSON.stringify(v), (_k, x: unknown) =>
    typeof x === 'number' && !Number.isInteger(x) ? Number(x.toPrecision(12)) : x,
  ) as T;
}

const WINDOW = 8;

/**
 * `needle => text.includes(needle)` for needles of at least WINDOW characters, fast over thousands of needles: a
 * needle can only occur where its first WINDOW characters do (a set of every WINDOW-long piece of the text), and only
 * those candidates are searched (one includes() per needle over a large snapshot took minutes in all).
 */
function occursIn(text: string): (needle: string) => boolean {
  const pieces = new Set<string>();
  for (let i = 0; i + WINDOW <= text.length; i++) pieces.add(text.slice(i, i + WINDOW));
  return (needle) => {
    if (needle.length < WINDOW) throw new Error(`occursIn: a needle under ${WINDOW} characters: ${needle.length}`);
    return pieces.has(needle.slice(0, WINDOW)) && text.includes(needle);
  };
}

function jsonStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => jsonStrings(x, out));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      jsonStrings(x, out);
    }
  return out;
}

describe('snapshot file format (pure)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-snap-'));
  const write = (name: string, data: unknown): string => {
    const f = join(dir, name);
    writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
    return f;
  };

  it(
    'accepts a fixture snapshot, and checks collector data against the schemas of the collectors it is read ' + 'with',
    () => {
      const good = snapshotOf([
        withData(collectionOf('posts', { clustered: true }), clusteredExplain, {
          asked: 2,
          find: { stages: ['COLLSCAN'], nReturned: 2, docsExamined: 50_000, keysExamined: 0, nWouldDelete: null },
          deleteMany: null,
          serverVersion: '6.0.5',
        }),
      ]);
      (good.server as unknown as Record<string, unknown>).futureField = { anything: 1 };
      expect(() => parseSnapshot(JSON.parse(JSON.stringify(good)), 'x.json', [clusteredExplain])).not.toThrow();
      // A value where a stage name belongs (an _id, say) is refused by the collector's schema, with where it is.
      const bad = snapshotOf([
        withData(collectionOf('posts', { clustered: true }), clusteredExplain, {
          asked: 2,
          find: { stages: ['{"_id": 42}'], nReturned: 2, docsExamined: 2, keysExamined: 0, nWouldDelete: null },
          deleteMany: null,
          serverVersion: '6.0.5',
        }),
      ]);
      expect(() => parseSnapshot(JSON.parse(JSON.stringify(bad)), 'x.json', [clusteredExplain])).toThrow(
        /databases\.0\.collections\.0\.data\.clustered-trap\.find\.stages\.0 must match pattern/,
      );
      // Read without that collector (a rule set that does not need it), its data is not checked.
      expect(() => parseSnapshot(JSON.parse(JSON.stringify(bad)), 'x.json')).not.toThrow();
    },
  );

  it('names the bad core field', () => {
    const s = snapshotOf([collectionOf('posts')]) as unknown as {
      databases: { collections: Record<string, unknown>[] }[];
    };
    delete s.databases[0]?.collections[0]?.stats;
    (s.databases[0]?.collections[0] as Record<string, unknown>).type = 'table';
    expect(() => parseSnapshot(s, 'x.json')).toThrow(
      /databases\.0\.collections\.0: missing "stats".*databases\.0\.collections\.0\.type must be one of "collection"/,
    );
  });

  it('says what an old, a newer and a foreign file is, and what to do', () => {
    const s = snapshotOf([]);
    expect(() => loadSnapshot(write('old.json', { ...s, version: 0 }))).toThrow(
      joinRegex(
        /format version 0, written by an older mongo-advisor.*Collect a new one with: mongo-advisor collect <uri> /,
        /--output <new snapshot file> \(keep the old one/,
      ),
    );
    expect(() => loadSnapshot(write('new.json', { ...s, version: 99 }))).toThrow(
      /format version 99, written by a newer mongo-advisor.*Upgrade mongo-advisor/,
    );
    expect(() =>
      loadSnapshot(write('report.json', { tool: { name: 'mongo-advisor', version: '1' }, findings: [] })),
    ).toThrow(/is a mongo-advisor report \(check --format json\), not a snapshot/);
    expect(() => loadSnapshot(write('sarif.json', { version: '2.1.0', $schema: 'x', runs: [] }))).toThrow(
      /is a SARIF log/,
    );
    expect(() => loadSnapshot(write('other.json', { hello: 1 }))).toThrow(
      /is not a mongo-advisor snapshot \(no "format": "mongo-advisor-snapshot" field\)/,
    );
    expect(() => loadSnapshot(write('bad.json', '{ nope'))).toThrow(/is not JSON/);
    expect(() => loadSnapshot(join(dir, 'missing.json'))).toThrow(
      /does not exist\. Create it with: mongo-advisor collect/,
    );
  });

  it('leaves every object open (collectors add optional fields), so no additionalProperties: false', () => {
    expect(JSON.stringify(SNAPSHOT_JSON_SCHEMA)).not.toContain('"additionalProperties":false');
  });

  it('analyze of a connection string says to use check, lint or collect', async () => {
    const r = await cli(['analyze', 'mongodb://localhost:27017/app']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      joinRegex(
        /analyze reads a snapshot file, not a server, and "mongodb:\/\/localhost:27017\/app" reads like a /,
        /connection string: run mongo-advisor check mongodb:\/\/localhost:27017\/app/,
      ),
    );
  });

  it('analyze of a foreign file exits 2 with one line and no stack', async () => {
    const r = await cli(['analyze', write('foreign.json', { collections: [] })]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/looks like a declared spec or another tool's output/);
  });
});

describe('collect + analyze (real server, demo data)', () => {
  const uri = liveUri();
  const dir = mkdtempSync(join(tmpdir(), 'ma-collect-'));
  const file = join(dir, 'snap.json');
  const configFile = (config: unknown): string => {
    const f = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, JSON.stringify(config));
    return f;
  };

  it('collect writes a snapshot that validates against the schema', async () => {
    // Every document sampled (10,000 > any demo collection): where the server has $sample, two reads of a random
    // sample would differ; the whole collection does not.
    const r = await cli(['collect', uri, '--db', DB, '--sample-size', '10000', '--out', file]);
    expect(r.err).toMatch(/3 collections in 1 database, .* no document values/);
    expect(r.code).toBe(0);
    const snap: Snapshot = loadSnapshot(file);
    expect(snap.databases[0]?.collections.map((c) => c.name)).toEqual(['events', 'posts', 'sessions']);
    expect(snap.source).not.toMatch(/:[^/@]+@/);
  });

  it('analyze of the file gives the same findings as a live check --no-confirm', async () => {
    // The live check saves its own snapshot: array-growth's paces are taken at collection time (an _id's age), so a
    // file collected seconds earlier forecasts one element more or less; the same moment gives the same figures.
    const saved = join(dir, 'saved.json');
    const live = await cli([
      ...['check', uri, '--db', DB, '--no-confirm', '--sample-size', '10000', '--format', 'json'],
      ...['--save-snapshot', saved],
    ]);
    const offline = await cli(['analyze', saved, '--format', 'json']);
    // collect's file and check's snapshot hold the same collections, read by the same collectors.
    const [collected, checked] = [loadSnapshot(file), loadSnapshot(saved)];
    expect(checked.databases.map((d) => d.collections.map((c) => c.name))).toEqual(
      collected.databases.map((d) => d.collections.map((c) => c.name)),
    );
    const ids = (s: Snapshot): string[] => s.collectors.map((c) => c.id).sort();
    expect(ids(checked)).toEqual(ids(collected));
    expect(live.code).toBe(1);
    expect(offline.code).toBe(live.code);
    const a = JSON.parse(offline.out) as CheckResult;
    const b = JSON.parse(live.out) as CheckResult;
    expect(a.findings.length).toBeGreaterThan(0);
    expect(settle(a.findings)).toEqual(settle(b.findings));
    expect(a.scope).toEqual(b.scope);
    expect(a.notes.map((n) => n.message).sort()).toEqual(b.notes.map((n) => n.message).sort());
  });

  it('analyze exits 0 when nothing reaches --fail-on; collect and audit exit 2 on an unknown database', async () => {
    // Turn down whichever rules report errors on the demo data (other rules may join array-growth there).
    const all = JSON.parse((await cli(['analyze', file, '--format', 'json'])).out) as CheckResult;
    const loud = [...new Set(all.findings.filter((f) => f.severity === 'error').map((f) => f.ruleId))];
    expect(loud).toContain('array-growth');
    const config = configFile({ rules: Object.fromEntries(loud.map((id) => [id, 'warn'])) });
    expect((await cli(['analyze', file, '--fail-on', 'error', '--config', config])).code).toBe(0);
    expect((await cli(['analyze', file, '--fail-on', 'warn', '--config', config])).code).toBe(1);
    for (const cmd of ['collect', 'audit']) {
      const r = await cli(
        [cmd, uri, '--db', 'no_such_db_xyz', '--no-confirm', '--out', join(dir, 'x')].filter(
          (a) => cmd === 'audit' || a !== '--no-confirm',
        ),
      );
      expect(r.err).toMatch(/Database "no_such_db_xyz" does not exist/);
      expect(r.code).toBe(2);
    }
  });

  it('the snapshot holds no sampled value: no strings, _ids or dates of the documents', async () => {
    const client = await MongoClient.connect(uri);
    const values = { strings: new Set<string>(), ids: new Set<string>(), dates: new Set<string>() };
    let docs = 0;
    try {
      for (const c of ['posts', 'sessions', 'events']) {
        for (const d of await client.db(DB).collection(c).find().toArray()) {
          leafValues(d, values);
          docs++;
        }
      }
    } finally {
      await client.close();
    }
    expect(docs).toBe(20 + 3000 + 3000);
    const text = readFileSync(file, 'utf8');
    const strings = jsonStrings(JSON.parse(text));
    // The advisor's own words (enum values such as flavor "mongodb") may equal a data value by chance.
    const vocabulary = new Set(jsonStrings(SNAPSHOT_JSON_SCHEMA));
    const exact = new Set(strings.filter((x) => !vocabulary.has(x)));
    // Every string value of the data: not one equals a string in the snapshot, and the longer ones appear nowhere.
    const inText = occursIn(text);
    const leaked = [...values.strings].filter((v) => exact.has(v) || (v.length >= 8 && inText(v)));
    expect(leaked).toEqual([]);
    // An _id (hex, base64, UUID) or a date can only occur inside a run of its own characters: search those runs only.
    const lower = text.toLowerCase();
    const [hex, base64, date] = [/[0-9a-f-]{16,}/g, /[0-9a-z+/=-]{16,}/g, /[0-9:.tz-]{19,}/g].map((re) =>
      (lower.match(re) ?? []).join('\n'),
    ) as [string, string, string];
    const idIn = (id: string): boolean => (/^[0-9a-f-]+$/.test(id) ? hex : base64).includes(id);
    expect([...values.ids].filter((id) => idIn(id.toLowerCase()))).toEqual([]);
    expect([...values.dates].filter((d) => date.includes(d.slice(0, 19).toLowerCase()))).toEqual([]);
    // Sanity: the scan looks at what matters (titles, comment text, _ids of both kinds).
    expect(values.strings.size).toBeGreaterThan(10);
    expect(values.ids.size).toBeGreaterThan(6000);
  }, 300_000);
});
