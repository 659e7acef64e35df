import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { formatBytes, formatDuration, formatNumber } from '../core/format';
import type { Confirmation, Finding, Severity } from '../core/types';
import { targetLabel } from './catalog';
import { CONFIRMATION_STATUS } from './text';
import { type AuditReport, chartData, ticketSummary } from './html-data';

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
  throw new Error(`the HTML report asset ${name} is missing from ${__dirname}: the package is incomplete, reinstall mongo-advisor`);
}

/** Reads the assets once: Chart.js from its package (a dependency), the rest from beside this module. */
export function loadHtmlAssets(): HtmlAssets {
  if (!cached) {
    const chartDir = path.dirname(require.resolve('chart.js'));
    cached = { chartJs: readFileSync(path.join(chartDir, 'chart.umd.min.js'), 'utf8'), script: readAsset('report.js'), css: readAsset('report.css') };
  }
  return cached;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Text placed inside <script>: "</script" and "<!--" must not appear, whatever the data holds. */
function scriptSafe(s: string): string {
  return s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function jsonForScript(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}


function confirmationCell(c: Confirmation | undefined): string {
  if (!c) return '<span class="muted">—</span>';
  const ratio = c.ratio ? `<br><strong>${esc(c.ratio.label)} ${esc(formatNumber(c.ratio.median))}×</strong> (95% interval ${esc(formatNumber(c.ratio.low))}–${esc(formatNumber(c.ratio.high))})` : '';
  const ms = c.measurements.length
    ? `<br>${c.measurements.map((m) => `${esc(m.label)}: ${esc(m.unit === 'bytes' ? formatBytes(m.median) : m.unit === 'ms' ? formatDuration(m.median) : `${formatNumber(m.median)} ops/s`)}${m.trials > 1 ? ` (${esc(formatNumber(m.low))}–${esc(formatNumber(m.high))}, ${m.trials} trials)` : ''}`).join('<br>')}`
    : '';
  return `${esc(CONFIRMATION_STATUS[c.status])}: ${esc(c.summary)}${c.reason ? ` (${esc(c.reason)})` : ''}${ratio}${ms}`;
}

function findingRow(f: Finding): string {
  const rec = f.recommendation
    ? `<div class="rec"><strong>${esc(f.recommendation.action)}</strong>: ${esc(f.recommendation.reason)}</div>${(f.recommendation.commands ?? []).length ? `<pre class="cmd">${esc((f.recommendation.commands ?? []).join('\n'))}</pre>` : ''}`
    : '';
  return `<tr><td class="sev ${f.severity}">${f.severity}</td><td>${esc(targetLabel(f))}</td><td><a href="${esc(f.docsUrl)}">${esc(f.ruleId)}</a></td><td>${esc(f.message)}${rec}</td><td>${confirmationCell(f.confirmation)}</td></tr>`;
}

function chartCard(id: string, title: string, sub: string, wide = false): string {
  return `<div class="card${wide ? ' wide' : ''}"><h3>${esc(title)}</h3><p class="sub">${esc(sub)}</p><div class="chart"><canvas id="${id}" role="img" aria-label="${esc(title)}"></canvas></div></div>`;
}

/**
 * A self-contained HTML audit report: Chart.js and the data inlined, no request leaves the page (a CSP forbids
 * it), readable printed. Shapes only: paths, types, sizes, counts, ranks, creation times; no document values.
 */
export function formatHtml(report: AuditReport, assets: HtmlAssets = loadHtmlAssets()): string {
  const { result, snapshot } = report;
  const charts = chartData(report);
  const ticket = ticketSummary(report);
  const count = (s: Severity): number => result.findings.filter((f) => f.severity === s).length;
  const confirmed = result.findings.filter((f) => f.confirmation?.status === 'supported').length;
  const ncoll = snapshot.databases.reduce((n, d) => n + d.collections.length, 0);
  const server = `${result.server.flavor === 'ferretdb' ? 'FerretDB' : 'MongoDB'} ${result.server.version}, ${result.server.topology}${result.server.storageEngine ? `, ${result.server.storageEngine}` : ''}`;
  const skipped = result.notes.filter((n) => n.level !== 'info');
  const info = result.notes.filter((n) => n.level === 'info');
  const noteItem = (n: (typeof result.notes)[number]): string => `<li>${n.target ? `<strong>${esc(targetLabel({ target: n.target }))}</strong>: ` : ''}${esc(n.message)}</li>`;
  const cache = charts.indexes.cacheBytes;
  const title = `mongo-advisor audit: ${result.source}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="mongo-advisor ${esc(result.tool.version)}">
<title>${esc(title)}</title>
<style>${assets.css.replace(/<\/style/gi, '<\\/style')}</style>
</head>
<body>
<header>
<h1>MongoDB schema audit</h1>
<div class="meta">${esc(result.source)} · ${esc(server)} · ${esc(result.startedAt.replace('T', ' ').slice(0, 16))} UTC · ${esc(formatDuration(result.durationMs))} · ${formatNumber(result.roundTrips)} round trips · confirmation ${result.confirm.enabled ? `on (${esc(result.confirm.where ?? 'nothing to confirm')}${result.confirm.cleanedUp === false ? ', NOT dropped' : ''})` : 'off'}</div>
</header>
<main>
<section class="tiles" aria-label="summary">
<div class="tile"><div class="n">${formatNumber(snapshot.databases.length)}</div><div class="l">databases</div></div>
<div class="tile"><div class="n">${formatNumber(ncoll)}</div><div class="l">collections</div></div>
<div class="tile error"><div class="n">${count('error')}</div><div class="l">errors</div></div>
<div class="tile warn"><div class="n">${count('warn')}</div><div class="l">warnings</div></div>
<div class="tile info"><div class="n">${count('info')}</div><div class="l">info</div></div>
<div class="tile ok"><div class="n">${confirmed}</div><div class="l">confirmed by measurement</div></div>
<div class="tile"><div class="n">${esc(formatBytes(charts.indexes.totalBytes))}</div><div class="l">indexes${cache ? ` · ${esc(formatNumber((charts.indexes.totalBytes / cache) * 100))}% of cache` : ''}</div></div>
</section>

<h2>Summary for a ticket</h2>
<div class="ticket"><button id="copy-ticket" type="button">Copy</button><pre id="ticket">${esc(ticket)}</pre></div>

<h2>Charts</h2>
<div class="grid">
${chartCard('chart-array-lengths', 'Array lengths', 'Sampled documents per array length. Buckets follow the field figures: no cost to ~100 items, Compass flags 250+, $push 2.3× slower at 1,000, Atlas flags 10,000+ (26.5× slower).')}
${chartCard('chart-array-growth', 'Array growth', 'Elements per document against its creation time (ObjectId time or a date field). A rising cloud is an array that keeps growing.')}
${chartCard('chart-id-order', '_id order', 'Spearman’s ρ between the rank of each _id and the order documents sit in storage, per collection. Near 1 is monotonic (good for clustering); near 0 is random.')}
${chartCard('chart-index-sizes', 'Index sizes against the cache', cache ? `The largest indexes, all indexes together and the WiredTiger cache (${formatBytes(cache)}). Once hot indexes outgrow the cache, reads go to disk.` : 'The largest indexes and all indexes together. The server did not report a WiredTiger cache size, so the cache bar is missing.')}
${chartCard('chart-confirmations', 'Confirmation results', 'Each experiment’s measured ratio (median of trials) with its bootstrap 95% interval, on a scratch copy of the data.', true)}
</div>

<h2>Findings</h2>
${result.findings.length ? `<table><thead><tr><th>severity</th><th>where</th><th>rule</th><th>finding and recommendation</th><th>confirmation</th></tr></thead><tbody>${result.findings.map(findingRow).join('\n')}</tbody></table>` : '<p>No findings.</p>'}

${skipped.length ? `<h2>Could not check</h2><ul class="notes">${skipped.map(noteItem).join('')}</ul>` : ''}
${info.length ? `<h2>Notes</h2><ul class="notes">${info.map(noteItem).join('')}</ul>` : ''}

<footer>Generated by mongo-advisor ${esc(result.tool.version)}. This file is self-contained (Chart.js ${esc(chartVersion(assets.chartJs))} is inlined) and holds paths, types, sizes, counts and creation times, never document values.</footer>
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
