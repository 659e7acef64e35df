import { laterLines } from '../lib/shell';
import { serverLine } from '../lib/server-name';
import { collectionTotals } from '../core/groups';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { formatBytes, formatDuration, formatNumber } from '../core/format';
import { isWithdrawn, type Confirmation, type Finding, type Severity } from '../core/types';
import { targetLabel } from './catalog';
import {
  type FindingGroup,
  actionForEach,
  collapseGaps,
  confirmationVerdict,
  groupFindings,
  memberLabel,
  membersNoun,
  ratioFigure,
  verdictWords,
} from './group';
import { CONFIRMATION_STATUS } from './text';
import { safeForTerminal } from './escape';
import { type AuditReport, type ChartData, chartData, ticketSummary } from './html-data';
import { cellText, isFigure, tableWhere } from './tables';
import type { ReportTable } from '../core/types';

export type { AuditReport } from './html-data';

export interface HtmlAssets {
  /** Chart.js UMD build, inlined so the report works offline. */
  chartJs: string;
  /** The report's own script and stylesheet. */
  script: string;
  css: string;
}

let cached: HtmlAssets | null = null;

function readAsset(name: string): string {
  // src/report/html/<name> under tests; dist/report-html/<name> once built (scripts/build.mjs copies them).
  for (const dir of [path.join(__dirname, 'html'), path.join(__dirname, 'report-html')]) {
    const file = path.join(dir, name);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  throw new Error(
    `the HTML report asset ${name} is missing from ${__dirname}: the package is incomplete, reinstall mongo-advisor`,
  );
}

/** Reads the assets once: Chart.js from its package (a dependency), the rest from beside this module. */
export function loadHtmlAssets(): HtmlAssets {
  if (!cached) {
    const chartDir = path.dirname(require.resolve('chart.js'));
    cached = {
      chartJs: readFileSync(path.join(chartDir, 'chart.umd.min.js'), 'utf8'),
      script: readAsset('report.js'),
      css: readAsset('report.css'),
    };
  }
  return cached;
}

function esc(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Text placed inside <script>: "</script" and "<!--" must not appear, whatever the data holds. */
function scriptSafe(s: string): string {
  return s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function jsonForScript(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Prose from a rule (a message, a reason, a summary, a note) as HTML: escaped, and each `code span` the text marks
 * with backticks shown as <code>, never as raw backticks. A lone backtick stays as it is.
 */
export function rich(s: string): string {
  return esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function measure(unit: string, v: number): string {
  return unit === 'bytes' ? formatBytes(v) : unit === 'ms' ? formatDuration(v) : `${formatNumber(v)} ops/s`;
}

function confirmationCell(c: Confirmation | undefined): string {
  if (!c) return '<span class="muted">—</span>';
  const ratio = c.ratio ? `<br><strong>${esc(ratioFigure(c.ratio))}</strong>` : '';
  const ms = c.measurements.length ? `<br>${c.measurements.map(measurementLine).join('<br>')}` : '';
  const verdict = esc(`${CONFIRMATION_STATUS[c.status]} ${verdictWords(c)}`);
  const reason = c.reason ? ` (${rich(c.reason)})` : '';
  return `${verdict}: ${rich(c.summary)}${reason}${ratio}${ms}`;
}

/** One measurement: its median, and the range over its trials when there were several. */
function measurementLine(m: Confirmation['measurements'][number]): string {
  const range = `${esc(measure(m.unit, m.low))}–${esc(measure(m.unit, m.high))}`;
  const trials = m.trials > 1 ? ` (${range}, ${m.trials} trials)` : '';
  return `${esc(m.label)}: ${esc(measure(m.unit, m.median))}${trials}`;
}

function recommendation(f: Finding): string {
  if (!f.recommendation) return '';
  const { action, reason, commands = [], later } = f.recommendation;
  const pre = commands.length ? `<pre class="cmd">${esc(commands.join('\n'))}</pre>` : '';
  const next = later
    ? `<div class="rec">Later, ${rich(later.when)}:</div>` +
      `<pre class="cmd later">${esc(laterLines(later).join('\n'))}</pre>`
    : '';
  return `<div class="rec"><strong>${rich(action)}</strong>: ${rich(reason)}</div>${pre}${next}`;
}

function findingRow(f: Finding, withConfirmation: boolean): string {
  return (
    `<tr><td class="sev ${f.severity}">${f.severity}</td>` +
    `<td class="where">${esc(targetLabel(f))}</td>` +
    `<td><a href="${esc(f.docsUrl)}">${esc(f.ruleId)}</a></td>` +
    `<td class="text"><div>${rich(f.message)}</div>${recommendation(f)}</td>` +
    (withConfirmation ? `<td class="conf">${confirmationCell(f.confirmation)}</td>` : '') +
    '</tr>'
  );
}

/** Repeated info findings of one rule and message in one row; each finding in full behind a disclosure. */
function groupRow(g: FindingGroup, withConfirmation: boolean): string {
  const names = g.findings.map((f) => memberLabel(f, g));
  const where = `${membersNoun(g)}${g.db === null ? '' : ` in ${g.db}`}${g.path === null ? '' : ` › ${g.path}`}`;
  const rule = g.docsUrl ? `<a href="${esc(g.docsUrl)}">${esc(g.ruleId)}</a>` : esc(g.ruleId);
  const verdicts = g.findings.some((f) => f.confirmation)
    ? `<ul class="verdicts">${g.findings.map((f, i) => memberVerdict(f, names[i] ?? '')).join('')}</ul>`
    : '<span class="muted">—</span>';
  const each = g.findings.map((f, i) => memberDetails(f, names[i] ?? '', g)).join('');
  const shared = actionForEach(g, "each finding's own is in its details below");
  const action = shared ? `<div class="rec">For each: <strong>${rich(shared)}</strong></div>` : '';
  const details = `<details><summary>each of the ${esc(membersNoun(g))} in full</summary>${each}</details>`;
  return (
    `<tr class="group"><td class="sev ${g.severity}">${g.severity}</td>` +
    `<td class="where">${esc(where)}: ${esc(names.join(', '))}</td>` +
    `<td>${rule}</td>` +
    `<td class="text"><div>${rich(g.gist)}</div>${action}${details}</td>` +
    (withConfirmation ? `<td class="conf">${verdicts}</td>` : '') +
    '</tr>'
  );
}

/** A group member's verdict in the group's confirmation cell. */
function memberVerdict(f: Finding, name: string): string {
  const verdict = f.confirmation ? esc(confirmationVerdict(f.confirmation, CONFIRMATION_STATUS)) : 'no experiment';
  return `<li><strong>${esc(name)}</strong>: ${verdict}</li>`;
}

/** A group member in full, behind the group's disclosure. */
function memberDetails(f: Finding, name: string, g: FindingGroup): string {
  const docs = g.docsUrl ? '' : ` · <a href="${esc(f.docsUrl)}">docs</a>`;
  const confirmation = f.confirmation ? `<p class="conf">${confirmationCell(f.confirmation)}</p>` : '';
  return (
    `<div class="member"><h4>${esc(name)}${docs}</h4>` +
    `<p>${rich(f.message)}</p>${recommendation(f)}${confirmation}</div>`
  );
}

function chartCard(id: string, title: string, sub: string, wide = false): string {
  return (
    `<div class="card${wide ? ' wide' : ''}"><h3>${esc(title)}</h3><p class="sub">${esc(sub)}</p>` +
    `<div class="chart"><canvas id="${id}" role="img" aria-label="${esc(title)}"></canvas></div></div>`
  );
}

/** The page's Content-Security-Policy: nothing is fetched, inline script and style only, images as data: URLs. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

/** The line under the title: source, server, start, duration, round trips and where confirmation ran. */
function metaLine(result: AuditReport['result']): string {
  const engine = result.server.storageEngine ? `, ${result.server.storageEngine}` : '';
  const server = `${serverLine(result.server)}${engine}`;
  const started = result.startedAt.replace('T', ' ').slice(0, 16);
  const { confirm } = result;
  const dropped = confirm.cleanedUp === false ? ', NOT dropped' : '';
  const confirmation = confirm.enabled ? `on (${esc(confirm.where ?? 'nothing to confirm')}${dropped})` : 'off';
  return (
    `${esc(result.source)} · ${esc(server)} · ${esc(started)} UTC · ${esc(formatDuration(result.durationMs))} · ` +
    `${formatNumber(result.roundTrips)} round trips · confirmation ${confirmation}`
  );
}

/** The chart cards, each with the line that says how to read it. */
function chartCards(cache: number | null | undefined): string {
  const arrayLengths =
    'Sampled documents per array length. The buckets follow published lines: in a MongoDB 1.8 benchmark of ' +
    'embedded vs referenced comments, embedding cost nothing up to 100 per post and $push was 2.3× slower at ' +
    '1,000 and 26.5× at 10,000; Compass flags arrays of 250+, Atlas Schema Suggestions 10,000+.';
  const arrayGrowth =
    'Elements per document against its creation time (ObjectId time or a date field). ' +
    'A rising cloud is an array that keeps growing.';
  const idOrder =
    'Spearman’s ρ between the rank of each _id and the order documents sit in storage, per collection. ' +
    'Near 1 is monotonic (good for clustering); near 0 is random.';
  const indexSizes = cache
    ? `The largest indexes, all indexes together and the WiredTiger cache (${formatBytes(cache)}). ` +
      'Once hot indexes outgrow the cache, reads go to disk.'
    : 'The largest indexes and all indexes together. ' +
      'The server did not report a WiredTiger cache size, so the cache bar is missing.';
  const confirmations =
    'Each experiment’s measured ratio on a scratch copy of the data: the median of its paired trials (◆) and ' +
    'the interval around it (the bar; its coverage is in the tooltip). 1× (the dashed line) is no difference; ' +
    'each label says which arm is divided by which.';
  return [
    chartCard('chart-array-lengths', 'Array lengths', arrayLengths),
    chartCard('chart-array-growth', 'Array growth', arrayGrowth),
    chartCard('chart-id-order', '_id order', idOrder),
    chartCard('chart-index-sizes', 'Index sizes against the cache', indexSizes),
    chartCard('chart-confirmations', 'Confirmation results', confirmations, true),
  ].join('\n');
}

/** The findings table, one row per finding or group; a line saying there are none when there are none. */
function findingsTable(count: number, entries: ReturnType<typeof groupFindings>): string {
  if (!count) return '<p>No findings.</p>';
  // No experiment ran (confirmation off): no column of dashes, the finding's text takes the width.
  const withConfirmation = entries.some((e) =>
    e.kind === 'group' ? e.findings.some((f) => f.confirmation) : e.finding.confirmation !== undefined,
  );
  const cols =
    '<colgroup><col class="sev"><col class="where"><col class="rule"><col class="text">' +
    `${withConfirmation ? '<col class="conf">' : ''}</colgroup>`;
  const head =
    '<tr><th>severity</th><th>where</th><th>rule</th><th>finding and recommendation</th>' +
    `${withConfirmation ? '<th class="conf">confirmation</th>' : ''}</tr>`;
  const rows = entries
    .map((e) => (e.kind === 'group' ? groupRow(e, withConfirmation) : findingRow(e.finding, withConfirmation)))
    .join('\n');
  return `<table class="findings">${cols}<thead>${head}</thead><tbody>${rows}</tbody></table>`;
}

/** A rule's table (`ReportTable`): names and shapes in <code>, figures right-aligned, every cell escaped. */
function ruleTable(t: ReportTable): string {
  const head = t.columns.map((c) => `<th${isFigure(c) ? ' class="num"' : ''}>${esc(c.title)}</th>`).join('');
  const cell = (i: number, v: ReportTable['rows'][number][number]): string => {
    const c = t.columns[i];
    if (!c) return '';
    const text = cellText(c, v);
    if (isFigure(c)) return `<td class="num">${esc(text)}</td>`;
    const mono = (c.kind === 'name' || c.kind === 'code') && v !== null;
    return `<td>${mono ? `<code>${esc(text)}</code>` : rich(text)}</td>`;
  };
  const rows = t.rows.map((r) => `<tr>${r.map((v, i) => cell(i, v)).join('')}</tr>`).join('\n');
  const cols = `<colgroup>${columnWidths(t)
    .map((w) => (w === null ? '<col>' : `<col style="width:${w}px">`))
    .join('')}</colgroup>`;
  const caption = t.caption ? `<p class="sub">${rich(t.caption)}</p>` : '';
  return (
    `<h3>${esc(t.title)} · <code>${esc(tableWhere(t))}</code> <span class="muted">(${esc(t.ruleId)})</span></h3>` +
    `${caption}<div class="scroll"><table class="rule-table">${cols}<thead><tr>${head}</tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`
  );
}

/**
 * Each column's width in a rule table's fixed layout: a column of figures, or of short names or words (14 characters
 * at most), gets the pixels its longest cell and its header's longest word need (headers are capitals, wider per
 * letter); the others (shapes, index keys, long names, sentences) share what is left and wrap inside it, so the table
 * fits the page at any width and no column is squeezed to a letter per line beside a long shape. `null`: no width.
 */
function columnWidths(t: ReportTable): (number | null)[] {
  const widths: (number | null)[] = t.columns.map((c, i): number | null => {
    const longest = Math.max(0, ...t.rows.map((r) => cellText(c, r[i] ?? null).length));
    const word = Math.max(...c.title.split(/\s+/).map((w) => w.length));
    if (!isFigure(c) && longest > 14) return null;
    return Math.ceil(Math.max(longest * 7.5, word * 8.4, 24) + 18);
  });
  // at least one column takes what is left, so the table never grows past the page
  if (!widths.includes(null)) widths[widths.indexOf(Math.max(...widths.map(Number)))] = null;
  return widths;
}

function footer(version: string, chartJsVersion: string): string {
  return (
    `Generated by mongo-advisor ${esc(version)}. This file is self-contained (Chart.js ${esc(chartJsVersion)} ` +
    'is inlined) and holds paths, types, sizes, counts and creation times, never document values.'
  );
}

/**
 * A self-contained HTML audit report: Chart.js and the data inlined, no request leaves the page (a CSP forbids
 * it), readable printed. Shapes only: paths, types, sizes, counts, ranks, creation times; no document values.
 */
export interface HtmlOptions {
  /** Every finding its own row: repeated info findings of one rule are not collapsed into one (default false). */
  verbose?: boolean;
}

export function formatHtml(given: AuditReport, assets: HtmlAssets = loadHtmlAssets(), opts: HtmlOptions = {}): string {
  // `audit -o -` puts the page on a terminal, and a bidi override reorders a browser's text too: names and server
  // messages are shown with their control characters and newlines escaped, as in every human format.
  const report: AuditReport = { result: safeForTerminal(given.result), snapshot: safeForTerminal(given.snapshot) };
  const { result, snapshot } = report;
  const charts = chartData(report);
  const ticket = ticketSummary(report, opts);
  const entries = groupFindings(result.findings, { verbose: opts.verbose === true });
  const count = (s: Severity): number => result.findings.filter((f) => f.severity === s && !isWithdrawn(f)).length;
  const confirmed = result.findings.filter((f) => f.confirmation?.status === 'supported').length;
  const ncoll = collectionTotals(snapshot).total;
  const notes = collapseGaps(result.notes);
  const skipped = notes.filter((n) => n.level !== 'info');
  const info = notes.filter((n) => n.level === 'info');
  const noteItem = (n: (typeof result.notes)[number]): string =>
    `<li>${n.target ? `<strong>${esc(targetLabel({ target: n.target }))}</strong>: ` : ''}${rich(n.message)}</li>`;
  const title = `mongo-advisor audit: ${result.source}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="generator" content="mongo-advisor ${esc(result.tool.version)}">
<title>${esc(title)}</title>
<style>${assets.css.replace(/<\/style/gi, '<\\/style')}</style>
</head>
<body>
<header>
<h1>MongoDB schema audit</h1>
<div class="meta">${metaLine(result)}</div>
</header>
<main>
<section class="tiles" aria-label="summary">
<div class="tile"><div class="n">${formatNumber(snapshot.databases.length)}</div><div class="l">databases</div></div>
<div class="tile"><div class="n">${formatNumber(ncoll)}</div><div class="l">collections</div></div>
<div class="tile error"><div class="n">${count('error')}</div><div class="l">errors</div></div>
<div class="tile warn"><div class="n">${count('warn')}</div><div class="l">warnings</div></div>
<div class="tile info"><div class="n">${count('info')}</div><div class="l">info</div></div>
<div class="tile ok"><div class="n">${confirmed}</div><div class="l">confirmed by measurement</div></div>
${indexTile(charts.indexes)}
</section>

<h2>Summary for a ticket</h2>
<div class="ticket"><button id="copy-ticket" type="button">Copy</button><pre id="ticket">${esc(ticket)}</pre></div>

<h2>Charts</h2>
<div class="grid">
${chartCards(charts.indexes.cacheBytes)}
</div>

<h2>Findings</h2>
${findingsTable(result.findings.length, entries)}
${result.tables?.length ? `<h2>Tables</h2>\n${result.tables.map(ruleTable).join('\n')}` : ''}

${skipped.length ? `<h2>Could not check</h2><ul class="notes">${skipped.map(noteItem).join('')}</ul>` : ''}
${info.length ? `<h2>Notes</h2><ul class="notes">${info.map(noteItem).join('')}</ul>` : ''}

<footer>${footer(result.tool.version, chartVersion(assets.chartJs))}</footer>
</main>
<script type="application/json" id="audit-data">${jsonForScript({ charts })}</script>
<script>${scriptSafe(assets.chartJs)}</script>
<script>${scriptSafe(assets.script)}</script>
</body>
</html>
`;
}

function chartVersion(js: string): string {
  return /Chart\.js v(\d+\.\d+\.\d+)/.exec(js)?.[1] ?? '';
}

/** The index-size tile: the total with its share of the cache, or "unknown" when the server reported no size. */
function indexTile(indexes: ChartData['indexes']): string {
  if (indexes.count === 0)
    return (
      '<div class="tile"><div class="n">unknown</div><div class="l">index sizes (the server reported ' +
      'none)</div></div>'
    );
  const cache = indexes.cacheBytes;
  const share = cache ? ` · ${esc(formatNumber((indexes.totalBytes / cache) * 100))}% of cache` : '';
  return (
    `<div class="tile"><div class="n">${esc(formatBytes(indexes.totalBytes))}</div><div ` +
    `class="l">indexes${share}</div></div>`
  );
}
