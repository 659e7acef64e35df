/**
 * One query, one answer, whichever door it comes through (issue 27): `lint --queries` against a snapshot file
 * (offline), `lint --queries` against the server (online, its plans explained) and `check --queries` (the
 * query-indexes rule), all through the real CLI (dist/cli.cjs) on one queries file. Each reports the query once, with
 * the same proposal, and names the existing index it makes a redundant prefix, in text, JSON and SARIF.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LintResult } from '../src/core/baseline';
import { useLiveDb } from './support/live-db';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_one_answer';
const MARKER = 'ZZONEANSWER';

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

interface Sarif {
  runs: { results: { ruleId: string; message: { text: string } }[] }[];
}

const PROPOSAL = 'createIndex({ type: 1, at: 1 }';

describe('one query, one answer: lint offline, lint online and check on one queries file (real CLI)', () => {
  const live = useLiveDb(DB, async (db) => {
    const t0 = Date.UTC(2026, 0, 1);
    // Past the 500-document line, so check judges a scan of it without counts (query-indexes' wastedDocsPerCall).
    await db.collection('events').insertMany(
      Array.from({ length: 1200 }, (_, i) => ({
        type: ['view', 'click', 'cart', 'buy'][i % 4],
        at: new Date(t0 + i * 3_600_000),
        user: i % 97,
      })),
    );
    await db.collection('events').createIndex({ type: 1 });
  });

  const dir = mkdtempSync(join(tmpdir(), 'ma-one-answer-'));
  const queries = join(dir, 'queries.jsonl');
  const snapshot = join(dir, 'snapshot.json');
  writeFileSync(
    queries,
    '// events of one type in a time range, by time\n' +
      JSON.stringify({
        ns: `${DB}.events`,
        command: {
          find: 'events',
          filter: { type: MARKER, at: { $gte: { $date: '2026-01-10T00:00:00Z' } } },
          sort: { at: 1 },
        },
        file: 'src/events/list.ts',
        line: 12,
      }) +
      '\n',
  );

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` first');
    const r = await cli(['collect', live.uri, '--db', DB, '-o', snapshot, '-q']);
    expect(r.code, r.err).toBe(0);
  }, 120_000);

  const doors: Record<string, string[]> = {
    'lint offline (snapshot)': ['lint', snapshot, '--queries', queries],
    'lint online': ['lint', '', '--db', DB, '--queries', queries],
    check: ['check', '', '--db', DB, '--queries', queries, '--no-confirm'],
  };
  const argsOf = (door: string): string[] => (doors[door] ?? []).map((a) => (a === '' ? live.uri : a));

  it('JSON: each door reports the query once, with the one proposal and the redundant type_1', async () => {
    const seen: Record<string, string> = {};
    for (const door of Object.keys(doors)) {
      const r = await cli([...argsOf(door), '-f', 'json', '-q']);
      expect(r.err, door).not.toMatch(/\n\s+at |unexpected error/);
      expect(r.out + r.err, door).not.toContain(MARKER);
      const result = JSON.parse(r.out) as LintResult;
      const about = result.findings.filter((f) => f.ruleId.startsWith('query') && f.target.collection === 'events');
      expect(
        about.map((f) => `${f.ruleId}/${f.messageId}`),
        door,
      ).toHaveLength(1);
      const commands = about[0]?.recommendation?.commands ?? [];
      const create = commands.find((c) => c.includes('createIndex('));
      expect(create, door).toContain(PROPOSAL);
      // The index the proposal makes a redundant prefix, in the same finding: hidden now (with how to undo it),
      // dropped later: the drop is never in the block pasted first.
      const events = `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("events")`;
      const later = about[0]?.recommendation?.later;
      const typeOne = commands.filter((c) => c.includes('"type_1"'));
      if (later) {
        expect(typeOne, door).toEqual([
          `${events}.hideIndex("type_1")`,
          `// to undo, if a query slows down: ${events}.unhideIndex("type_1")`,
        ]);
        expect(later.commands, door).toEqual([`${events}.dropIndex("type_1")`]);
      } else {
        // a server without hideIndex (FerretDB): the drop is the one step
        expect(typeOne, door).toEqual([`${events}.dropIndex("type_1")`]);
      }
      expect(about[0]?.recommendation?.action, door).toContain('`type_1` { type: 1 }');
      seen[door] = `${about[0]?.ruleId ?? ''}/${about[0]?.messageId ?? ''}`;
    }
    console.log(`[one answer] ${live.kind}: ${JSON.stringify(seen)}`);
  }, 180_000);

  it('SARIF and text: one result and one proposal per door', async () => {
    for (const door of Object.keys(doors)) {
      const sarif = await cli([...argsOf(door), '-f', 'sarif', '-q']);
      const results = (JSON.parse(sarif.out) as Sarif).runs.flatMap((run) => run.results);
      const about = results.filter((x) => x.ruleId.startsWith('query') && x.message.text.includes('events'));
      expect(
        about.map((x) => x.ruleId),
        door,
      ).toHaveLength(1);
      const text = await cli([...argsOf(door), '-f', 'text', '-q', '--no-color']);
      expect(text.out, door).not.toContain(MARKER);
      const proposals = text.out.split('\n').filter((l) => l.includes(PROPOSAL));
      expect(proposals, door).toHaveLength(1);
      // the drop: a later step, commented out so that pasting the block cannot run it, where the server can hide;
      // else (FerretDB) the one command
      expect(text.out, door).toMatch(
        /^\s*(\/\/ .*)?db\.getSiblingDB\(.*getCollection\("events"\)\.dropIndex\("type_1"\)$/m,
      );
    }
  }, 240_000);
});
