import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { main } from '../src/cli/main';
import type { CheckResult, DocProfile, Finding, Snapshot } from '../src/core/types';
import { formatHtml, loadHtmlAssets } from '../src/report/html';
import { chartData, ticketSummary } from '../src/report/html-data';
import { idProfile } from '../rules/id-pattern/collect';
import { collectionOf, docWithArray, snapshotOf, withData } from './support/fixtures';
import { runProcess } from './support/run';
import { joinRegex } from './support/regex';
import { HAS_CHROMIUM, NO_CHROMIUM, useBrowser } from './support/browser';
import { liveUri } from './support/live-uri';

if (!HAS_CHROMIUM) console.log(`[audit-html] skipping the browser tests: ${NO_CHROMIUM}`);
/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-01T00:00:00Z');

/** A deployment shaped like the demo blog: growing comments, a monotonic and a random _id, sized indexes. */
function fixtureReport(): { result: CheckResult; snapshot: Snapshot } {
  const postDocs: DocProfile[] = [1, 10, 100, 1000, 10000, 3, 4, 5, 2, 6].map((n, i) =>
    docWithArray('comments', n, 1000, NOW - (400 - i * 40) * DAY),
  );
  const tagDocs: DocProfile[] = Array.from({ length: 40 }, (_, i) =>
    docWithArray('readings', 50 + i * 30, 16, NOW - (40 - i) * DAY),
  );
  const n = 300;
  const posts = collectionOf('posts', {
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 10,
      size: 10,
      docs: postDocs,
      fields: {},
      timeSource: '_id',
    },
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 2_400_000 },
      { name: 'author_1', key: { author: 1 }, sizeBytes: 900_000 },
    ],
  });
  const sessions = collectionOf('sessions', {
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 300,
      size: 0,
      docs: [],
      fields: {},
      timeSource: null,
    },
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 96_000_000 },
      { name: 'userId_1', key: { userId: 1 }, sizeBytes: 41_000_000 },
    ],
  });
  const sensors = collectionOf('sensors', {
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 40,
      size: 40,
      docs: tagDocs,
      fields: {},
      timeSource: 'createdAt',
    },
  });
  const postIds = {
    types: { objectId: n },
    uuidVersions: {},
    sizeBytes: { p50: 12, max: 12, mean: 12 },
    leadingByteEntropy: [1, 4, 4, 0.3],
  };
  const sessionIds = {
    types: { uuid: n },
    uuidVersions: { '4': n },
    sizeBytes: { p50: 16, max: 16, mean: 16 },
    leadingByteEntropy: [7.9, 7.9, 7.9, 7.9],
  };
  const snapshot = snapshotOf([
    withData(posts, idProfile, postIds),
    withData(sessions, idProfile, sessionIds),
    sensors,
  ]);
  const findings: Finding[] = [
    {
      ruleId: 'array-growth',
      messageId: 'growing',
      severity: 'error',
      target: { db: 'app', collection: 'posts', path: 'comments' },
      message: 'Array `comments` grows by up to 222 elements per document per day.',
      evidence: { maxLength: 10000 },
      recommendation: {
        action: 'reference',
        reason: 'Each $push rewrites the whole document.',
        commands: ['db.createCollection("comments")'],
      },
      docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
      confirmation: {
        status: 'supported',
        summary: '$push into the 10,000-element array took 26x as long as an insert into a child collection.',
        ratio: { label: 'push / insert', median: 26.4, low: 21.9, high: 31.0, coverage: 0.95 },
        measurements: [
          { label: '$push into the array', unit: 'ms', median: 3.4, low: 3.0, high: 3.9, trials: 9 },
          { label: 'insert into comments', unit: 'ms', median: 0.13, low: 0.11, high: 0.15, trials: 9 },
        ],
        where: 'mongo_advisor_scratch_1a2b',
        durationMs: 5200,
      },
    },
    {
      ruleId: 'id-pattern',
      messageId: 'adviseAgainstClustered',
      severity: 'info',
      target: { db: 'app', collection: 'sessions', path: '_id' },
      message: '`_id` is UUID v4 (16 bytes) and random: keep this a regular collection.',
      // the _id order chart reads the correlation and the _ids behind it from here
      evidence: { idType: 'UUID v4', monotonicity: -0.021, naturalOrderIds: n, order: 'random' },
      docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
      confirmation: {
        status: 'refuted',
        summary: 'Inserts into a clustered copy were not slower.',
        ratio: { label: 'clustered / regular insert', median: 0.94, low: 0.81, high: 1.08 },
        measurements: [],
        where: 'mongo_advisor_scratch_1a2b',
        durationMs: 3000,
      },
    },
    {
      ruleId: 'id-pattern',
      messageId: 'suggestClustered',
      severity: 'info',
      target: { db: 'app', collection: 'posts', path: '_id' },
      message: '`_id` is ObjectId, monotonic: a clustered collection would store documents in _id order.',
      evidence: { idType: 'ObjectId', monotonicity: 1, naturalOrderIds: n, order: 'monotonic' },
      docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
      confirmation: {
        status: 'supported',
        summary: 'Range scans on _id were faster on a clustered copy.',
        ratio: { label: 'regular / clustered range scan', median: 1.7, low: 1.4, high: 2.1 },
        measurements: [],
        where: 'mongo_advisor_scratch_1a2b',
        durationMs: 4000,
      },
    },
  ];
  const result: CheckResult = {
    tool: { name: 'mongo-advisor', version: '0.1.0' },
    startedAt: new Date(NOW).toISOString(),
    durationMs: 48_000,
    source: 'mongodb://db1.example:27017/',
    server: { version: '7.0.12', flavor: 'mongodb', storageEngine: 'wiredTiger', topology: 'replicaSet' },
    scope: { db: 'app', collections: ['posts', 'sessions', 'sensors'] },
    findings,
    notes: [
      {
        level: 'skipped',
        target: { db: 'app', collection: 'sensors' },
        message: 'index use could not be read ($indexStats): Unauthorized',
      },
    ],
    roundTrips: 31,
    confirm: { enabled: true, where: 'mongo_advisor_scratch_1a2b', cleanedUp: true },
  };
  return { result, snapshot };
}

interface PageReport {
  errors: string[];
  external: string[];
  drawn: number;
  canvases: number;
  empties: string[];
}

async function openInChromium(context: BrowserContext, file: string, screenshot?: string): Promise<PageReport> {
  const page = await context.newPage();
  const errors: string[] = [];
  const external: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    if (!/^(file|data|about):/.test(r.url())) external.push(r.url());
  });
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  await page.waitForSelector('body[data-charts-drawn]', { timeout: 15_000 });
  const drawn = Number(await page.getAttribute('body', 'data-charts-drawn'));
  const canvases = await page.locator('canvas').count();
  const empties = await page.locator('.empty').allTextContents();
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  await page.close();
  return { errors, external, drawn, canvases, empties };
}

describe('HTML report data (pure)', () => {
  it('buckets array lengths at the domain thresholds and keeps every series bounded', () => {
    const data = chartData(fixtureReport());
    const comments = data.arrays.find((a) => a.path === 'comments');
    expect(data.lengthBuckets).toEqual(['0', '1–99', '100–249', '250–999', '1,000–9,999', '10,000+']);
    expect(comments?.buckets).toEqual([0, 7, 1, 0, 1, 1]);
    expect(comments?.growth).toHaveLength(10);
    // from the findings' evidence, one series per collection
    expect(data.idOrder).toEqual([
      { collection: 'app.posts', idType: 'ObjectId', rho: 1, n: 300, order: 'monotonic' },
      { collection: 'app.sessions', idType: 'UUID v4', rho: -0.021, n: 300, order: 'random' },
    ]);
    // a second finding on the same collection (id-pattern's mixedTypes carries the same evidence) draws no second
    // series
    const twice = fixtureReport();
    twice.result.findings.push({ ...(twice.result.findings[1] as Finding), messageId: 'mixedTypes', severity: 'warn' });
    expect(chartData(twice).idOrder).toHaveLength(2);
    expect(data.indexes).toMatchObject({ cacheBytes: 8 * 1024 ** 3, count: 5 });
    expect(data.confirmations.map((c) => c.status)).toEqual(['supported', 'refuted', 'supported']);
  });

  it('counts only documents that hold an array, and leaves out index sizes the server did not report', () => {
    const report = fixtureReport();
    const posts = report.snapshot.databases[0]?.collections.find((c) => c.name === 'posts');
    if (!posts) throw new Error('the fixture has no posts');
    const without = { ...docWithArray('comments', 1, 1000, NOW), arrays: [] };
    posts.sample.docs = [...posts.sample.docs, without, without];
    const comments = chartData(report).arrays.find((a) => a.path === 'comments');
    expect(comments?.buckets).toEqual([0, 7, 1, 0, 1, 1]);
    expect(comments?.growth).toHaveLength(10);
    for (const c of report.snapshot.databases[0]?.collections ?? [])
      c.indexes = c.indexes.map((ix) => ({ ...ix, sizeBytes: 0 }));
    expect(chartData(report).indexes).toMatchObject({ count: 0, totalBytes: 0, top: [] });
    const html = formatHtml(report);
    expect(html).toContain('index sizes (the server reported none)');
    expect(html).not.toMatch(/>0 B<\/div><div class="l">indexes/);
  });

  it('writes a ticket summary with counts, one line per finding and the measured interval', () => {
    const text = ticketSummary(fixtureReport());
    expect(text).toMatch(
      /^MongoDB schema audit of mongodb:\/\/db1\.example:27017\/ \(MongoDB 7\.0\.12, replica set\) on 2026-11-01/,
    );
    // the refuted id-pattern finding is listed with its measurement, not counted (withdrawn)
    expect(text).toContain('Findings: 1 error, 0 warnings, 1 info; 1 withdrawn (refuted on scratch), listed but not');
    expect(text).toContain(
      '1. [error] app.posts › comments (array-growth): Array `comments` grows by up to 222 elements per ' +
        'document per day. Suggested: reference. Measured: supported, push / insert 26x (95% interval ' +
        '21x–31x).',
    );
    expect(text).toContain('Not checked (1):');
  });

  it('is self-contained: Chart.js inlined, a CSP that forbids requests, data that cannot close its script tag', () => {
    const { result, snapshot } = fixtureReport();
    const evil = { ...result, source: 'mongodb://x/</script><script>alert(1)</script>' };
    const html = formatHtml({ result: evil, snapshot });
    const assets = loadHtmlAssets();
    expect(assets.chartJs).not.toMatch(/<\/script|<!--/i);
    expect(html).toContain(assets.chartJs.slice(0, 200));
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    expect(html).not.toContain('<script>alert(1)</script>');
  });
});

describe('HTML report in headless Chromium', () => {
  const { dir, context } = useBrowser('html');

  it.skipIf(!HAS_CHROMIUM)(
    'draws all five charts with no console error and no request, and saves a screenshot',
    async () => {
      const file = join(dir, 'fixture.html');
      writeFileSync(file, formatHtml(fixtureReport()));
      const shot = join(tmpdir(), 'mongo-advisor-audit-report.png');
      const page = await openInChromium(context(), file, shot);
      console.log(`[audit-html] screenshot: ${shot}`);
      expect(page.errors).toEqual([]);
      expect(page.external).toEqual([]);
      expect(page.empties).toEqual([]);
      expect(page.canvases).toBe(5);
      expect(page.drawn).toBe(5);
      expect(readFileSync(shot).length).toBeGreaterThan(50_000);
    },
  );

  describe('a live audit of the demo data', () => {
    const uri = liveUri();

    it.skipIf(!HAS_CHROMIUM)('audit writes a report that loads cleanly, and prints the ticket summary', async () => {
      const out = join(dir, 'live.html');
      let stdout = '';
      let stderr = '';
      const code = await main(['audit', uri, '--db', DB, '--no-confirm', '--out', out], {
        out: (s) => (stdout += `${s}\n`),
        err: (s) => (stderr += `${s}\n`),
        isTTY: false,
      });
      expect(stderr).toMatch(/Wrote the HTML report to/);
      // The blog has warnings and errors: exit 1, as the README's exit-code table says for every command that judges.
      expect(code).toBe(1);
      expect(stdout).toMatch(
        joinRegex(
          new RegExp(`^MongoDB schema audit of .* on \\d{4}-\\d{2}-\\d{2}\\nScope: 1 database \\(${DB}\\), 3 `),
          /collections\. Confirmation on a scratch copy: off\./,
        ),
      );
      const page = await openInChromium(context(), out, join(tmpdir(), 'mongo-advisor-audit-live.png'));
      expect(page.errors).toEqual([]);
      expect(page.external).toEqual([]);
      // Without confirmation there is no experiment to plot; the others draw — but index sizes only where
      // the server reports them ($collStats sizes read 0 on SecantusDB: unknown, never drawn as 0).
      const sizes = inject('capabilities').has.storageSizes;
      // The demo's collections are far below id-pattern's clustering line (100 MB): no _id order is judged, and the
      // chart says so instead of drawing nothing.
      expect(page.empties).toEqual([
        'No _id order was judged (no finding measured it: collections too small, clustered, or read without ' +
          'id-pattern).',
        ...(sizes ? [] : ['The server reported no index sizes.']),
        'No experiment ran (confirmation was off, or no finding has one).',
      ]);
      expect(page.drawn).toBe(sizes ? 3 : 2);
    });

    it('the built CLI finds its report assets beside dist/cli.cjs', async () => {
      const cli = join(__dirname, '..', 'dist', 'cli.cjs');
      if (!existsSync(cli)) throw new Error('dist/cli.cjs is missing: run `npm run build` first (npm test does it)');
      const out = join(dir, 'built.html');
      const r = await runProcess(process.execPath, [cli, 'audit', uri, '--db', DB, '--no-confirm', '--out', out], {
        timeoutMs: 120_000,
      });
      expect(r.err).toMatch(/Wrote the HTML report to/);
      expect(r.code).toBe(1);
      const html = readFileSync(out, 'utf8');
      expect(html).toContain(loadHtmlAssets().chartJs.slice(0, 200));
      expect(html).toContain("document.getElementById('audit-data')");
    });
  });
});
