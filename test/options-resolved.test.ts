/*
 * Options are resolved once per run (src/core/options.ts resolveRules) and travel with it: the collector context
 * gets those of the rules that need the collector, the snapshot records them, analyze reads the very list.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOnly } from '../src/adapters/read-only';
import type { Adapter } from '../src/adapters/types';
import { CollectorRunner } from '../src/collect/run-collectors';
import { type CollectionContext, dataOf, defineCollector } from '../src/core/collector';
import { loadConfig } from '../src/core/config';
import { OptionsError, resolveRules, RuleOptionsError } from '../src/core/options';
import { defineRule, type OptionsSchema } from '../src/core/rule';
import { analyze } from '../src/core/runner';
import { parseSnapshot, serializeSnapshot } from '../src/core/snapshot-file';
import { collectionOf, snapshotOf } from './support/fixtures';

const limitOptions = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, default: 5, description: 'How many to read at most.' } },
} as const satisfies OptionsSchema;

/** Records the options its context gave it, per collection: what a collector "read with". */
const seen: Record<string, unknown>[] = [];
const reader = defineCollector<{ limit: number }, 'collection'>({
  id: 'reader',
  version: 1,
  scope: 'collection',
  description: 'reads nothing; keeps the limit it was given',
  schema: {
    type: 'object',
    required: ['limit'],
    additionalProperties: false,
    properties: { limit: { type: 'integer' } },
  },
  collect(ctx: CollectionContext) {
    const given: Record<string, unknown> = Object.fromEntries(ctx.options ?? new Map<string, unknown>());
    seen.push(given);
    const mine = ctx.options?.get('reads') as { limit: number } | undefined;
    return Promise.resolve({ limit: mine?.limit ?? -1 });
  },
});

const meta = (severity: 'info' | 'warn') => ({
  description: 'test rule',
  docsUrl: 'https://example.invalid',
  severity,
  messages: { m: 'limit {{limit}}' } as const,
  options: limitOptions,
  requires: { capabilities: [] },
});
const reads = defineRule({
  id: 'reads',
  needs: [reader],
  scope: 'snapshot',
  meta: meta('info'),
  analyze({ snapshot, options, report }) {
    const target = { db: snapshot.databases[0]?.name ?? '' };
    report({ messageId: 'm', target, data: { limit: options.limit }, evidence: {} });
  },
});
const other = defineRule({ id: 'other', scope: 'snapshot', meta: meta('warn'), analyze() {} });

describe('resolveRules: the run list', () => {
  it('keeps the enabled rules in order, options validated, defaulted and frozen, with the severity set', () => {
    const run = resolveRules([reads, other], { rules: { reads: { severity: 'error', options: { limit: 9 } } } });
    expect(run.map((r) => [r.rule.id, r.options, r.severity])).toEqual([
      ['reads', { limit: 9 }, 'error'],
      ['other', { limit: 5 }, undefined],
    ]);
    expect(Object.isFrozen(run[0]?.options)).toBe(true);
    expect(resolveRules([reads, other], { rules: { other: 'off' } }).map((r) => r.rule.id)).toEqual(['reads']);
    expect(resolveRules([reads, other], { only: ['other'] }).map((r) => r.rule.id)).toEqual(['other']);
  });

  it("lists every rule's bad options, a disabled rule's too", () => {
    const settings = { rules: { reads: { options: { limit: 0 } }, other: { enabled: false, options: { limt: 3 } } } };
    let caught: unknown;
    try {
      resolveRules([reads, other], settings);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RuleOptionsError);
    expect(caught).toBeInstanceOf(OptionsError);
    const problems = (caught as RuleOptionsError).problems;
    expect(problems.map((p) => p.ruleId)).toEqual(['reads', 'other']);
    expect(problems[0]?.message).toMatch(/option "limit" of rule reads must be >= 1/);
    expect(problems[1]?.message).toMatch(/unknown option "limt" for rule other/);
  });

  it('analyze reads the list it is given, never the rule defaults again', () => {
    const collectors = [{ id: 'reader', version: 1, scope: 'collection' as const, couldNot: [] }];
    const snap = snapshotOf([collectionOf('a')], { collectors });
    const run = resolveRules([reads], { rules: { reads: { options: { limit: 42 }, severity: 'warn' } } });
    const out = analyze(snap, run);
    expect(out.findings.map((f) => [f.message, f.severity])).toEqual([['limit 42', 'warn']]);
  });
});

describe('collectors get the resolved options of the rules that need them', () => {
  const noServer: Adapter = {
    source: 'none',
    roundTrips: 0,
    command: () => Promise.reject(new Error('no server in this test')),
  } as unknown as Adapter;

  it('hands each collector its rules’ options, and the snapshot records them (schema-valid)', async () => {
    seen.length = 0;
    const settings = { rules: { reads: { options: { limit: 7 } }, other: { options: { limit: 2 } } } };
    const run = resolveRules([reads, other], settings);
    const snap = snapshotOf([collectionOf('a')]);
    const runner = new CollectorRunner([reader], {
      adapter: readOnly(noServer),
      server: snap.server,
      maxTimeMS: 1000,
      serverStatus: null,
      runNotes: [],
      resolved: run,
    });
    const coll = snap.databases[0]?.collections[0];
    if (!coll) throw new Error('fixture has no collection');
    await runner.collection(coll, { name: 'a', type: 'collection', options: {} }, [], []);
    // only `reads` needs the collector: `other`'s options are not its business
    expect(seen).toEqual([{ reads: { limit: 7 } }]);
    expect(coll.data?.reader).toEqual({ limit: 7 });
    snap.collectors = runner.record();
    const record = { id: 'reader', version: 1, scope: 'collection', couldNot: [], options: { reads: { limit: 7 } } };
    expect(snap.collectors).toEqual([record]);
    const back = parseSnapshot(JSON.parse(serializeSnapshot(snap, [reader])), 'test', [reader]);
    expect(back.collectors[0]?.options).toEqual({ reads: { limit: 7 } });
  });

  it('a collector run without a resolved list gets an empty map (and records no options)', async () => {
    seen.length = 0;
    const snap = snapshotOf([collectionOf('a')]);
    const base = { adapter: readOnly(noServer), server: snap.server, maxTimeMS: 1, serverStatus: null, runNotes: [] };
    const runner = new CollectorRunner([reader], base);
    const coll = snap.databases[0]?.collections[0];
    if (!coll) throw new Error('fixture has no collection');
    await runner.collection(coll, { name: 'a', type: 'collection', options: {} }, [], []);
    expect(seen).toEqual([{}]);
    expect(runner.record()[0]).not.toHaveProperty('options');
  });
});

describe('a database collector reads the data of those that ran before it', () => {
  const noServer = { source: 'none', roundTrips: 0 } as unknown as Adapter;
  it('sees the earlier data for its database (a copy: it cannot add to it), and the later see its own', async () => {
    const shared = defineCollector<{ n: number }, 'database'>({
      id: 'shared',
      version: 1,
      scope: 'database',
      description: 'test',
      schema: {},
      collect: () => Promise.resolve({ n: 3 }),
    });
    const saw: unknown[] = [];
    const mine = defineCollector<{ twice: number }, 'database'>({
      id: 'mine',
      version: 1,
      scope: 'database',
      description: 'test',
      schema: {},
      collect(ctx) {
        saw.push(ctx.data);
        const n = dataOf(shared, ctx)?.n ?? 0;
        expect(() => Object.assign(ctx.data ?? {}, { planted: 1 })).toThrow();
        return Promise.resolve({ twice: 2 * n });
      },
    });
    const snap = snapshotOf([collectionOf('a')]);
    const base = { adapter: readOnly(noServer), server: snap.server, maxTimeMS: 1, serverStatus: null, runNotes: [] };
    const db = snap.databases[0];
    if (!db) throw new Error('fixture has no database');
    await new CollectorRunner([shared, mine], base).database(db, []);
    expect(saw).toEqual([{ shared: { n: 3 } }]);
    expect(db.data).toEqual({ shared: { n: 3 }, mine: { twice: 6 } });
  });
});

describe('loadConfig resolves the run list once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-options-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the configured options, defaulted, for the enabled rules', () => {
    writeFileSync(join(dir, 'package.json'), '{}');
    const config = { rules: { reads: { options: { limit: 11 } }, other: 'off' } };
    writeFileSync(join(dir, '.mongo-advisor.json'), JSON.stringify(config));
    const { resolved } = loadConfig({ cwd: dir, rules: [reads, other] });
    expect(resolved.map((r) => [r.rule.id, r.options])).toEqual([['reads', { limit: 11 }]]);
  });

  it('names the file and each rule with bad options', () => {
    writeFileSync(join(dir, '.mongo-advisor.json'), JSON.stringify({ rules: { reads: { options: { limit: 'x' } } } }));
    expect(() => loadConfig({ cwd: dir, rules: [reads, other] })).toThrow(
      /Invalid configuration in .*\.mongo-advisor\.json: rules\.reads\.options: option "limit" of rule reads must/,
    );
  });
});
