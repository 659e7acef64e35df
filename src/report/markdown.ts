import { laterLines } from '../lib/shell';
import { serverName, topologyName } from '../lib/server-name';
import { type BaselineComparison, counts, fingerprint, type LintResult } from '../core/baseline';
import { formatDuration, formatNumber } from '../core/format';
import { isWithdrawn, type Confirmation, type Finding, type ReportTable, type Severity } from '../core/types';
import { cellText, isFigure, tableWhere } from './tables';
import { targetLabel } from './catalog';
import { mdCode, mdFence, mdText, safeForTerminal } from './escape';
import {
  type FindingGroup,
  actionForEach,
  collapseGaps,
  confirmationVerdict,
  groupFindings,
  memberLabel,
  membersNoun,
  ratioFigure,
  verboseHolds,
  verdictWords,
} from './group';

const ICON: Record<Severity, string> = { error: '🔴', warn: '🟡', info: '🔵' };
const STATUS: Record<Confirmation['status'], string> = {
  supported: '✅',
  refuted: '❌',
  inconclusive: '≈',
  'not-run': '○',
  error: '⚠️',
};

/** Prose in a table cell: no pipes, no newlines, no link, image or HTML from the data (src/report/escape.ts). */
const cell = (s: string): string => mdText(s, { table: true });
/** Prose outside a table. */
const prose = (s: string): string => mdText(s);
/** A name (a database, a collection, a finding's address) in a code span; `table` for a table cell. */
const name = (s: string, table = false): string => mdCode(s, { table });
/** The mark and the words of a verdict: "✅ supported", "❌ check failed". */
const verdictOf = (c: Confirmation): string => `${STATUS[c.status]} ${verdictWords(c)}`;

function ratioText(c: Confirmation): string {
  if (!c.ratio) return '';
  const r = c.ratio;
  return ` (${cell(ratioFigure(r))})`;
}

function findingDetails(f: Finding, state: string | undefined): string {
  const judged = state === 'unchanged' ? 'accepted by the baseline' : 'worse than the baseline';
  const heading = `#### ${ICON[f.severity]} ${name(targetLabel(f))} — \`${f.ruleId}\``;
  const lines = [`${heading}${state && state !== 'new' ? ` _(${judged})_` : ''}`, '', prose(f.message), ''];
  if (f.recommendation) {
    lines.push(`**${prose(f.recommendation.action)}**: ${prose(f.recommendation.reason)}`, '');
    if (f.recommendation.commands?.length) lines.push(...mdFence(f.recommendation.commands, 'js'), '');
    const later = f.recommendation.later;
    if (later) lines.push(`Later, ${prose(later.when)}:`, '', ...mdFence(laterLines(later), 'js'), '');
  }
  const k = f.confirmation;
  if (k) lines.push(`${verdictOf(k)}: ${prose(k.summary)}${ratioText(k)}`, '');
  lines.push(`[${f.ruleId}](${f.docsUrl})`, '');
  return lines.join('\n');
}

/** "3 collections in `app` › `path`: `a`, `b`, `c`", names in code spans (`table`: pipes escaped). */
function groupWhere(g: FindingGroup, table: boolean): string {
  const db = g.db === null ? '' : ` in ${name(g.db, table)}`;
  const path = g.path === null ? '' : ` › ${name(g.path, table)}`;
  return `${membersNoun(g)}${db}${path}: ${g.findings.map((f) => name(memberLabel(f, g), table)).join(', ')}`;
}

function groupDetails(g: FindingGroup): string {
  const lines = [`#### ${ICON[g.severity]} ${groupWhere(g, false)} — \`${g.ruleId}\``, '', prose(g.gist), ''];
  const action = actionForEach(g, "`--verbose` prints each finding's own");
  if (action) lines.push(`**For each: ${prose(action)}**`, '');
  if (g.findings.some((f) => f.confirmation)) {
    for (const f of g.findings) {
      const verdict = f.confirmation ? prose(confirmationVerdict(f.confirmation, STATUS)) : 'no experiment';
      lines.push(`- ${name(memberLabel(f, g))}: ${verdict}`);
    }
    lines.push('');
  }
  lines.push(
    `_Run with \`--verbose\` for each ` +
      `collection's ${verboseHolds(g)}._${g.docsUrl ? ` [${g.ruleId}](${g.docsUrl})` : ''}`,
    '',
  );
  return lines.join('\n');
}

export interface MarkdownOptions {
  /** Every finding in full: repeated info findings of one rule are not collapsed into one entry (default false). */
  verbose?: boolean;
}

/** The findings table, then each finding's details and recommendation behind a disclosure. */
function findingsTable(findings: readonly Finding[], baseline: BaselineComparison | null, verbose: boolean): string[] {
  // Under a baseline each finding has its own state: collapse only without one.
  const entries = groupFindings(findings, { verbose: verbose || baseline !== null });
  const out = ['| severity | where | rule | finding | confirmation |', '|---|---|---|---|---|'];
  for (const e of entries) out.push(e.kind === 'group' ? groupRow(e) : findingRow(e.finding, baseline));
  out.push('', '<details><summary>Details and recommendations</summary>', '');
  for (const e of entries)
    out.push(
      e.kind === 'group' ? groupDetails(e) : findingDetails(e.finding, baseline?.states[fingerprint(e.finding)]),
    );
  out.push('</details>', '');
  return out;
}

/** A group's row of the findings table: the members' verdicts in one cell. */
function groupRow(e: FindingGroup): string {
  const verdicts = e.findings
    .filter((f) => f.confirmation)
    .map((f) => `${name(memberLabel(f, e), true)}: ${f.confirmation ? verdictOf(f.confirmation) : STATUS['not-run']}`);
  const rule = e.docsUrl ? `[${e.ruleId}](${e.docsUrl})` : e.ruleId;
  const verdict = verdicts.length ? verdicts.join('<br>') : '—';
  return `| ${ICON[e.severity]} ${e.severity} | ${groupWhere(e, true)} | ${rule} | ${cell(e.gist)} | ${verdict} |`;
}

/** A finding's row of the findings table, marked "(baseline)" when the baseline already holds it. */
function findingRow(f: Finding, baseline: BaselineComparison | null): string {
  const state = baseline?.states[fingerprint(f)];
  const sev = `${ICON[f.severity]} ${f.severity}${state === 'unchanged' ? ' (baseline)' : ''}`;
  const verdict = f.confirmation ? `${verdictOf(f.confirmation)}${ratioText(f.confirmation)}` : '—';
  return `| ${sev} | ${name(targetLabel(f), true)} | [${f.ruleId}](${f.docsUrl}) | ${cell(f.message)} | ${verdict} |`;
}

/** A rule's table (`ReportTable`): names and shapes in code spans, prose inert, figures right-aligned. */
function ruleTable(t: ReportTable): string[] {
  const out = [`### ${prose(t.title)} · ${name(tableWhere(t))} (${name(t.ruleId)})`, ''];
  if (t.caption) out.push(prose(t.caption), '');
  out.push(`| ${t.columns.map((c) => cell(c.title)).join(' | ')} |`);
  out.push(`|${t.columns.map((c) => (isFigure(c) ? '---:' : '---')).join('|')}|`);
  for (const row of t.rows) {
    const cells = t.columns.map((c, i) => {
      const v = row[i] ?? null;
      const text = cellText(c, v);
      return (c.kind === 'name' || c.kind === 'code') && v !== null ? name(text, true) : cell(text);
    });
    out.push(`| ${cells.join(' | ')} |`);
  }
  out.push('');
  return out;
}

/** Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY: verdict, counts, a findings table, details. */
export function formatMarkdown(given: LintResult, opts: MarkdownOptions = {}): string {
  // Markdown is read in terminals and CI logs too: no control character or newline from a name or a server message
  // gets through; then the Markdown rule (src/report/escape.ts) keeps links, images and HTML out of the data.
  const result = safeForTerminal(given);
  const baseline = result.lint?.baseline ?? null;
  const out: string[] = [];
  const server = serverName(result.server);
  out.push(`## mongo-advisor: ${name(result.scope.db)}`, '');
  if (result.lint) out.push(`**${result.lint.exitCode === 0 ? '✅' : '❌'} ${prose(result.lint.verdict)}**`, '');
  out.push(
    `${formatNumber(result.scope.collections.length)} collections on ${prose(result.source)} ` +
      `(${prose(server)}, ${topologyName(result.server.topology)}) · ${formatDuration(result.durationMs)} · ` +
      `confirmation ${result.confirm.enabled ? 'on' : 'off'}`,
    '',
  );
  // What the user's roles allowed, up front (each skipped check is listed with the notes)
  const roles = result.privileges;
  if (roles?.basis === 'roles') out.push(`${roles.skipped.length > 0 ? '⚠️ ' : ''}Roles: ${prose(roles.summary)}`, '');
  const bySev = (s: Severity): number => result.findings.filter((f) => f.severity === s && !isWithdrawn(f)).length;
  out.push('| | errors | warnings | info |', '|---|---:|---:|---:|');
  out.push(`| findings | ${bySev('error')} | ${bySev('warn')} | ${bySev('info')} |`);
  if (baseline) {
    const fresh = (s: Severity): number =>
      result.findings.filter((f) => f.severity === s && counts(f, baseline)).length;
    out.push(`| new (not in baseline) | ${fresh('error')} | ${fresh('warn')} | ${fresh('info')} |`);
  }
  out.push('');
  if (result.findings.length === 0) out.push('No findings.', '');
  else out.push(...findingsTable(result.findings, baseline, opts.verbose === true));
  for (const t of result.tables ?? []) out.push(...ruleTable(t));
  if (baseline?.absent.length) {
    out.push(
      `${baseline.absent.length} baseline entr${baseline.absent.length === 1 ? 'y is' : 'ies are'} no ` +
        `longer found (fixed, or not checked this run); prune them with \`--update-baseline\`:`,
      '',
    );
    for (const a of baseline.absent) out.push(`- ${name(a.fingerprint)}`);
    out.push('');
  }
  const skipped = collapseGaps(result.notes).filter((n) => n.level !== 'info');
  if (skipped.length) {
    out.push('### Could not check', '');
    for (const n of skipped) {
      out.push(`- ${n.target ? `${name(targetLabel({ target: n.target }))}: ` : ''}${prose(n.message)}`);
    }
    out.push('');
  }
  return out.join('\n');
}
