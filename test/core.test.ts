import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineRule } from '../src/core/rule';
import { analyze } from '../src/core/runner';
import { entropyBits, medianInterval, percentile, spearmanWithPosition } from '../src/core/stats';
import { fillTemplate, redactUri } from '../src/core/format';
import { Budget, judge, ratioOf, timeTrials } from '../src/confirm/harness';
import { collectionOf, snapshotOf } from './support/fixtures';

const noOptions = { type: 'object' as const, properties: {}, additionalProperties: false as const };

describe('stats', () => {
  it('percentiles interpolate', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([5], 95)).toBe(5);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });
  it('spearman is 1 for increasing, -1 for decreasing, near 0 for a shuffle', () => {
    expect(spearmanWithPosition([1, 2, 3, 10, 20])).toBeCloseTo(1);
    expect(spearmanWithPosition([5, 4, 3, 2, 1])).toBeCloseTo(-1);
    const n = 997;
    const shuffled = Array.from({ length: n }, (_, i) => (i * 389) % n);
    expect(Math.abs(spearmanWithPosition(shuffled))).toBeLessThan(0.1);
  });
  it('entropy: 8 bits for 256 equal bins, 0 for one', () => {
    expect(entropyBits(new Array<number>(256).fill(3))).toBeCloseTo(8);
    expect(entropyBits([10])).toBe(0);
  });
  it('ratio of two arms: the median of paired ratios, an order-statistic interval with its real coverage', () => {
    const a = [10, 11, 9, 10.5, 10.2, 9.8, 10.1, 10, 11, 9, 10.5, 10.2, 9.8, 10.1];
    const b = [5, 5.2, 4.9, 5.1, 5, 4.8, 5.05, 5, 5.2, 4.9, 5.1, 5, 4.8, 5.05];
    const r = ratioOf('a/b', { label: 'a', samples: a, complete: true }, { label: 'b', samples: b, complete: true });
    expect(r.low).toBeLessThan(2.05);
    expect(r.high).toBeGreaterThan(1.95);
    expect(r.coverage).toBeCloseTo(1 - 2 / 128, 12); // min–max of 7 blocks of 2 pairs
    expect(judge({ direction: 'above', size: 1 }, r)).toBe('supported'); // about 2x: well clear of 1 × 1.1
    expect(judge({ direction: 'above', size: 1 }, { low: 0.9, high: 1.2, coverage: r.coverage })).toBe('inconclusive');
    expect(medianInterval([3, 1, 2, 5, 4])).toMatchObject({ median: 3, low: 1, high: 5, coverage: 0.9375 });
  });
});

describe('format', () => {
  it('never shows a password or the query string', () => {
    expect(
      redactUri(
        'mongodb://bob:hunter2@db1:27017,db2/app?authSource=admin&authMechanismProperties=AWS_SESSION_TOKEN:xyz',
      ),
    ).toBe('mongodb://bob:****@db1:27017,db2/app');
    expect(redactUri('mongodb+srv://cluster.example.net/')).toBe('mongodb+srv://cluster.example.net/');
  });
  it('fills templates and keeps unknown placeholders visible', () => {
    expect(fillTemplate('{{a}} and {{b}}', { a: 12345 })).toBe('12,345 and {{b}}');
  });

  it('keeps a name holding backticks one code span where the placeholder is a span of its own', () => {
    const filled = fillTemplate('Index `{{index}}` ({{n}} keys, `{{n}}`)', { index: 'a`b``c', n: 1200 });
    // a fence longer than the longest run inside: CommonMark reads it as the one name
    expect(filled).toBe('Index ```a`b``c``` (1,200 keys, `1,200`)');
    expect(fillTemplate('`{{index}}`', { index: '`edge`' })).toBe('`` `edge` ``');
    expect(fillTemplate('`{{index}}`', { index: 'plain' })).toBe('`plain`');
  });

  it('rules that quote a name in a sentence do it through codeSpan, not a hand-made `${name}` span', () => {
    // Every rule's source files (tests aside).
    const rulesDir = join(__dirname, '..', 'rules');
    const files = readdirSync(rulesDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        readdirSync(join(rulesDir, d.name))
          .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
          .map((f) => join(rulesDir, d.name, f)),
      );
    const handMade = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.includes('\\`${'))
        .map((l) => `${f}: ${l.trim()}`),
    );
    expect(files.length).toBeGreaterThan(30);
    expect(handMade).toEqual([]);
  });
});

describe('runner', () => {
  const snap = snapshotOf([collectionOf('a'), collectionOf('b')]);
  const boom = defineRule({
    id: 'boom',
    scope: 'collection',
    meta: {
      description: 'throws',
      docsUrl: 'https://example.invalid',
      severity: 'warn',
      messages: { m: 'x' },
      options: noOptions,
      requires: { capabilities: [] },
    },
    analyze({ collection }) {
      if (collection?.name === 'a') throw new Error('kaput');
    },
  });
  const fine = defineRule({
    id: 'fine',
    scope: 'collection',
    meta: {
      description: 'reports',
      docsUrl: 'https://example.invalid',
      severity: 'info',
      messages: { m: 'seen {{name}}' },
      options: noOptions,
      requires: { capabilities: [] },
    },
    analyze({ collection, report }) {
      if (collection)
        report({
          messageId: 'm',
          target: { db: collection.db, collection: collection.name },
          data: { name: collection.name },
          evidence: {},
        });
    },
  });
  const needy = defineRule({
    id: 'needy',
    scope: 'snapshot',
    meta: {
      description: 'needs $indexStats',
      docsUrl: 'https://example.invalid',
      severity: 'warn',
      messages: {},
      options: noOptions,
      requires: { capabilities: ['indexStats'] },
    },
    analyze() {
      throw new Error('must not run');
    },
  });

  it('turns a throwing rule into one internal-error finding and runs the rest', () => {
    const out = analyze(snap, {}, [boom, fine]);
    const internal = out.findings.filter((f) => f.messageId === 'internalError');
    expect(internal).toHaveLength(1);
    expect(internal[0]?.message).toContain('kaput');
    expect(out.findings.filter((f) => f.ruleId === 'fine').map((f) => f.message)).toEqual(['seen a', 'seen b']);
  });

  it('skips a rule the server cannot serve, with the reason', () => {
    const s = snapshotOf([collectionOf('a')]);
    s.server.capabilities.indexStats = {
      supported: false,
      evidence: 'aggregate $indexStats failed: NotImplemented (238)',
    };
    const out = analyze(s, {}, [needy]);
    expect(out.findings).toEqual([]);
    expect(out.notes[0]?.message).toMatch(/needy: could not check .*indexStats .*NotImplemented/);
  });

  it('applies a user severity to the whole rule and turns rules off', () => {
    expect(analyze(snap, { rules: { fine: 'error' } }, [fine]).findings.every((f) => f.severity === 'error')).toBe(
      true,
    );
    expect(analyze(snap, { rules: { fine: 'off' } }, [fine]).findings).toEqual([]);
  });
});

describe('trial harness', () => {
  it('runs warm-up plus at least five trials', async () => {
    let calls = 0;
    const t = await timeTrials(
      'x',
      new Budget(10_000),
      async () => {
        calls++;
      },
      { warmup: 2, trials: 3 },
    );
    expect(t.samples).toHaveLength(5);
    expect(calls).toBe(7);
    expect(t.complete).toBe(true);
  });
  it('stops when the budget runs out and says the result is incomplete', async () => {
    const t = await timeTrials('slow', new Budget(30), () => new Promise((r) => setTimeout(r, 20)));
    expect(t.complete).toBe(false);
    expect(t.samples.length).toBeLessThan(5);
  });
});
