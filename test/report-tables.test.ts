/**
 * A rule's tables (`tables` on the rule contract, `ReportTable` in src/core/types.ts) in every format: HTML and
 * Markdown render them with every name escaped, JSON holds them as they are, text, SARIF and JUnit leave them out.
 * And the runner: a rule's tables reach the result, a table with a row of the wrong width or a `tables` that throws
 * becomes a note, and ranked findings come highest rank first.
 */
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';
import { analyzeAndConfirm } from '../src/check';
import { defineRule } from '../src/core/rule';
import { analyze } from '../src/core/runner';
import type { CheckResult, ReportTable } from '../src/core/types';
import { ruleCatalog } from '../src/report/catalog';
import { firstSentence } from '../src/report/group';
import { formatHtml, loadHtmlAssets } from '../src/report/html';
import { formatJson } from '../src/report/json';
import { formatJunit } from '../src/report/junit';
import { formatMarkdown } from '../src/report/markdown';
import { formatSarif } from '../src/report/sarif';
import { formatText } from '../src/report/text';
import { checkResultOf, collectionOf, snapshotOf } from './support/fixtures';

const HOSTILE = 'o<img src=x onerror=alert(1)>|`x`[a](javascript:alert(1))\u001b[31m';
const TITLE = 'Planted table title';

function table(coll: string): ReportTable {
  return {
    ruleId: 'planted',
    title: TITLE,
    target: { db: 'shop' },
    caption: 'How to read it: `code` and prose.',
    columns: [
      { title: 'collection', kind: 'name' },
      { title: 'shape', kind: 'code' },
      { title: 'calls', kind: 'count' },
      { title: 'time', kind: 'ms' },
      { title: 'served', kind: 'text' },
    ],
    rows: [
      [coll, 'db.orders.find({ status: ?string })', 12345, 1500, 'in part'],
      ['events', null, 3, 0, null],
    ],
  };
}

const resultWith = (coll: string): CheckResult => checkResultOf([], { tables: [table(coll)] });

describe('rule tables in the reports', () => {
  it('HTML: a cell per column, figures formatted and right-aligned, a hostile name escaped', () => {
    const html = formatHtml({ result: resultWith(HOSTILE), snapshot: snapshotOf([]) }, loadHtmlAssets());
    const start = html.indexOf('<h2>Tables</h2>');
    expect(start).toBeGreaterThan(-1);
    const section = html.slice(start, html.indexOf('</table>', start));
    expect(section).toContain(TITLE);
    expect(section).toContain('<td class="num">12,345</td>');
    expect(section).toContain('<td class="num">1.5 s</td>');
    expect(section).toContain('<td class="num">0 ms</td>');
    expect(section).toContain('<td>—</td>');
    expect(section.match(/<tr>/g)).toHaveLength(3);
    // The name is text: no tag, no raw escape character.
    expect(section).not.toContain('<img');
    expect(section).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(section).not.toMatch(/\u001b/);
  });

  it('Markdown: names in code spans, pipes escaped, no link or HTML from the data', () => {
    const md = formatMarkdown(resultWith(HOSTILE));
    const lines = md.split('\n');
    const head = lines.findIndex((l) => l.startsWith('| collection |'));
    expect(lines[head - 2]?.startsWith('How to read it')).toBe(true);
    expect(lines[head + 1]).toBe('|---|---|---:|---:|---|');
    const row = lines[head + 2] ?? '';
    // Five cells: the pipe in the name does not start a sixth.
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(7);
    expect(row).toContain('| 12,345 | 1.5 s | in part |');
    expect(row).not.toMatch(/\u001b/);
    expect(row.startsWith('| ``')).toBe(true); // a code span fenced past the name's backtick
    expect(lines[head + 3]).toBe('| `events` | — | 3 | 0 ms | — |');
  });

  it('JSON holds the table as is; text, SARIF and JUnit leave it out', () => {
    const result = resultWith('orders');
    const json = JSON.parse(formatJson(result)) as CheckResult;
    expect(json.tables).toEqual([table('orders')]);
    const catalog = { rules: ruleCatalog(rules) };
    for (const out of [
      formatText(result, { color: false }),
      formatSarif(result, catalog),
      formatJunit(result, catalog),
    ]) {
      expect(out).not.toContain(TITLE);
    }
    // No table: no key, no section.
    const none = checkResultOf([]);
    expect(JSON.parse(formatJson(none))).not.toHaveProperty('tables');
    expect(formatMarkdown(none)).not.toContain('| collection |');
  });
});

const ranked = defineRule({
  id: 'ranked',
  scope: 'collection',
  meta: {
    description: 'a test rule that ranks its findings and makes a table',
    docsUrl: 'https://www.mongodb.com/docs/manual/',
    severity: 'warn',
    messages: { seen: 'Seen {{name}}.' },
    options: { type: 'object', additionalProperties: false, properties: {} },
    requires: { capabilities: [] },
  },
  analyze({ collection: c, report }) {
    if (!c) return;
    const rank = { a: 1, b: 30, c: 20 }[c.name];
    report({ messageId: 'seen', target: { db: c.db, collection: c.name }, data: { name: c.name }, evidence: {}, rank });
  },
  tables: ({ findings }) => [
    {
      title: 'Seen',
      target: { db: 'app' },
      columns: [{ title: 'collection', kind: 'name' }],
      rows: findings.map((f) => [f.target.collection ?? null]),
    },
  ],
});

describe('the runner', () => {
  const snapshot = snapshotOf(['a', 'b', 'c', 'd'].map((n) => collectionOf(n)));

  it('lists ranked findings highest first, before the unranked ones', () => {
    const { findings } = analyze(snapshot, {}, [ranked]);
    expect(findings.map((f) => f.target.collection)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('puts the rule tables, made from the run findings, in the result', async () => {
    const result = await analyzeAndConfirm(snapshot, null, { db: 'app', rules: [ranked], confirm: false });
    expect(result.tables).toEqual([
      {
        ruleId: 'ranked',
        title: 'Seen',
        target: { db: 'app' },
        columns: [{ title: 'collection', kind: 'name' }],
        rows: [['b'], ['c'], ['a'], ['d']],
      },
    ]);
  });

  it('a table with a row of another width, or tables that throw, becomes a note', async () => {
    const ragged = { ...ranked, tables: () => [{ ...table('x'), rows: [['only one']] }] };
    const throws = {
      ...ranked,
      id: 'throws',
      tables: () => {
        throw new Error('planted failure');
      },
    };
    for (const [rule, why] of [
      [ragged, 'row 1 of "Planted table title" does not have one cell per column'],
      [throws, 'planted failure'],
    ] as const) {
      const result = await analyzeAndConfirm(snapshot, null, { db: 'app', rules: [rule], confirm: false });
      expect(result.tables).toBeUndefined();
      expect(result.notes.map((n) => n.message)).toContain(`${rule.id}: its report tables failed: ${why}`);
    }
  });
});

describe('the first sentence of a message', () => {
  it("is not cut at a query shape's placeholder", () => {
    const m =
      'A $lookup matches db.orders.$lookup.foreignField({ customerId: ? }) with no index. The index would serve it.';
    expect(firstSentence(m)).toBe('A $lookup matches db.orders.$lookup.foreignField({ customerId: ? }) with no index.');
    expect(firstSentence('Is it slow? Yes.')).toBe('Is it slow?');
    expect(firstSentence('It reads 1.5 documents, e.g. twice. Then more.')).toBe('It reads 1.5 documents, e.g. twice.');
  });
});
