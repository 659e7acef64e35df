import { laterLines } from '../lib/shell';
import { serverLine } from '../lib/server-name';
import Table from 'cli-table3';
import { createColors } from 'picocolors';
import { formatBytes, formatDuration, formatNumber } from '../core/format';
import { CONFIDENCE } from '../core/stats';
import {
  isWithdrawn,
  type CheckResult,
  type Confirmation,
  type Finding,
  type Measurement,
  type Severity,
} from '../core/types';
import { safeForTerminal } from './escape';
import {
  type FindingGroup,
  actionForEach,
  collapseGaps,
  confirmationVerdict,
  groupFindings,
  memberLabel,
  membersNoun,
  verboseHolds,
  verdictWords,
} from './group';

export interface TextOptions {
  color: boolean;
  /** Show the measurement table under each confirmation (default true). */
  measurements?: boolean;
  /** Every finding in full: repeated info findings of one rule are not collapsed into one entry (default false). */
  verbose?: boolean;
  /** How a collapsed entry says to get each finding in full (default "run with --verbose"; mongosh has its own way). */
  verboseHint?: string;
}

const ICON: Record<Severity, string> = { error: '✖', warn: '▲', info: 'ℹ' };

/** A figure the experiment did not produce (a size the server would not report, say) reads as such, never as 0. */
const measured = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function fmtMeasure(m: Measurement): string {
  if (!measured(m.median)) return 'not measured';
  const f =
    m.unit === 'bytes' ? formatBytes : m.unit === 'ms' ? formatDuration : (x: number) => `${formatNumber(x)} ops/s`;
  return f(m.median);
}

function fmtInterval(m: Measurement): string {
  if (m.trials <= 1 || !measured(m.low) || !measured(m.high)) return '';
  const f = m.unit === 'bytes' ? formatBytes : m.unit === 'ms' ? formatDuration : formatNumber;
  // one level in every label: "95%" for an interval that reaches it, "range" for one that does not
  const level = m.coverage === undefined ? '' : m.coverage >= CONFIDENCE - 1e-12 ? ' (95%)' : ' (range)';
  return `${f(m.low)} – ${f(m.high)}${level}`;
}

function wrap(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

/** The readable report for the terminal and the mongosh prompt. Colour only when asked (a TTY). */
export function formatText(given: CheckResult, opts: TextOptions): string {
  // Names and server messages reach a terminal: escape their control characters and newlines (a name never starts a
  // line of its own) before any colour is added.
  const result = safeForTerminal(given);
  const c = createColors(opts.color);
  const sev: Record<Severity, (s: string) => string> = { error: c.red, warn: c.yellow, info: c.cyan };
  const width = 96;
  const out: string[] = [...header(result, c), ''];
  if (result.findings.length === 0) out.push(c.green('✔ No findings.'));
  const entries = groupFindings(result.findings, { verbose: opts.verbose === true });
  for (const e of entries)
    out.push(
      e.kind === 'finding'
        ? formatFinding(e.finding, c, sev, width, opts.measurements !== false)
        : formatGroup(e, c, sev, width, opts.verboseHint ?? 'run with --verbose'),
      '',
    );
  // one line per server gap, however many places it affected
  const notes = collapseGaps(result.notes);
  out.push(
    ...noteSection(
      'Could not check',
      notes.filter((n) => n.level !== 'info'),
      c,
      width,
    ),
  );
  out.push(
    ...noteSection(
      'Notes',
      notes.filter((n) => n.level === 'info'),
      c,
      width,
    ),
  );
  // Where a long report's findings come from, at a glance.
  if (result.findings.length > 3) out.push(c.dim(`by rule: ${countByRule(result.findings)}`));
  out.push(severityCounts(result.findings, c, sev));
  return out.join('\n');
}

/** The lines above the findings: tool and source, scope, duration, where experiments ran, the user's roles. */
function header(result: CheckResult, c: Colors): string[] {
  const out: string[] = [];
  const server = serverLine(result.server);
  out.push(
    c.bold(`mongo-advisor ${result.tool.version}`) + c.dim(` · ${result.scope.db} on ${result.source} (${server})`),
  );
  const { confirm } = result;
  const dropped = confirm.cleanedUp ? ' (dropped afterwards)' : c.red(' (NOT dropped: see below)');
  const confirmLine = !confirm.enabled
    ? 'confirmation off'
    : confirm.where
      ? `experiments on ${confirm.where}${dropped}`
      : 'nothing to confirm';
  const collections = result.scope.collections.length;
  const scope = `${formatNumber(collections)} collection${collections === 1 ? '' : 's'}`;
  const roundTrips = `${formatNumber(result.roundTrips)} round trips`;
  out.push(c.dim(`${scope} in ${formatDuration(result.durationMs)} · ${roundTrips} · ${confirmLine}`));
  // What the user's roles allowed, up front (each skipped check is also under "Could not check", with its reason)
  const roles = result.privileges;
  if (roles?.basis === 'roles')
    out.push(roles.skipped.length > 0 ? c.yellow(`roles: ${roles.summary}`) : c.dim(`roles: ${roles.summary}`));
  return out;
}

/** A titled list of notes, each wrapped to the width, then a blank line; nothing when there are none. */
function noteSection(title: string, notes: CheckResult['notes'], c: Colors, width: number): string[] {
  if (!notes.length) return [];
  const where = (t: CheckResult['notes'][number]['target']): string =>
    t ? `${t.db}${t.collection ? `.${t.collection}` : ''}: ` : '';
  return [c.bold(title), ...notes.map((n) => wrap(`- ${where(n.target)}${n.message}`, width, '  ')), ''];
}

/** "array-growth 2 · validator 3": findings per rule, rules in alphabetical order. */
function countByRule(findings: readonly Finding[]): string {
  const byRule = new Map<string, number>();
  for (const f of findings) byRule.set(f.ruleId, (byRule.get(f.ruleId) ?? 0) + 1);
  return [...byRule]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([id, n]) => `${id} ${n}`)
    .join(' · ');
}

/** The last line: errors, warnings and info, each in its colour. */
function severityCounts(findings: readonly Finding[], c: Colors, sev: Record<Severity, (s: string) => string>): string {
  const counts = (['error', 'warn', 'info'] as const).map(
    (s) => [s, findings.filter((f) => f.severity === s && !isWithdrawn(f)).length] as const,
  );
  const withdrawn = findings.filter(isWithdrawn).length;
  return [
    ...counts.map(([s, n]) => sev[s](`${n} ${s === 'warn' ? 'warning' : s}${n === 1 || s === 'info' ? '' : 's'}`)),
    ...(withdrawn ? [c.dim(`${withdrawn} withdrawn (refuted on scratch)`)] : []),
  ].join(c.dim(' · '));
}

type Colors = ReturnType<typeof createColors>;

function formatFinding(
  f: Finding,
  c: Colors,
  sev: Record<Severity, (s: string) => string>,
  width: number,
  withTable: boolean,
): string {
  const lines: string[] = [];
  const t = f.target;
  const collection = t.collection ? `.${t.collection}` : '';
  const path = t.path ? ` ${c.dim('›')} ${t.path}` : '';
  const index = t.index ? ` ${c.dim('index')} ${t.index}` : '';
  const where = `${t.db}${collection}${path}${index}`;
  lines.push(`${sev[f.severity](`${ICON[f.severity]} ${f.severity.padEnd(5)}`)} ${c.bold(where)}  ${c.dim(f.ruleId)}`);
  lines.push(wrap(f.message, width, '  '));
  if (f.recommendation) {
    lines.push(wrap(`→ ${c.bold(f.recommendation.action)}: ${f.recommendation.reason}`, width, '  '));
    for (const cmd of f.recommendation.commands ?? []) lines.push(`      ${c.green(cmd)}`);
    // the later step stays commented out: pasting the lines above, or all of them, cannot run it
    for (const line of f.recommendation.later ? laterLines(f.recommendation.later) : [])
      lines.push(`      ${c.dim(line)}`);
  }
  if (f.confirmation) lines.push(formatConfirmation(f.confirmation, c, width, withTable));
  lines.push(c.dim(`  ${f.docsUrl}`));
  return lines.join('\n');
}

/**
 * Repeated info findings of one rule and message, in one entry: which collections, what the messages share, the
 * action when they share it, and one line per collection with its experiment's verdict. --verbose gives each in full.
 */
function formatGroup(
  g: FindingGroup,
  c: Colors,
  sev: Record<Severity, (s: string) => string>,
  width: number,
  hint: string,
): string {
  const names = g.findings.map((f) => memberLabel(f, g));
  const db = g.db === null ? '' : ` in ${g.db}`;
  const path = g.path === null ? '' : ` ${c.dim('›')} ${g.path}`;
  const where = `${membersNoun(g)}${db}${path}`;
  const lines = [
    `${sev[g.severity](`${ICON[g.severity]} ${g.severity.padEnd(5)}`)} ${c.bold(where)}  ${c.dim(g.ruleId)}`,
  ];
  lines.push(wrap(`${names.join(', ')}: ${g.gist}`, width, '  '));
  const action = actionForEach(g, "--verbose prints each finding's own");
  if (action) lines.push(wrap(`→ for each: ${c.bold(action)}`, width, '  '));
  if (g.findings.some((f) => f.confirmation)) {
    const pad = names.reduce((w, n) => Math.max(w, n.length), 0);
    g.findings.forEach((f, i) => {
      const k = f.confirmation;
      const verdict = k ? confirmationVerdict(k, CONFIRMATION_STATUS) : 'no experiment';
      const color = !k ? c.dim : k.status === 'supported' ? c.green : k.status === 'refuted' ? c.red : c.yellow;
      lines.push(`  ${(names[i] ?? '').padEnd(pad)}  ${color(verdict)}`);
    });
  }
  lines.push(c.dim(`  ${hint} for each collection's ${verboseHolds(g)}`));
  if (g.docsUrl) lines.push(c.dim(`  ${g.docsUrl}`));
  return lines.join('\n');
}

/** The mark before each confirmation status in the terminal and HTML; the words are group.ts verdictWords'. */
export const CONFIRMATION_STATUS: Record<Confirmation['status'], string> = {
  supported: '✔',
  refuted: '✖',
  inconclusive: '≈',
  'not-run': '○',
  error: '!',
};

function formatConfirmation(k: Confirmation, c: Colors, width: number, withTable: boolean): string {
  const color = k.status === 'supported' ? c.green : k.status === 'refuted' ? c.red : c.yellow;
  const verdict = color(`${CONFIRMATION_STATUS[k.status]} ${verdictWords(k)}`);
  const lines = [wrap(`${verdict}: ${k.summary}${k.reason ? ` (${k.reason})` : ''}`, width, '  ')];
  if (withTable && k.measurements.length > 0) {
    const t = new Table({
      head: ['measurement', 'median', 'interval (coverage)', 'trials'],
      style: { head: [], border: [], compact: true, 'padding-left': 1, 'padding-right': 1 },
      chars: {
        top: '',
        'top-mid': '',
        'top-left': '',
        'top-right': '',
        bottom: '',
        'bottom-mid': '',
        'bottom-left': '',
        'bottom-right': '',
        left: '   ',
        'left-mid': '',
        mid: '',
        'mid-mid': '',
        right: '',
        'right-mid': '',
        middle: ' ',
      },
    });
    for (const m of k.measurements) t.push([m.label, fmtMeasure(m), fmtInterval(m), String(m.trials)]);
    lines.push(c.dim(t.toString()));
  }
  return lines.join('\n');
}
