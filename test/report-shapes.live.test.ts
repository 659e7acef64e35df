/**
 * The shop workload of issue 20 through the CLI as a DBA runs it, in every format: the proposed indexes (their exact
 * `createIndex` with a name) and the table of shapes in Markdown, the HTML audit and JSON; the findings with their
 * commands in SARIF; no value of the workload anywhere. The workload is given as a slow-query log built from the
 * shop's commands, so both servers run it (FerretDB has no profiler).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main';
import type { CheckResult } from '../src/core/types';
import { useLiveDb } from './support/live-db';
import { SHOP_MARKER, SHOP_MARKER_NUMBER, seedShop, shopCommands, slowLogLines } from './support/shop-workload';

const DB = 'mongo_advisor_test_report_shapes';
const ESR =
  `db.getSiblingDB(${JSON.stringify(DB)}).getCollection("orders").createIndex({ customerId: 1, status: 1, ` +
  'createdAt: -1 }, { name: "customerId_1_status_1_createdAt_-1" })';
const BY_STATUS = 'db.orders.find({ customerId: ?number, status: ?string }).sort({ createdAt: -1 })';
/** The sorted orders find's calls over the log's 3 rounds, and their time at 5 ms each. */
const BY_STATUS_CALLS = 3 * shopCommands().filter((c) => c.command.find === 'orders' && c.command.sort).length;
const BY_STATUS_TIME = `${BY_STATUS_CALLS * 5} ms`;

/** The shop's commands, 3 rounds, as mongod's slow-query lines of this database (5 ms each, no counts). */
function shopLog(): string {
  const entries = Array.from({ length: 3 }, () => shopCommands()).flatMap((round) =>
    round.map(({ command }) => ({ ns: `${DB}.${String(Object.values(command)[0])}`, command, millis: 5 })),
  );
  return slowLogLines(entries).join('\n') + '\n';
}

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  await main(args, { out: (t: string) => void (out += t), err: (t: string) => void (err += `${t}\n`), isTTY: false });
  return { out, err };
}

const noValue = (text: string): void => {
  expect(text).not.toContain(SHOP_MARKER);
  expect(text).not.toContain(String(SHOP_MARKER_NUMBER));
};

describe('the shop workload in every report format (live)', () => {
  const live = useLiveDb(DB, (db) => seedShop(db, { orders: 800, customers: 60, events: 300 }));
  let dir = '';
  let log = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ma-report-shapes-'));
    log = join(dir, 'mongod.log');
    writeFileSync(log, shopLog());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const base = (): string[] => [live.uri, '--db', DB, '--no-confirm', '-q', '--log', log];

  it('Markdown: the indexes proposed, ranked, then the shapes, in tables', async () => {
    const { out, err } = await cli(['check', ...base(), '-f', 'markdown']);
    noValue(out + err);
    const proposed = out.indexOf('### Indexes proposed, highest impact first');
    const shapes = out.indexOf('### Query shapes, highest impact first');
    expect(proposed).toBeGreaterThan(out.indexOf('<details><summary>'));
    expect(shapes).toBeGreaterThan(proposed);
    const indexRows = out
      .slice(proposed, shapes)
      .split('\n')
      .filter((l) => l.startsWith('| `orders` |'));
    // The first row: the index that serves the most time, with its two shapes (the find and the update).
    expect(indexRows[0]).toContain(`| \`${ESR}\` | 2 |`);
    const shapeRows = out
      .slice(shapes)
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    expect(shapeRows[0]).toContain(`| \`${BY_STATUS}\` | ${BY_STATUS_CALLS} | ${BY_STATUS_TIME} |`);
  });

  it('the HTML audit holds both tables; JSON holds them as data', async () => {
    const html = join(dir, 'audit.html');
    const audit = await cli(['audit', ...base(), '-f', 'html', '-o', html]);
    const page = readFileSync(html, 'utf8');
    noValue(page + audit.out + audit.err);
    const tables = page.slice(page.indexOf('<h2>Tables</h2>'));
    expect(tables).toContain('Indexes proposed, highest impact first');
    expect(tables).toContain(
      `<td><code>${BY_STATUS}</code></td><td class="num">${BY_STATUS_CALLS}</td><td class="num">${BY_STATUS_TIME}</td>`,
    );
    const { out } = await cli(['check', ...base(), '-f', 'json']);
    noValue(out);
    const result = JSON.parse(out) as CheckResult;
    const titles = (result.tables ?? []).map((t) => `${t.ruleId}: ${t.title} (${t.target.db})`);
    expect(titles).toEqual([
      `query-indexes: Indexes proposed, highest impact first (${DB})`,
      `query-indexes: Query shapes, highest impact first (${DB})`,
    ]);
  });

  it('SARIF: each finding with its createIndex, no table', async () => {
    const { out } = await cli(['check', ...base(), '-f', 'sarif']);
    noValue(out);
    expect(out).not.toContain('highest impact first');
    const sarif = JSON.parse(out) as { runs: { results: { ruleId: string; message: { markdown: string } }[] }[] };
    const ours = sarif.runs[0]?.results.filter((r) => r.ruleId === 'query-indexes') ?? [];
    expect(ours[0]?.message.markdown).toContain(ESR);
  });
});
