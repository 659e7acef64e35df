/**
 * Names that try to shape the output, fed to every report path: terminal escapes, newlines, backticks, Markdown
 * images and links (a `javascript:` one too), pipes and HTML. Each format keeps its one rule (src/report/escape.ts):
 * the human formats show control characters and newlines escaped, Markdown makes no link, image or HTML from data,
 * JSON and XML keep the data but never print those characters raw. Then the formats at scale: linear, not quadratic.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';
import type { CheckResult, Confirmation, Finding } from '../src/core/types';
import { ruleCatalog } from '../src/report/catalog';
import { mdCode, mdText } from '../src/report/escape';
import { formatHtml, loadHtmlAssets } from '../src/report/html';
import { ticketSummary } from '../src/report/html-data';
import { formatJson } from '../src/report/json';
import { formatJunit } from '../src/report/junit';
import { formatMarkdown } from '../src/report/markdown';
import { formatSarif } from '../src/report/sarif';
import { formatText } from '../src/report/text';
import { checkResultOf, collectionOf, snapshotOf } from './support/fixtures';

const ESC = 'evil\u001b[31mRED\u001b]0;title\u0007';
const NEWLINE = 'line1\n✖ error  fake.report  spec-drift';
const TICKS = 'tick`s``x';
const IMAGE = '![x](http://evil.example/p.png)';
const LINK = '[a](javascript:alert(1))';
const BIDI = 'bidi\u202eC1\u009b31m';
const HTML = 'pipe|<img src=x onerror=alert(1)>';
const HOSTILE = [ESC, NEWLINE, TICKS, IMAGE, LINK, BIDI, HTML];
/** Raw characters a terminal acts on, of those the names hold. */
const RAW = /[\u001b\u0007\u009b\u202e]/;

function hostileFinding(name: string, i: number): Finding {
  const confirmation: Confirmation = {
    status: 'supported',
    summary: `measured on ${name}`,
    measurements: [],
    ratio: { label: 'a / b', median: 2, low: 1.5, high: 2.5 },
    where: 'scratch',
    durationMs: 10,
  };
  return {
    ruleId: 'array-growth',
    messageId: 'tooLong',
    severity: i % 2 ? 'warn' : 'info',
    target: { db: 'app', collection: name, path: `tags.${name}` },
    message: `Array \`${name}\` in ${name} reaches 1,000 elements.`,
    evidence: { maxLength: 1000 },
    recommendation: {
      action: `reference ${name}`,
      reason: `Each $push to ${name} rewrites it.`,
      commands: [`db.getCollection(${JSON.stringify(name)}).drop() // ${name}`],
    },
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-patterns/',
    confirmation,
  };
}

function hostileResult(): CheckResult {
  const findings = HOSTILE.map(hostileFinding);
  return checkResultOf(findings, {
    scope: { db: 'app', collections: HOSTILE },
    notes: HOSTILE.map((n) => ({
      level: 'skipped' as const,
      ruleId: 'id-pattern',
      target: { db: 'app', collection: n },
      message: `could not read ${n}`,
    })),
  });
}

interface SarifResult {
  message: { markdown: string };
  locations: { physicalLocation: { region?: { startLine: number } } }[];
  properties: { target: { collection: string } };
}
type SarifLog = { runs: { results: SarifResult[] }[] };

/** What a Markdown renderer would make live: the text left once fenced blocks and code spans (CommonMark) are out. */
function outsideCode(md: string): string {
  const noFences = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');
  let out = '';
  for (let i = 0; i < noFences.length; ) {
    if (noFences[i] === '\\') {
      i += 2; // an escaped character is text
      continue;
    }
    if (noFences[i] !== '`') {
      out += noFences[i++];
      continue;
    }
    let n = 0;
    while (noFences[i + n] === '`') n++;
    const rest = noFences.slice(i + n);
    const close = new RegExp(`(?<!\`)\`{${n}}(?!\`)`).exec(rest);
    if (!close) {
      out += '`'.repeat(n);
      i += n;
      continue;
    }
    i += n + close.index + n;
  }
  return out;
}

/** Link, image or HTML syntax from the data a renderer would act on (the report's own tags and links aside). */
function liveMarkup(md: string): string[] {
  const text = outsideCode(md)
    .replace(/<\/?(details|summary|br)>/g, '')
    .replace(/\[[\w-]+\]\(https:\/\/www\.mongodb\.com\/[^)\s]*\)/g, '');
  const live = /!\[|\]\(|<[a-z/!]|javascript:|https?:\/\/|www\.|@[\w-]+\./gi;
  return [...text.matchAll(live)].map((m) => text.slice(Math.max(0, m.index - 20), m.index + 30));
}

describe('hostile names in every report format', () => {
  const result = hostileResult();

  it('text: control characters and newlines escaped; no name begins a line of its own', () => {
    const text = formatText(result, { color: false, verbose: true });
    expect(text).not.toMatch(RAW);
    expect(text).toContain('line1\\n✖ error  fake.report');
    expect(text.split('\n').filter((l) => l.startsWith('✖ error  fake'))).toEqual([]);
    const grouped = formatText(result, { color: false });
    expect(grouped).toContain('4 collections in app');
    expect(grouped.split('\n').filter((l) => l.startsWith('✖ error  fake'))).toEqual([]);
    expect(grouped).not.toMatch(RAW);
  });

  it('Markdown: names in code spans fenced past their backticks; no link, image or HTML from the data', () => {
    for (const verbose of [true, false]) {
      const md = formatMarkdown(result, { verbose });
      expect(md).not.toMatch(RAW);
      expect(liveMarkup(md), md).toEqual([]);
      expect(md.split('\n').filter((l) => l.startsWith('✖ error  fake'))).toEqual([]);
    }
    const md = formatMarkdown(result, { verbose: true });
    expect(md).toContain('```app.tick`s``x › tags.tick`s``x```');
    // In a table a pipe is escaped, inside the code span too (GFM).
    expect(md).toContain('`app.pipe\\|<img src=x onerror=alert(1)> › tags.pipe\\|<img src=x onerror=alert(1)>`');
  });

  it('mdCode and mdText: backticks, leading and trailing spaces, links, images, autolinks', () => {
    expect(mdCode('a`b')).toBe('``a`b``');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    expect(mdCode(' a ')).toBe('`  a  `');
    expect(mdText(LINK)).toBe('\\[a\\](javascript\\:alert(1))');
    expect(mdText(IMAGE)).toBe('\\!\\[x\\](http\\://evil.example/p.png)');
    const autolinks = 'see www.evil.example <b> me@evil.example';
    expect(mdText(autolinks)).toBe('see www\\.evil.example &lt;b&gt; me\\@evil.example');
    expect(mdText('`code [x](y)` then [x](y)')).toBe('`code [x](y)` then \\[x\\](y)');
    expect(mdText('a|b', { table: true })).toBe('a\\|b');
  });

  it('SARIF: the Markdown message has no live link or image; the JSON keeps the names and prints none raw', () => {
    const sarif = formatSarif(result, { rules: ruleCatalog(rules) });
    expect(sarif).not.toMatch(RAW);
    const log = JSON.parse(sarif) as SarifLog;
    const results = log.runs[0]?.results ?? [];
    expect(results.map((r) => r.properties.target.collection)).toEqual(HOSTILE);
    for (const r of results) expect(liveMarkup(r.message.markdown), r.message.markdown).toEqual([]);
  });

  it('JSON and JUnit: the same data, no raw character a terminal acts on', () => {
    const json = formatJson(result);
    expect(json).not.toMatch(RAW);
    expect((JSON.parse(json) as CheckResult).scope.collections).toEqual(HOSTILE);
    const junit = formatJunit(result, { rules: ruleCatalog(rules) });
    expect(junit).not.toMatch(RAW);
    expect(junit).toContain('bidi\\u{202e}C1\\u{9b}31m');
    expect(junit).toContain('line1\\n✖ error');
  });

  it('HTML (audit -o - prints it) and the ticket summary: escaped, no name on a line of its own', () => {
    const snapshot = snapshotOf(HOSTILE.map((n) => collectionOf(n)));
    const report = { result, snapshot };
    const html = formatHtml(report, loadHtmlAssets(), { verbose: true });
    expect(html).not.toMatch(RAW);
    expect(html).toContain('evil\\u{1b}[31mRED');
    expect(html).not.toMatch(/<img src=x/);
    const ticket = ticketSummary(report, { verbose: true });
    expect(ticket).not.toMatch(RAW);
    expect(ticket.split('\n').filter((l) => l.startsWith('✖ error  fake'))).toEqual([]);
  });
});

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');

async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

describe('hostile names through the real CLI (lint --spec, every format)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-hostile-'));
  const spec = join(dir, 'spec.json');
  // A redundant index (the name in the address) and a refused validator (the name in the message's prose).
  const collections = HOSTILE.map((name) => ({
    name,
    indexes: [{ key: { a: 1 } }, { key: { a: 1, b: 1 } }],
    options: { validator: { $where: 'x' } },
  }));
  writeFileSync(spec, JSON.stringify({ db: 'app', collections }, null, 2));

  it('the CLI is built', () => {
    expect(existsSync(CLI), 'run node scripts/build.mjs --skip-types first').toBe(true);
  });

  for (const format of ['text', 'markdown', 'json', 'sarif', 'junit']) {
    const title = `-f ${format}: nothing raw on the terminal${format === 'markdown' ? ', no live link or image' : ''}`;
    it(title, async () => {
      const r = await cli(['lint', '--spec', spec, '-f', format, '-o', '-']);
      expect(r.code, r.err).toBe(1);
      expect(r.out + r.err).not.toMatch(RAW);
      expect(r.out.split('\n').filter((l) => l.startsWith('✖ error  fake'))).toEqual([]);
      if (format === 'markdown') expect(liveMarkup(r.out), r.out).toEqual([]);
      if (format === 'json' || format === 'sarif') expect(r.out).toContain('\\u001b[31mRED');
    });
  }

  it('an error naming a collection (declared twice) is one line on stderr, its newline escaped', async () => {
    const twice = join(dir, 'twice.json');
    writeFileSync(twice, JSON.stringify({ db: 'app', collections: [{ name: NEWLINE }, { name: NEWLINE }] }));
    const r = await cli(['lint', '--spec', twice]);
    expect(r.code, r.err).toBe(2);
    expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
    expect(r.err).toContain('declares app.line1\\n✖ error  fake.report  spec-drift twice');
  });

  it('SARIF points each finding at its declaration line, names with quotes and escapes included', async () => {
    const r = await cli(['lint', '--spec', spec, '-f', 'sarif']);
    const log = JSON.parse(r.out) as SarifLog;
    const text = JSON.stringify({ db: 'app', collections }, null, 2).split('\n');
    for (const res of log.runs[0]?.results ?? []) {
      const line = res.locations[0]?.physicalLocation.region?.startLine ?? 0;
      // a finding on an index points at the index's own entry (its name, else its key); any other at the collection's
      const { collection, index } = res.properties.target as { collection: string; index?: string };
      const at = text[line - 1] ?? '';
      if (index === undefined) expect(at, collection).toContain(`"name": ${JSON.stringify(collection)}`);
      else
        expect(
          [`"name": ${JSON.stringify(index)}`, '"key": {'].some((x) => at.includes(x)),
          `${index}: ${at}`,
        ).toBe(true);
    }
  });
});
