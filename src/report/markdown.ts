import { counts, fingerprint, type LintResult } from '../core/baseline';
import { formatDuration, formatNumber, terminalSafeDeep } from '../core/format';
import type { Confirmation, Finding, Severity } from '../core/types';
import { targetLabel } from './catalog';
import { type FindingGroup, confirmationVerdict, groupFindings, memberLabel, membersNoun, ratioFigure, verboseHolds, verdictWords } from './group';

const ICON: Record<Severity, string> = { error: '🔴', warn: '🟡', info: '🔵' };
const STATUS: Record<Confirmation['status'], string> = {
  supported: '✅',
  refuted: '❌',
  inconclusive: '≈',
  'not-run': '○',
  error: '⚠️',
};

/** The mark and the words of a verdict: "✅ supported", "❌ check failed". */
const verdictOf = (c: Confirmation): string => `${STATUS[c.status]} ${verdictWords(c)}`;

/** Text inside a table cell or a line: no pipes, no newlines, no stray HTML. */
function cell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');
}

function ratioText(c: Confirmation): string {
  if (!c.ratio) return '';
  const r = c.ratio;
  return ` (${cell(ratioFigure(r))})`;
}

function findingDetails(f: Finding, state: string | undefined): string {
  const lines = [`#### ${ICON[f.severity]} ${cell(targetLabel(f))} — \`${f.ruleId}\`${state && state !== 'new' ? ` _(${state === 'unchanged' ? 'accepted by the baseline' : 'worse than the baseline'})_` : ''}`, '', cell(f.message), ''];
  if (f.recommendation) {
    lines.push(`**${cell(f.recommendation.action)}**: ${cell(f.recommendation.reason)}`, '');
    if (f.recommendation.commands?.length) lines.push('```js', ...f.recommendation.commands, '```', '');
  }
  if (f.confirmation) lines.push(`${verdictOf(f.confirmation)}: ${cell(f.confirmation.summary)}${ratioText(f.confirmation)}`, '');
  lines.push(`[${f.ruleId}](${f.docsUrl})`, '');
  return lines.join('\n');
}

function groupWhere(g: FindingGroup): string {
  return `${membersNoun(g)}${g.db === null ? '' : ` in ${g.db}`}${g.path === null ? '' : ` › ${g.path}`}: ${g.findings.map((f) => memberLabel(f, g)).join(', ')}`;
}

function groupDetails(g: FindingGroup): string {
  const lines = [`#### ${ICON[g.severity]} ${cell(groupWhere(g))} — \`${g.ruleId}\``, '', cell(g.gist), ''];
  if (g.action) lines.push(`**For each: ${cell(g.action)}**`, '');
  if (g.findings.some((f) => f.confirmation)) {
    for (const f of g.findings) lines.push(`- ${cell(memberLabel(f, g))}: ${f.confirmation ? cell(confirmationVerdict(f.confirmation, STATUS)) : 'no experiment'}`);
    lines.push('');
  }
  lines.push(`_Run with \`--verbose\` for each collection's ${verboseHolds(g)}._${g.docsUrl ? ` [${g.ruleId}](${g.docsUrl})` : ''}`, '');
  return lines.join('\n');
}

export interface MarkdownOptions {
  /** Every finding in full: repeated info findings of one rule are not collapsed into one entry (default false). */
  verbose?: boolean;
}

/** Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY: verdict, counts, a findings table, details. */
export function formatMarkdown(given: LintResult, opts: MarkdownOptions = {}): string {
  // Markdown is read in terminals and CI logs too: no control character from a name or a server message gets through.
  const result = terminalSafeDeep(given);
  const baseline = result.lint?.baseline ?? null;
  const out: string[] = [];
  const server = `${result.server.flavor === 'ferretdb' ? 'FerretDB' : 'MongoDB'} ${result.server.version}`;
  out.push(`## mongo-advisor: ${cell(result.scope.db)}`, '');
  if (result.lint) out.push(`**${result.lint.exitCode === 0 ? '✅' : '❌'} ${cell(result.lint.verdict)}**`, '');
  out.push(
    `${formatNumber(result.scope.collections.length)} collections on ${cell(result.source)} (${cell(server)}, ${result.server.topology}) · ${formatDuration(result.durationMs)} · confirmation ${result.confirm.enabled ? 'on' : 'off'}`,
    '',
  );
  // What the user's roles allowed, up front (each skipped check is listed with the notes)
  if (result.privileges?.basis === 'roles') out.push(`${result.privileges.skipped.length > 0 ? '⚠️ ' : ''}Roles: ${cell(result.privileges.summary)}`, '');
  const bySev = (s: Severity): number => result.findings.filter((f) => f.severity === s).length;
  out.push('| | errors | warnings | info |', '|---|---:|---:|---:|');
  out.push(`| findings | ${bySev('error')} | ${bySev('warn')} | ${bySev('info')} |`);
  if (baseline) {
    const fresh = (s: Severity): number => result.findings.filter((f) => f.severity === s && counts(f, baseline)).length;
    out.push(`| new (not in baseline) | ${fresh('error')} | ${fresh('warn')} | ${fresh('info')} |`);
  }
  out.push('');
  if (result.findings.length === 0) out.push('No findings.', '');
  else {
    // Under a baseline each finding has its own state: collapse only without one.
    const entries = groupFindings(result.findings, { verbose: opts.verbose === true || baseline !== null });
    out.push('| severity | where | rule | finding | confirmation |', '|---|---|---|---|---|');
    for (const e of entries) {
      if (e.kind === 'group') {
        const verdicts = e.findings.filter((f) => f.confirmation).map((f) => `${cell(memberLabel(f, e))}: ${f.confirmation ? verdictOf(f.confirmation) : STATUS['not-run']}`);
        out.push(`| ${ICON[e.severity]} ${e.severity} | ${cell(groupWhere(e))} | ${e.docsUrl ? `[${e.ruleId}](${e.docsUrl})` : e.ruleId} | ${cell(e.gist)} | ${verdicts.length ? verdicts.join('<br>') : '—'} |`);
        continue;
      }
      const f = e.finding;
      const state = baseline?.states[fingerprint(f)];
      const sev = `${ICON[f.severity]} ${f.severity}${state === 'unchanged' ? ' (baseline)' : ''}`;
      out.push(`| ${sev} | ${cell(targetLabel(f))} | [${f.ruleId}](${f.docsUrl}) | ${cell(f.message)} | ${f.confirmation ? `${verdictOf(f.confirmation)}${ratioText(f.confirmation)}` : '—'} |`);
    }
    out.push('', '<details><summary>Details and recommendations</summary>', '');
    for (const e of entries) out.push(e.kind === 'group' ? groupDetails(e) : findingDetails(e.finding, baseline?.states[fingerprint(e.finding)]));
    out.push('</details>', '');
  }
  if (baseline?.absent.length) {
    out.push(`${baseline.absent.length} baseline entr${baseline.absent.length === 1 ? 'y is' : 'ies are'} no longer found (fixed, or not checked this run); prune them with \`--update-baseline\`:`, '');
    for (const a of baseline.absent) out.push(`- \`${cell(a.fingerprint)}\``);
    out.push('');
  }
  const skipped = result.notes.filter((n) => n.level !== 'info');
  if (skipped.length) {
    out.push('### Could not check', '');
    for (const n of skipped) out.push(`- ${n.target ? `${cell(targetLabel({ target: n.target }))}: ` : ''}${cell(n.message)}`);
    out.push('');
  }
  return out.join('\n');
}
