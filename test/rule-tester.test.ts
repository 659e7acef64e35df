import { expect, it } from 'vitest';
import { defineRule, type ReportedFinding } from '../src/core/rule';
import type { Finding, Snapshot } from '../src/core/types';
import arrayGrowth from '../rules/array-growth/index';
import { collectionOf, docWithArray, sampleOf, snapshotOf, withServer } from './support/fixtures';
import {
  checkCase,
  compareFindings,
  compareNotes,
  type ExpectedFinding,
  findingTextProblems,
  matchOneToOne,
  noteTextProblems,
  runRule,
  snapshotProblems,
} from './support/rule-tester';
import { collectFromDocs, mapKeyProblems } from './support/rule-tester';
import type { Doc } from '../src/adapters/types';
import { PathFolder } from '../src/core/fold';
import { defineCollector } from '../src/core/collector';
import type { DynamicKeyProfile } from '../src/core/types';
import { ran, withData } from './support/fixtures';

/*
 * The strict rule tester's own checks, run on deliberately wrong expectations: each must fail, and say why. These
 * call the tester's pure functions (no ruleTester, so no nested describe blocks).
 */

const finding = (over: Partial<Finding> = {}): Finding => ({
  ruleId: 'fake',
  messageId: 'big',
  severity: 'warn',
  target: { db: 'app', collection: 'posts', path: 'comments' },
  message: 'Array `comments` is big: 1,000 elements.',
  evidence: { length: 1000 },
  docsUrl: 'https://www.mongodb.com/docs/manual/',
  ...over,
});
const expected = (over: Partial<ExpectedFinding> = {}): ExpectedFinding => ({
  messageId: 'big',
  severity: 'warn',
  target: { db: 'app', collection: 'posts', path: 'comments' },
  ...over,
});
const messages = { big: 'Array `{{path}}` is big: {{n}} elements.', small: 'Array `{{path}}` is small.' };

it('passes when every expected finding matches one reported finding, in any order', () => {
  const a = finding();
  const b = finding({
    messageId: 'small',
    severity: 'info',
    target: { db: 'app', collection: 'posts', path: 'tags' },
    message: 'Array `tags` is small.',
  });
  const r = compareFindings(
    [
      expected({ messageId: 'small', severity: 'info', target: { db: 'app', collection: 'posts', path: 'tags' } }),
      expected(),
    ],
    [a, b],
    messages,
  );
  expect(r.pass).toBe(true);
  expect(r.matched.sort()).toEqual([
    [0, 1],
    [1, 0],
  ]);
  expect(r.report).toBe('');
});

it('fails on an unexpected finding (a bogus one after a real one), listing both sides', () => {
  const bogus = finding({ messageId: 'bogus', severity: 'error', message: 'injected' });
  const r = compareFindings([expected()], [finding(), bogus], messages);
  expect(r.pass).toBe(false);
  expect(r.missing).toEqual([]);
  expect(r.unexpected).toEqual([bogus]);
  expect(r.report).toContain('unexpected (reported, not expected): 1');
  expect(r.report).toContain('error bogus');
  expect(r.report).toMatch(/expected \(all\):\n {2}1\. warn big/);
  expect(r.report).toMatch(/reported \(all\):\n {2}1\. warn big .*\n {2}2\. error bogus/);
});

it('fails on a duplicate of a real finding: matching is one to one', () => {
  const r = compareFindings([expected()], [finding(), finding()], messages);
  expect(r.pass).toBe(false);
  expect(r.unexpected).toHaveLength(1);
});

it('fails on a missing finding, naming the closest reported one and how it differs', () => {
  const r = compareFindings(
    [expected(), expected({ severity: 'error', messageIncludes: '1,000' })],
    [finding()],
    messages,
  );
  expect(r.pass).toBe(false);
  expect(r.missing).toEqual([expected({ severity: 'error', messageIncludes: '1,000' })]);
  expect(r.report).toContain('missing (expected, not reported): 1');
  expect(r.report).toContain('severity: expected error, got warn');
  expect(r.report).toContain('reported (all):');
});

it('fails when nothing was reported', () => {
  const r = compareFindings([expected()], [], messages);
  expect(r.pass).toBe(false);
  expect(r.report).toContain('reported (all):\n  (none)');
});

it(
  'each field of an expectation is checked: messageId, severity, target (whole), text, data, evidence, ' +
    'recommendation',
  () => {
    const f = finding({
      recommendation: {
        action: 'reference',
        reason: 'Each $push rewrites the document.',
        commands: ['db.createCollection("comments")'],
      },
    });
    const wrong: [Partial<ExpectedFinding>, string][] = [
      [{ messageId: 'small' }, 'messageId: expected small, got big'],
      [{ severity: 'info' }, 'severity: expected info, got warn'],
      [{ target: { db: 'app', collection: 'posts' } }, 'target: expected'],
      [{ target: { db: 'app', collection: 'posts', path: 'comments', index: 'x' } }, 'target: expected'],
      [{ message: 'Array `comments` is big.' }, 'message: expected'],
      [{ messageIncludes: ['1,000', '2,000'] }, 'message does not include "2,000"'],
      [
        { data: { path: 'comments', n: 999 } },
        'message (from data): expected "Array `comments` is big: 999 elements."',
      ],
      [{ evidence: { length: 999 } }, 'evidence.length: expected 999, got 1000'],
      [{ evidence: { width: 1 } }, 'evidence.width: expected 1, not reported'],
      [{ recommendation: { action: 'bucket pattern' } }, 'recommendation.action'],
      [{ recommendation: { commands: ['db.createCollection("other")'] } }, 'recommendation.commands'],
      [{ recommendation: { commands: [/^db\.dropDatabase/] } }, 'recommendation.commands'],
      [{ recommendation: { reasonIncludes: 'bucket' } }, 'recommendation.reason does not include'],
      [{ recommendation: null }, 'recommendation: expected none'],
    ];
    for (const [over, why] of wrong) {
      const r = compareFindings([expected(over)], [f], messages);
      expect(r.pass, JSON.stringify(over)).toBe(false);
      expect(r.report, JSON.stringify(over)).toContain(why);
    }
    // and the right values pass
    const right = expected({
      data: { path: 'comments', n: 1000 },
      message: 'Array `comments` is big: 1,000 elements.',
      messageIncludes: '1,000',
      evidence: { length: 1000 },
      recommendation: {
        action: 'reference',
        reasonIncludes: '$push',
        commands: [/^db\.createCollection\("comments"\)$/],
      },
    });
    expect(compareFindings([right], [f], messages).pass).toBe(true);
  },
);

it('finds the one-to-one matching even when a loose expectation also fits the finding a strict one needs', () => {
  const warn = finding();
  const error = finding({
    severity: 'error',
    target: { db: 'app', collection: 'posts', path: 'comments' },
    message: 'Array `comments` is big: 20,000 elements.',
  });
  // expectation 1 fits only `error`... listed after the loose one that fits both
  const loose = expected({ severity: 'error' });
  const strict = expected({ severity: 'error', messageIncludes: '20,000' });
  expect(compareFindings([loose, strict], [error, finding({ severity: 'error' })], messages).pass).toBe(true);
  expect(compareFindings([expected(), strict], [warn, error], messages).pass).toBe(true);
  expect(matchOneToOne(2, 2, (l, r) => (l === 0 ? true : r === 0))).toEqual([1, 0]);
});

it('flags leftover placeholders and missing values in every text of a finding', () => {
  const cases: [Partial<Finding>, string][] = [
    [{ message: 'Array `{{path}}` is big.' }, 'message has a leftover placeholder {{path}}'],
    [{ message: 'Array `comments` holds undefined elements.' }, 'message has "undefined"'],
    [{ message: 'It is NaN% of its document.' }, 'message has "NaN"'],
    [{ message: 'Reaches 16 MiB in Infinity days.' }, 'message has "Infinity"'],
    [{ message: 'Largest field: null.' }, 'message has "null"'],
    [{ message: 'Largest field: [object Object].' }, 'message has "[object …]"'],
    [{ message: '' }, 'message is empty'],
    [{ recommendation: { action: '{{action}}', reason: 'r' } }, 'recommendation.action has a leftover placeholder'],
    [{ recommendation: { action: 'a', reason: 'saves undefined' } }, 'recommendation.reason has "undefined"'],
    [
      { recommendation: { action: 'a', reason: 'r', commands: ['db.createCollection("null")'] } },
      'recommendation.commands[0] has "null"',
    ],
    [
      { recommendation: { action: 'a', reason: 'r', commands: ['db.undefined.find()'] } },
      'recommendation.commands[0] has "undefined"',
    ],
    [{ evidence: { share: Number.NaN } }, 'evidence.share is NaN'],
    [{ evidence: { nested: { a: 1 } as never } }, 'evidence.nested is an object'],
    [{ ruleId: 'other' }, 'ruleId is "other", not "fake"'],
    [{ docsUrl: '' }, 'docsUrl is not a link'],
  ];
  for (const [over, why] of cases)
    expect(findingTextProblems(finding(over), 'fake').join('\n'), JSON.stringify(over)).toContain(why);
  // null as a mongosh literal is a value, not a missing one
  expect(
    findingTextProblems(
      finding({
        recommendation: {
          action: 'a',
          reason: 'r',
          commands: [
            'var schema = { bsonType: ["null", "string"], ok: [true, null] }',
            'db.x.distinct("a").concat([null])',
          ],
        },
      }),
      'fake',
    ),
  ).toEqual([]);
  expect(noteTextProblems({ level: 'skipped', message: 'x: $indexStats gave accesses.since null' })).toEqual([]);
  expect(noteTextProblems({ level: 'skipped', message: 'x: {{count}} indexes' })[0]).toContain('leftover placeholder');
});

it('matches notes one to one: an extra or a missing note fails', () => {
  const notes = [
    { level: 'skipped' as const, message: 'fake: could not read A' },
    { level: 'skipped' as const, message: 'fake: could not read B' },
  ];
  expect(compareNotes(['fake: could not read A', { includes: 'read B' }], notes)).toBe('');
  expect(compareNotes(['fake: could not read A'], notes)).toContain('unexpected notes: 1');
  expect(
    compareNotes([{ includes: 'could not read' }, { includes: 'could not read' }, { includes: 'C' }], notes),
  ).toContain('missing notes: 1');
  expect(compareNotes([], notes)).toContain('expected 0 note(s), the rule left 2');
});

it('refuses a fixture that does not match the snapshot schema or a JSON round trip', () => {
  const good = snapshotOf([collectionOf('posts')]);
  expect(snapshotProblems(good)).toEqual([]);
  const badType = snapshotOf([
    collectionOf('posts', {
      stats: {
        count: '10' as unknown as number,
        sizeBytes: 1,
        avgObjSize: 1,
        storageSizeBytes: 1,
        totalIndexSizeBytes: 1,
        nindexes: 1,
        blockCompressor: null,
      },
    }),
  ]);
  expect(snapshotProblems(badType).join('\n')).toMatch(/not a valid snapshot.*count must be number/);
  const missing = snapshotOf([collectionOf('posts')]) as Partial<Snapshot>;
  delete missing.roundTrips;
  expect(snapshotProblems(missing as Snapshot).join('\n')).toContain('missing "roundTrips"');
  const notJson = snapshotOf([
    collectionOf('posts', {
      sample: sampleOf([
        { bytes: Number.NaN, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] },
      ]),
    }),
  ]);
  expect(snapshotProblems(notJson).join('\n')).toContain('changes in a JSON round trip');
});

// A rule under our control, to prove checkCase fails each way it should.
const fake = (analyze: (report: (f: ReportedFinding) => void, snapshot: Snapshot) => void) =>
  defineRule({
    id: 'fake',
    scope: 'snapshot',
    meta: {
      description: 'a fake rule for the tester tests',
      docsUrl: 'https://www.mongodb.com/docs/manual/',
      severity: 'warn',
      messages,
      options: { type: 'object', properties: {}, additionalProperties: false },
      requires: { capabilities: [] },
    },
    // Loosely typed on purpose: these rules misbehave in ways the types of defineRule would refuse to compile.
    analyze: ({ report, snapshot }) => analyze(report as unknown as (f: ReportedFinding) => void, snapshot),
  });
const snap = snapshotOf([collectionOf('posts')]);
const big = (report: (f: ReportedFinding) => void, severity?: 'info') =>
  report({
    messageId: 'big',
    ...(severity ? { severity } : {}),
    target: { db: 'app', collection: 'posts', path: 'comments' },
    data: { path: 'comments', n: 1000 },
    evidence: {},
  });

it('a valid case fails on any finding, info included', () => {
  expect(
    checkCase(
      fake(() => undefined),
      { name: 'quiet', snapshot: snap },
    ),
  ).toEqual([]);
  const problems = checkCase(
    fake((report) => big(report, 'info')),
    { name: 'info', snapshot: snap },
  );
  expect(problems.join('\n')).toContain('a valid case must produce no finding at all; the rule reported 1');
});

it(
  'a valid case without notes fails when the rule gave up (a skipped or error note), and passes when the case ' +
    'lists it',
  () => {
    const gaveUp = defineRule({
      id: 'fake',
      scope: 'snapshot',
      meta: {
        description: 'gives up',
        docsUrl: 'https://www.mongodb.com/docs/manual/',
        severity: 'warn',
        messages,
        options: { type: 'object', properties: {}, additionalProperties: false },
        requires: { capabilities: [] },
      },
      analyze: ({ note }) => note('fake: could not check: the statistics were not read', undefined, 'skipped'),
    });
    expect(checkCase(gaveUp, { name: 'silent', snapshot: snap }).join('\n')).toContain(
      'a valid case without `notes` must leave no skipped or error note (the rule may have given up); it left 1',
    );
    expect(checkCase(gaveUp, { name: 'listed', snapshot: snap, notes: [{ includes: 'could not check' }] })).toEqual([]);
  },
);

it('an invalid case fails on a rule that throws, even when it expected the internal error', () => {
  const throws = fake(() => {
    throw new Error('boom');
  });
  const problems = checkCase(throws, {
    name: 'throws',
    snapshot: snap,
    findings: [{ messageId: 'internalError', severity: 'warn', target: { db: 'app' } }],
  });
  expect(problems.join('\n')).toContain('the rule threw: Rule fake failed internally and checked nothing here: boom');
  expect(problems.join('\n')).toContain('messageId "internalError" is not one of the rule\'s messages');
});

it('a case fails when the rule leaves a placeholder unfilled', () => {
  const half = fake((report) =>
    report({ messageId: 'big', target: { db: 'app' }, data: { path: 'comments' }, evidence: {} }),
  );
  expect(
    checkCase(half, {
      name: 'half',
      snapshot: snap,
      findings: [{ messageId: 'big', severity: 'warn', target: { db: 'app' } }],
    }).join('\n'),
  ).toContain('leftover placeholder {{n}}');
});

it('a case fails when the rule writes to the snapshot (analysis is pure)', () => {
  const writes = fake((_report, s) => {
    s.notes.push({ level: 'info', message: 'mine' });
  });
  expect(checkCase(writes, { name: 'writes', snapshot: snap }).join('\n')).toMatch(
    /the rule threw: .*(read only|not extensible|frozen)/,
  );
});

it('an invalid case fails when it lists no finding, or a finding the rule has no message for', () => {
  const rule = fake((report) => big(report));
  expect(checkCase(rule, { name: 'none', snapshot: snap, findings: [] }).join('\n')).toContain(
    'an invalid case must list at least one finding',
  );
  expect(
    checkCase(rule, { name: 'unknown id', snapshot: snap, findings: [expected({ messageId: 'huge' })] }).join('\n'),
  ).toContain('messageId "huge" is not one of the rule\'s messages');
  expect(
    checkCase(rule, { name: 'right', snapshot: snap, findings: [expected({ data: { path: 'comments', n: 1000 } })] }),
  ).toEqual([]);
});

it('a case fails when its fixture fails the schema, and when the options are refused', () => {
  const rule = fake(() => undefined);
  const bad = withServer(snap, { topology: 'cluster' as never });
  expect(checkCase(rule, { name: 'bad fixture', snapshot: bad }).join('\n')).toContain(
    'snapshot: the snapshot fixture is not a valid snapshot',
  );
  expect(checkCase(rule, { name: 'bad option', snapshot: snap, options: { nope: 1 } }).join('\n')).toContain(
    'the run threw',
  );
});

it('on a real rule: a wrong expectation fails, and so does an injected extra finding', () => {
  const snapshot = snapshotOf([
    collectionOf('posts', { sample: sampleOf([docWithArray('comments', 12_000, 1000, null)]) }),
  ]);
  const right: ExpectedFinding[] = [
    {
      messageId: 'tooLongArray',
      severity: 'error',
      target: { db: 'app', collection: 'posts', path: 'comments' },
      messageIncludes: '12,000',
    },
  ];
  expect(checkCase(arrayGrowth, { name: 'right', snapshot, findings: right })).toEqual([]);
  // the rule reports an error, not a warning
  expect(
    checkCase(arrayGrowth, {
      name: 'wrong severity',
      snapshot,
      findings: [{ ...(right[0] as ExpectedFinding), severity: 'warn' }],
    }).join('\n'),
  ).toContain('severity: expected warn, got error');
  // an extra finding the rule does not report
  const extra: ExpectedFinding = {
    messageId: 'growingArray',
    severity: 'error',
    target: { db: 'app', collection: 'posts', path: 'comments' },
  };
  expect(checkCase(arrayGrowth, { name: 'one too many', snapshot, findings: [...right, extra] }).join('\n')).toContain(
    'missing (expected, not reported): 1',
  );
  // a bogus finding after the real one, as a broken report() would add
  const reported = runRule(arrayGrowth, snapshot);
  const bogus = { ...(reported[0] as Finding), messageId: 'bogus', severity: 'error' as const };
  const r = compareFindings(right, [...reported, bogus], arrayGrowth.meta.messages);
  expect(r.pass).toBe(false);
  expect(r.unexpected).toEqual([bogus]);
});

// ---------------------------------------------------------------------------------------------------------------
// Map keys: a collector that walks raw documents without folding records user data (SKUs) as paths.

/** Numbers per path of the raw documents; `fold` false: the newcomer's mistake, every key kept as it is. */
const numbersPerPath = (fold: boolean) =>
  defineCollector<{ byPath: Record<string, number> }, 'collection'>({
    id: 'numbers',
    version: 1,
    scope: 'collection',
    description: 'numbers per path in the sample (in process, no command)',
    schema: {
      type: 'object',
      required: ['byPath'],
      additionalProperties: false,
      properties: { byPath: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } } },
    },
    async collect(ctx) {
      const folder = new PathFolder(fold ? ctx.collection.sample.dynamicKeys : []);
      const byPath: Record<string, number> = {};
      const walk = (o: Doc, path: string): void => {
        for (const [key, v] of Object.entries(o)) {
          const child = folder.child(path, key);
          if (typeof v === 'number') byPath[child] = (byPath[child] ?? 0) + 1;
          else if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Doc, child);
        }
      };
      for (const d of ctx.docs) walk(d, '');
      return { byPath };
    },
  });

/** 12 orders, 2 SKUs each out of 12 distinct ones (enough for the profiler to call `bySku` a map). */
const SKUS = ['SKU-123', 'SKU-456', ...Array.from({ length: 10 }, (_, i) => `SKU-${700 + i}`)];
const orders: Doc[] = SKUS.map((sku, i) => {
  const next = SKUS[(i + 1) % SKUS.length] as string;
  return { _id: `o${i}`, total: 10 + i, bySku: { [sku]: 1, [next]: 2 } };
});

it('collectFromDocs fails, naming the key, when a collector keeps map keys of the documents it walks', async () => {
  const run = collectFromDocs(numbersPerPath(false), orders);
  await expect(run).rejects.toThrow('the key "bySku.SKU-123" holds the map key "SKU-123"');
  await expect(run).rejects.toThrow('the key "bySku.SKU-456" holds the map key "SKU-456"');
  await expect(run).rejects.toThrow('fold paths with PathFolder (src/core/fold.ts');
});

it('collectFromDocs passes the same collector once it folds, and hands back its data and a snapshot', async () => {
  const { data, snapshot, collection } = await collectFromDocs(numbersPerPath(true), orders);
  expect(data).toEqual({ byPath: { total: 12, 'bySku.<key>': 24 } });
  expect(collection.sample.dynamicKeys.map((m) => m.path)).toEqual(['bySku']);
  expect(snapshotProblems(snapshot, [numbersPerPath(true)])).toEqual([]);
  // below the folding thresholds the keys are field names, and keeping them is no leak
  const few = await collectFromDocs(numbersPerPath(false), orders.slice(0, 2));
  expect(few.data?.byPath).toEqual({ total: 2, 'bySku.SKU-123': 1, 'bySku.SKU-456': 2, 'bySku.SKU-700': 1 });
});

it('collectFromDocs runs collect with no server: a command fails and is noted, a write is refused', async () => {
  const asks = (cmd: Doc) =>
    defineCollector<{ n: number }, 'collection'>({
      id: 'asks',
      version: 1,
      scope: 'collection',
      description: 'one command',
      schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } } },
      async collect(ctx) {
        try {
          return { n: Number((await ctx.adapter.command('app', cmd)).n) };
        } catch (err) {
          ctx.note(`asks: ${String(err)}`);
          return null;
        }
      },
    });
  const counted = await collectFromDocs(asks({ count: 'docs' }), orders);
  expect(counted.data).toBeUndefined();
  expect(counted.notes.map((n) => n.message).join('\n')).toContain('no server in the rule tester: count was not sent');
  const deleted = await collectFromDocs(asks({ delete: 'docs', deletes: [] }), orders);
  expect(deleted.notes.map((n) => n.message).join('\n')).not.toContain('no server');
});

const bySku: DynamicKeyProfile = {
  path: 'bySku',
  objects: 12,
  distinctKeys: 12,
  medianKeys: 2,
  sharedKeyShare: 0,
  keyShapes: { code: 12 },
  valueTypes: { int: 24 },
};
const withMap = (byPath: Record<string, number>): Snapshot => {
  const orders = collectionOf('orders', { sample: sampleOf([], { dynamicKeys: [bySku] }) });
  return ran(snapshotOf([withData(orders, numbersPerPath(true), { byPath })]), numbersPerPath(true));
};
const noOptions = { type: 'object', properties: {}, additionalProperties: false } as const;
const requires = { capabilities: [] };
const docsUrl = 'https://www.mongodb.com/docs/manual/';
const reportsPath = (path: string) =>
  defineRule({
    id: 'fake',
    needs: [numbersPerPath(true)],
    scope: 'collection',
    meta: { description: 'a path', docsUrl, severity: 'warn', messages, options: noOptions, requires },
    analyze: ({ collection, report }) => {
      // loosely typed, as fake() above: `messages` is not a literal type here
      const send = report as unknown as (f: ReportedFinding) => void;
      const target = { db: 'app', collection: collection?.name ?? '', path };
      if (collection) send({ messageId: 'big', target, data: { path, n: 3 }, evidence: { path } });
    },
  });

it('a case fails when its fixture data or a finding holds a map key, and passes with the folded path', () => {
  const folded = { db: 'app', collection: 'orders', path: 'bySku.<key>' };
  const target = { ...folded, path: 'bySku.SKU-123' };
  const planted = checkCase(reportsPath(folded.path), {
    name: 'planted',
    snapshot: withMap({ 'bySku.SKU-123': 3 }),
    findings: [expected({ target: folded })],
  });
  expect(planted.join('\n')).toContain('app.orders data["numbers"]["byPath"] key holds "bySku.SKU-123", a map key');
  expect(planted.join('\n')).toContain('(folded: "bySku.<key>")');
  const invented = checkCase(reportsPath(target.path), {
    name: 'invented',
    snapshot: withMap({ 'bySku.<key>': 3 }),
    findings: [expected({ target })],
  }).join('\n');
  expect(invented).toContain('target.path holds "bySku.SKU-123"');
  expect(invented).toContain('evidence.path holds "bySku.SKU-123"');
  expect(invented).toContain('message holds "bySku.SKU-123"');
  const clean = { name: 'folded', snapshot: withMap({ 'bySku.<key>': 3 }), findings: [expected({ target: folded })] };
  expect(checkCase(reportsPath(folded.path), clean)).toEqual([]);
  // with no map in the sample the same names are fields
  const noMap = ran(snapshotOf([collectionOf('orders')]), numbersPerPath(true));
  const findings = runRule(reportsPath(target.path), noMap);
  expect(findings).toHaveLength(1);
  expect(mapKeyProblems(noMap, findings, [numbersPerPath(true)])).toEqual([]);
});
