import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult, Finding, Snapshot } from '../src/core/types';
import { formatHtml, rich } from '../src/report/html';
import { collectionOf, docWithArray, snapshotOf } from './support/fixtures';
import { HAS_CHROMIUM, NO_CHROMIUM, useBrowser } from './support/browser';

if (!HAS_CHROMIUM) console.log(`[report-html] skipping the browser tests: ${NO_CHROMIUM}`);
const NOW = Date.parse('2026-11-01T00:00:00Z');
const DAY = 86_400_000;

/** A confirmation with a ratio: the interval ends are what the chart must hold. */
function confirmed(
  label: string,
  median: number,
  low: number,
  high: number,
  status: 'supported' | 'refuted' | 'inconclusive' = 'supported',
): Finding['confirmation'] {
  return {
    status,
    summary: `\`${label}\` measured.`,
    ratio: { label, median, low, high, coverage: 0.95 },
    measurements: [],
    where: 'mongo_advisor_scratch_1',
    durationMs: 1,
  };
}

function info(collection: string, conf?: Finding['confirmation']): Finding {
  return {
    ruleId: 'validator',
    messageId: 'noValidator',
    severity: 'info',
    target: { db: 'app', collection },
    message:
      `No validator: nothing stops a write from dropping a field. Proposed from ${collection.length * 10} ` +
      `sampled documents: \`_id\` required.`,
    evidence: {},
    recommendation: {
      action: 'add this validator',
      reason: 'Every sampled document passes it.',
      commands: [`db.${collection}.countDocuments({})`],
    },
    docsUrl: 'https://www.mongodb.com/docs/manual/core/schema-validation/',
    ...(conf ? { confirmation: conf } : {}),
  };
}

/**
 * A report that strains the charts: 25 indexes (more rows than a fixed-height chart labels), confirmation intervals
 * from 0.14x to 580x (wider than Chart.js's own ticks reach), backticks in every kind of prose, repeated info findings.
 */
function strainedReport(): { result: CheckResult; snapshot: Snapshot } {
  const posts = collectionOf('posts', {
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 10,
      size: 10,
      docs: [1, 10, 100, 1000, 10000, 3].map((n, i) => docWithArray('comments', n, 1000, NOW - (300 - i * 40) * DAY)),
      fields: {},
      timeSource: '_id',
    },
    indexes: Array.from({ length: 25 }, (_, i) => ({
      name: i === 0 ? '_id_' : `field${i}_1`,
      key: i === 0 ? { _id: 1 } : { [`field${i}`]: 1 },
      sizeBytes: 4096 * (i + 1) ** 3,
    })),
  });
  // Seven more arrays, every one in the 1–99 bucket with 1,000+ documents: eight narrow bars whose labels ("1,666")
  // are wider than the bars (the public sample data's shape: restaurants' grades, accounts' products, …).
  const crowd = Array.from({ length: 7 }, (_, k) =>
    collectionOf(`list${k + 1}`, {
      sample: {
        method: '$sample',
        random: true,
        complete: false,
        dynamicKeys: [],
        requested: 1000,
        size: 1000 + k * 111,
        docs: Array.from({ length: 1000 + k * 111 }, (_, i) => docWithArray('tags', 3 + (k % 4), 20, NOW - i * DAY)),
        fields: {},
        timeSource: '_id',
      },
    }),
  );
  const snapshot = snapshotOf([posts, collectionOf('events'), collectionOf('logs'), collectionOf('users'), ...crowd]);
  const findings: Finding[] = [
    {
      ruleId: 'array-growth',
      messageId: 'growing',
      severity: 'error',
      target: { db: 'app', collection: 'posts', path: 'comments' },
      message: 'Array `comments` grows by up to 222 elements per document per day.',
      evidence: {},
      recommendation: {
        action: 'reference',
        reason: 'Each `$push` rewrites the whole document.',
        commands: ['db.createCollection("comments")'],
      },
      docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
      confirmation: confirmed('$push / insert', 384, 121, 580),
    },
    {
      ...info('posts'),
      ruleId: 'index-usage',
      messageId: 'redundant',
      severity: 'warn',
      target: { db: 'app', collection: 'posts', index: 'field1_1' },
      message: 'Index `field1_1` is a prefix of `field1_1_x_1`.',
      confirmation: confirmed('insert time, all / without', 1.05, 0.14, 1.47, 'inconclusive'),
    },
    info('events', confirmed('with / without the validator', 1.24, 1.18, 1.3, 'refuted')),
    info('logs', confirmed('with / without the validator', 0.98, 0.56, 31)),
    info('users'),
  ];
  const result: CheckResult = {
    tool: { name: 'mongo-advisor', version: '0.1.0' },
    startedAt: new Date(NOW).toISOString(),
    durationMs: 1000,
    source: 'mongodb://db.example:27017/',
    server: { version: '7.0.12', flavor: 'mongodb', storageEngine: 'wiredTiger', topology: 'replicaSet' },
    scope: { db: 'app', collections: ['posts', 'events', 'logs', 'users'] },
    findings,
    notes: [{ level: 'skipped', target: { db: 'app' }, message: 'index use was not judged for `field2_1`' }],
    roundTrips: 10,
    confirm: { enabled: true, where: 'mongo_advisor_scratch_1', cleanedUp: true },
  };
  return { result, snapshot };
}

describe('HTML report markup', () => {
  it('shows backtick code spans as <code>, escaped, never as raw backticks', () => {
    expect(rich('Index `a<b>` and `c`')).toBe('Index <code>a&lt;b&gt;</code> and <code>c</code>');
    const html = formatHtml(strainedReport());
    const table = html.slice(html.indexOf('<h2>Findings</h2>'), html.indexOf('<footer>'));
    expect(table).toContain('Array <code>comments</code> grows');
    expect(table).toContain('Each <code>$push</code> rewrites');
    expect(table).toContain('<code>$push / insert</code> measured.');
    expect(table).toContain('judged for <code>field2_1</code>');
    // commands are code already: their text is kept as written
    expect(table.replace(/<pre class="cmd">[^<]*<\/pre>/g, '')).not.toContain('`');
  });

  it(
    'collapses repeated info findings of one rule into one row, each in full behind a disclosure; verbose ' +
      'keeps each row',
    () => {
      const report = strainedReport();
      const html = formatHtml(report);
      const rows = html.match(/<tr( class="group")?><td class="sev/g) ?? [];
      expect(rows).toHaveLength(3); // error, warn, and one row for the three validator findings
      const group = html.slice(html.indexOf('<tr class="group">'));
      expect(group).toContain('3 collections in app: events, logs, users');
      expect(group).toContain('<details><summary>each of the 3 collections in full</summary>');
      for (const c of ['events', 'logs', 'users']) expect(group).toContain(`db.${c}.countDocuments({})`);
      expect(group).toContain(
        '<strong>events</strong>: ✖ refuted: with / without the validator 1.2x (95% interval 1.1x–1.3x)',
      );
      expect(group).toContain('<strong>users</strong>: no experiment');
      const verbose = formatHtml(report, undefined, { verbose: true });
      expect(verbose).not.toContain('<tr class="group">');
      expect(verbose.match(/<tr><td class="sev/g)).toHaveLength(5);
    },
  );
});

describe('HTML report charts in headless Chromium', () => {
  const { dir, context } = useBrowser('report-html');

  it.skipIf(!HAS_CHROMIUM)(
    'labels every bar, skips no category label, and fits every point and interval end in its axis',
    async () => {
      const file = join(dir, 'strained.html');
      writeFileSync(file, formatHtml(strainedReport()));
      const page = await context().newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.setViewportSize({ width: 1360, height: 900 });
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      await page.waitForSelector('body[data-charts-drawn]');
      const charts = await page.evaluate(() => {
        const C = (globalThis as unknown as { Chart: { instances: Record<string, unknown> } }).Chart;
        return Object.values(C.instances).map((raw) => {
          const c = raw as {
            canvas: { id: string; getAttribute(name: string): string | null };
            data: { labels?: unknown[]; datasets: { data: unknown[] }[] };
            options: { indexAxis?: string };
            scales: Record<string, { min: number; max: number; ticks: unknown[]; type: string }>;
          };
          const index = c.options.indexAxis === 'y' ? 'y' : 'x';
          const value = index === 'y' ? 'x' : 'y';
          const values = c.data.datasets
            .flatMap((d) =>
              d.data.flatMap((v): unknown[] =>
                Array.isArray(v)
                  ? (v as unknown[])
                  : typeof v === 'object' && v !== null
                    ? [(v as { y: number }).y]
                    : [v],
              ),
            )
            .filter((v): v is number => typeof v === 'number' && v > 0);
          const xs = c.data.datasets
            .flatMap((d) =>
              d.data.map((v) =>
                typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as { x: number }).x : null,
              ),
            )
            .filter((v): v is number => v !== null);
          return {
            id: c.canvas.id,
            bars: Number(c.canvas.getAttribute('data-bars') ?? -1),
            labelled: Number(c.canvas.getAttribute('data-labelled') ?? -1),
            overlaps: Number(c.canvas.getAttribute('data-label-overlaps') ?? -1),
            outside: Number(c.canvas.getAttribute('data-label-outside') ?? -1),
            labels: c.data.labels?.length ?? 0,
            categoryTicks: c.scales[index]?.type === 'category' ? (c.scales[index]?.ticks.length ?? 0) : null,
            min: c.scales[value]?.min ?? NaN,
            max: c.scales[value]?.max ?? NaN,
            lowest: Math.min(...values),
            highest: Math.max(...values),
            xMin: c.scales.x?.min ?? NaN,
            xMax: c.scales.x?.max ?? NaN,
            xs: xs.length ? [Math.min(...xs), Math.max(...xs)] : null,
            xTicks: c.scales.x?.type === 'linear' ? c.scales.x.ticks.map((t) => (t as { value: number }).value) : [],
          };
        });
      });
      await page.close();
      expect(errors).toEqual([]);
      const byId = Object.fromEntries(charts.map((c) => [c.id, c]));
      expect(Object.keys(byId).sort()).toEqual([
        'chart-array-growth',
        'chart-array-lengths',
        'chart-confirmations',
        'chart-index-sizes',
      ]);
      for (const c of charts) {
        // every value (every interval end, every point) inside its axis, not on or past the edge
        expect(c.min, c.id).toBeLessThan(c.lowest);
        expect(c.max, c.id).toBeGreaterThan(c.highest);
        if (c.xs) {
          expect(c.xMin, c.id).toBeLessThan(c.xs[0] as number);
          expect(c.xMax, c.id).toBeGreaterThan(c.xs[1] as number);
        }
        if (c.id === 'chart-array-growth') {
          // no date label on the padding: none before the oldest point, none after the newest
          expect(c.xTicks.length, c.id).toBeGreaterThan(1);
          for (const t of c.xTicks)
            expect(
              t >= (c.xs?.[0] ?? NaN) && t <= (c.xs?.[1] ?? NaN),
              `${c.id}: tick ${new Date(t).toISOString()} outside the points`,
            ).toBe(true);
          continue; // points, no bars
        }
        expect(c.bars, c.id).toBeGreaterThan(0);
        expect(c.labelled, c.id).toBe(c.bars);
        // readable: no two bar labels overlap, none runs past the canvas
        expect(c.overlaps, `${c.id}: overlapping bar labels`).toBe(0);
        expect(c.outside, `${c.id}: bar labels past the canvas`).toBe(0);
        if (c.categoryTicks !== null) expect(c.categoryTicks, c.id).toBe(c.labels);
      }
      // the widest interval ends are inside the confirmation axis
      expect(byId['chart-confirmations']?.lowest).toBe(0.14);
      expect(byId['chart-confirmations']?.highest).toBe(580);
      // the cache, all indexes together and the 20 largest of the 25: every row named
      expect(byId['chart-index-sizes']?.categoryTicks).toBe(22);
    },
    60_000,
  );
});

/**
 * A report shaped like a real audit read on a laptop (issue 28): long database and collection names, a query-shapes
 * table whose shapes and proposed indexes are long code, an `_id` order chart whose labels are long names, confirmed
 * findings with long prose.
 */
function laptopReport(): { result: CheckResult; snapshot: Snapshot } {
  const report = strainedReport();
  const db = 'lemo_blog_production_eu_west';
  const prose =
    'The query filters on `status` and `customerId`, sorts on `createdAt` and reads 48,211 documents per call to ' +
    'return 20: an index that serves the equality fields first, then the sort, reads about as many keys as it ' +
    'returns. ';
  const idFinding = (collection: string, idType: string, rho: number, order: string): Finding => ({
    ruleId: 'id-pattern',
    messageId: 'adviseAgainstClustered',
    severity: 'info',
    target: { db, collection, path: '_id' },
    message: `\`_id\` is ${idType}, ${order}.`,
    evidence: { idType, monotonicity: rho, naturalOrderIds: 300, order },
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
  });
  report.result.findings.push(
    idFinding('carts', 'UUID v4 string', -0.02, 'random'),
    idFinding('carts_awaiting_checkout_by_region', 'ObjectId', 0.99, 'monotonic'),
    {
      ruleId: 'query-indexes',
      messageId: 'proposeIndex',
      severity: 'warn',
      target: { db, collection: 'orders_with_a_rather_long_collection_name_2026' },
      message: prose.repeat(3),
      evidence: {},
      recommendation: {
        action: 'create the index',
        reason: prose,
        commands: [
          `db.getSiblingDB("${db}").getCollection("orders_with_a_rather_long_collection_name_2026")` +
            '.createIndex({"status":1,"customerId":1,"createdAt":-1,"lines.sku":1},' +
            '{"name":"status_1_customerId_1_createdAt_-1_lines.sku_1"})',
        ],
      },
      docsUrl: 'https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/',
      confirmation: confirmed('keys examined, without / with the index on `lemo_blog.orders`', 2400, 1900, 2900),
    },
  );
  const shape =
    '{ find: "orders_with_a_rather_long_collection_name_2026", filter: { status: ?, customerId: ?, ' +
    '"lines.sku": { $in: [?] }, createdAt: { $gte: ? } }, sort: { createdAt: -1, _id: 1 }, projection: { ' +
    'status: 1, total: 1, currency: 1, lines: 1 } }';
  report.result.tables = [
    {
      ruleId: 'query-indexes',
      title: 'Query shapes, highest impact first',
      target: { db },
      caption: 'Each shape once, with its calls and time from the workload.',
      columns: [
        { title: 'collection', kind: 'name' },
        { title: 'shape', kind: 'code' },
        { title: 'calls', kind: 'count' },
        { title: 'time in all', kind: 'ms' },
        { title: 'p95', kind: 'ms' },
        { title: 'examined / call', kind: 'count' },
        { title: 'returned / call', kind: 'count' },
        { title: 'index used', kind: 'name' },
        { title: 'served', kind: 'text' },
        { title: 'proposed index', kind: 'code' },
        { title: 'proof on scratch', kind: 'text' },
      ],
      rows: Array.from({ length: 6 }, (_, i) => [
        'orders_with_a_rather_long_collection_name_2026',
        shape,
        123_456 * (i + 1),
        98_765.4,
        12.5,
        48_211,
        20,
        i % 2 ? null : 'status_1_customerId_1_createdAt_-1_lines.sku_1',
        'collection scan, then an in-memory sort of every matching document',
        '{ status: 1, customerId: 1, createdAt: -1, "lines.sku": 1 }',
        'keys examined 48,211 → 20 (2,400x fewer) on a scratch copy of 10,000 documents',
      ]),
    },
  ];
  return report;
}

/** A freshly seeded collection: every document created within two minutes, so the growth chart's time axis is short. */
function freshReport(): { result: CheckResult; snapshot: Snapshot } {
  const report = strainedReport();
  const fresh = collectionOf('carts', {
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 30,
      size: 30,
      docs: Array.from({ length: 30 }, (_, i) => docWithArray('lines', 2 + i * 7, 64, NOW - 120_000 + i * 4_000)),
      fields: {},
      timeSource: '_id',
    },
  });
  return { result: report.result, snapshot: snapshotOf([fresh]) };
}

interface LayoutFacts {
  scrollWidth: number;
  innerWidth: number;
  height: number;
  overflowing: string[];
  text: { px: number; em: number }[];
  canvases: { id: string; clipped: string | null; outside: string | null; box: boolean }[];
  growthTicks: number;
}

/** Read in the page (plain JavaScript: the project's TypeScript has no DOM types): the layout facts of the test. */
const LAYOUT_FACTS = `(() => {
  const wide = (e) => e.scrollWidth > e.clientWidth + 1;
  const text = [...document.querySelectorAll('table.findings td.text')].map((td) => {
    const p = td.firstElementChild;
    return { px: p.getBoundingClientRect().width, em: parseFloat(getComputedStyle(p).fontSize) };
  });
  const canvases = [...document.querySelectorAll('canvas')].map((c) => ({
    id: c.id,
    clipped: c.getAttribute('data-ticks-clipped'),
    outside: c.getAttribute('data-label-outside'),
    box: c.getBoundingClientRect().right <= document.documentElement.clientWidth,
  }));
  const growth = Chart.getChart('chart-array-growth');
  return {
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    height: document.documentElement.scrollHeight,
    overflowing: [...document.querySelectorAll('table, table *, .scroll, pre')]
      .filter(wide)
      .map((e) => e.tagName.toLowerCase() + '.' + e.className + ': ' + (e.textContent || '').slice(0, 60)),
    text,
    canvases,
    growthTicks: growth ? growth.scales.x.ticks.length : 0,
  };
})()`;

describe('HTML report layout at 1,000-1,600 px (headless Chromium)', () => {
  const { dir, context } = useBrowser('report-layout');

  it.skipIf(!HAS_CHROMIUM)(
    'fits the width with no horizontal scroll, keeps the finding text readable, and clips no chart label',
    async () => {
      const file = join(dir, 'laptop.html');
      writeFileSync(file, formatHtml(laptopReport()));
      const heights: Record<number, number> = {};
      for (const width of [1000, 1400, 1600]) {
        const page = await context().newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`file://${file}`, { waitUntil: 'load' });
        await page.waitForSelector('body[data-charts-drawn]');
        const facts = await page.evaluate<LayoutFacts>(LAYOUT_FACTS);
        await page.screenshot({ path: join(tmpdir(), `mongo-advisor-report-layout-${width}.png`), fullPage: true });
        await page.close();
        expect(errors).toEqual([]);
        // no horizontal scroll: not the page, not a table, not a cell, not a command
        expect(facts.scrollWidth, `${width} px: page wider than the window`).toBeLessThanOrEqual(facts.innerWidth);
        expect(facts.overflowing, `${width} px: elements that scroll sideways`).toEqual([]);
        // the finding's text gets a readable measure: at least 40 characters' width (about 20 em), at most 95ch
        for (const t of facts.text) {
          expect(t.px / t.em, `${width} px: finding text ${t.px} px wide`).toBeGreaterThan(30);
          expect(t.px / t.em, `${width} px: finding text ${t.px} px wide`).toBeLessThan(62);
        }
        expect(facts.canvases.map((c) => c.id).sort()).toEqual([
          'chart-array-growth',
          'chart-array-lengths',
          'chart-confirmations',
          'chart-id-order',
          'chart-index-sizes',
        ]);
        for (const c of facts.canvases) {
          expect(c.clipped, `${width} px: ${c.id} axis labels cut at the canvas edge`).toBe('0');
          expect(c.outside, `${width} px: ${c.id} bar labels past the canvas`).toBe('0');
          expect(c.box, `${width} px: ${c.id} past the window`).toBe(true);
        }
        expect(facts.growthTicks, `${width} px: ticks on the growth chart's time axis`).toBeGreaterThanOrEqual(3);
        heights[width] = facts.height;
      }
      // the page is as long as its content needs: wider windows never make it longer, and 1,400 px stays within
      // about seven screens of 900 px (6,150 px measured here; a real audit was about 11,000 px with the findings in a
      // 300 px column)
      expect(heights[1400]).toBeLessThanOrEqual(heights[1000] as number);
      expect(heights[1600]).toBeLessThanOrEqual(heights[1400] as number);
      expect(heights[1400]).toBeLessThan(7_000);
    },
    120_000,
  );

  it.skipIf(!HAS_CHROMIUM)(
    'gives a time axis several ticks, labelled to the minute, when every document was created within minutes',
    async () => {
      const file = join(dir, 'fresh.html');
      writeFileSync(file, formatHtml(freshReport()));
      const page = await context().newPage();
      await page.setViewportSize({ width: 1000, height: 900 });
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      await page.waitForSelector('body[data-charts-drawn]');
      const ticks = await page.evaluate(() => {
        const Chart = (globalThis as unknown as { Chart: { getChart(id: string): unknown } }).Chart;
        const c = Chart.getChart('chart-array-growth') as {
          scales: { x: { ticks: { value: number; label: string }[] } };
          data: { datasets: { data: { x: number }[] }[] };
        };
        const xs = c.data.datasets.flatMap((d) => d.data.map((p) => p.x));
        return { ticks: c.scales.x.ticks, lo: Math.min(...xs), hi: Math.max(...xs) };
      });
      await page.close();
      expect(ticks.ticks.length).toBeGreaterThanOrEqual(3);
      for (const t of ticks.ticks) {
        expect(t.value).toBeGreaterThanOrEqual(ticks.lo);
        expect(t.value).toBeLessThanOrEqual(ticks.hi);
        // the day alone would label every tick the same
        expect(t.label).toMatch(/^2026-10-31 23:\d\d(:\d\d)?$/);
      }
      expect(new Set(ticks.ticks.map((t) => t.label)).size).toBe(ticks.ticks.length);
    },
    60_000,
  );
});
