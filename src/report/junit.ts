import { laterLines } from '../lib/shell';
import { counts, type LintResult } from '../core/baseline';
import { type Finding, type Severity, severityRank } from '../core/types';
import { type RuleInfo, scopeTargets, targetLabel } from './catalog';
import { safeForTerminal } from './escape';

export interface JunitOptions {
  /** Findings at or above this fail their test case (default: the lint gate's, else warn). */
  failOn?: Severity;
  /** The rules a finding can come from (`ruleCatalog(rules)`: the front door passes the rule list in). */
  rules: readonly RuleInfo[];
}

/** XML 1.0 text: escapes markup and drops the control characters XML cannot hold. */
function xml(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function details(f: Finding): string {
  const lines = [`${f.severity}: ${targetLabel(f)}`, f.message];
  if (f.recommendation)
    lines.push(
      `Recommendation (${f.recommendation.action}): ${f.recommendation.reason}`,
      ...(f.recommendation.commands ?? []).map((c) => `  ${c}`),
      ...(f.recommendation.later ? laterLines(f.recommendation.later) : []).map((c) => `  ${c}`),
    );
  if (f.confirmation) lines.push(`Confirmation (${f.confirmation.status}): ${f.confirmation.summary}`);
  lines.push(`Rule: ${f.ruleId} (${f.messageId}) ${f.docsUrl}`);
  return lines.join('\n');
}

/**
 * JUnit XML as CI dashboards read it: one test suite per rule, one test case per checked collection. A case fails
 * when a counted finding there reaches the failing severity; findings below it, or accepted by the baseline, are
 * listed in the case's system-out without failing it. A rule the server could not run is a skipped case.
 */
export function formatJunit(given: LintResult, opts: JunitOptions): string {
  // CI dashboards show the names and messages to people, in logs too: the terminal rule (no control character, no
  // newline that makes a name a line of its own). XML drops C0 controls anyway, so names were never kept verbatim.
  const result = safeForTerminal(given);
  const failOn = opts.failOn ?? result.lint?.failOn ?? 'warn';
  const baseline = result.lint?.baseline ?? null;
  const catalog = opts.rules;
  const collections = scopeTargets(result.scope);
  const ruleIds = [
    ...new Set([
      ...catalog.filter((r) => !r.id.startsWith('spec-')).map((r) => r.id),
      ...result.findings.map((f) => f.ruleId),
    ]),
  ];
  const suites: string[] = [];
  let total = 0;
  let failures = 0;
  let skippedTotal = 0;
  for (const id of ruleIds) {
    const findings = result.findings.filter((f) => f.ruleId === id);
    const skipNote = result.notes.find((n) => n.level === 'skipped' && !n.target && n.ruleId === id);
    // Cases: each checked collection, plus any other target a finding names (another database, a spec entry).
    const targets = new Map<string, Finding[]>();
    for (const c of collections) targets.set(c, []);
    for (const f of findings) {
      const key = `${f.target.db}${f.target.collection ? `.${f.target.collection}` : ''}`;
      const list = targets.get(key) ?? [];
      list.push(f);
      targets.set(key, list);
    }
    if (id.startsWith('spec-') && findings.length === 0) continue;
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteSkipped = 0;
    for (const [name, list] of targets) {
      const failing = list.filter((f) => counts(f, baseline) && severityRank(f.severity) >= severityRank(failOn));
      const other = list.filter((f) => !failing.includes(f));
      const body: string[] = [];
      if (skipNote && list.length === 0) {
        body.push(`      <skipped message="${xml(skipNote.message)}"/>`);
        suiteSkipped++;
      }
      for (const f of failing)
        body.push(
          `      <failure message="${xml(`${targetLabel(f)}: ${f.message}`)}" ` +
            `type="${f.severity}">${xml(details(f))}</failure>`,
        );
      if (other.length) {
        const text = other
          .map((f) => `${counts(f, baseline) ? '' : '[accepted by baseline] '}${details(f)}`)
          .join('\n\n');
        body.push(`      <system-out>${xml(text)}</system-out>`);
      }
      if (failing.length) suiteFailures++;
      cases.push(
        `    <testcase classname="${xml(`mongo-advisor.${id}`)}" name="${xml(name || result.scope.db)}" ` +
          `time="0"${body.length ? `>\n${body.join('\n')}\n    </testcase>` : '/>'}`,
      );
    }
    total += cases.length;
    failures += suiteFailures;
    skippedTotal += suiteSkipped;
    suites.push(
      `  <testsuite name="${xml(id)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" ` +
        `skipped="${suiteSkipped}" timestamp="${xml(result.startedAt.replace(/Z$/, ''))}" ` +
        `time="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const time = (result.durationMs / 1000).toFixed(3);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mongo-advisor ${xml(result.scope.db)}" tests="${total}" failures="${failures}" ` +
      `errors="0" skipped="${skippedTotal}" time="${time}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
