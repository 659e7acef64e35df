import { writeFileSync } from 'node:fs';
import { UserError } from './errors';
import { formatBytes } from './format';
import { MAX_BASELINE_BYTES, readTextBounded, TooLarge } from './input-limits';
import { type CheckResult, type Finding, isWithdrawn, SEVERITIES, type Severity, severityRank } from './types';

/*
 * A baseline accepts known findings so CI fails only on new ones. A finding is known by what it is about
 * (rule, message kind, database, collection, path, index), not by its wording: the numbers in a message move
 * as data grows, and that must not turn an accepted finding into a new one. A finding whose severity rose
 * above the accepted one counts again ("updated"), as SARIF's baselineState has it.
 */

export const BASELINE_FORMAT = 'mongo-advisor-baseline';
export const BASELINE_VERSION = 1;

export interface BaselineEntry {
  fingerprint: string;
  ruleId: string;
  severity: Severity;
  /** For the person reviewing the file; not compared. */
  message: string;
}

export interface BaselineFile {
  format: typeof BASELINE_FORMAT;
  version: typeof BASELINE_VERSION;
  createdAt: string;
  findings: BaselineEntry[];
}

/** SARIF 2.1.0 §3.27.24 baselineState values. */
export type BaselineState = 'new' | 'unchanged' | 'updated' | 'absent';

export interface BaselineComparison {
  file: string;
  /** By fingerprint, for each current finding. */
  states: Record<string, BaselineState>;
  accepted: number;
  /** Entries of the baseline no longer found (fixed, or out of scope this run). */
  absent: BaselineEntry[];
}

/** What lint adds to a check result: the gate's settings, the baseline comparison and the verdict. */
export interface LintInfo {
  failOn: Severity;
  maxWarnings: number | null;
  baseline: BaselineComparison | null;
  /** Findings that count (not accepted by the baseline), by severity. */
  counted: Record<Severity, number>;
  /** 0 pass, 1 findings, 2 could not read what it was asked to check (unless allowed: `--allow-partial`). */
  exitCode: 0 | 1 | 2;
  /** Collections (or databases) that could not be read, as `db.collection`; empty when all were. */
  unread: string[];
  /** Why the run passed or failed, one line. */
  verdict: string;
}

export type LintResult = CheckResult & { lint?: LintInfo };

/** Stable identity of a finding: `ruleId/messageId db.collection path index`. */
export function fingerprint(f: Pick<Finding, 'ruleId' | 'messageId' | 'target'>): string {
  const t = f.target;
  return [
    `${f.ruleId}/${f.messageId}`,
    `${t.db}.${t.collection ?? '*'}`,
    t.path ?? '',
    t.index ? `index:${t.index}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function buildBaseline(findings: readonly Finding[], now = new Date()): BaselineFile {
  const seen = new Map<string, BaselineEntry>();
  for (const f of findings) {
    const fp = fingerprint(f);
    const prev = seen.get(fp);
    if (!prev || severityRank(f.severity) > severityRank(prev.severity))
      seen.set(fp, { fingerprint: fp, ruleId: f.ruleId, severity: f.severity, message: f.message });
  }
  return {
    format: BASELINE_FORMAT,
    version: BASELINE_VERSION,
    createdAt: now.toISOString(),
    findings: [...seen.values()].sort((a, b) => a.fingerprint.localeCompare(b.fingerprint)),
  };
}

export function parseBaseline(data: unknown, file: string): BaselineFile {
  const d = data as Partial<BaselineFile> | null;
  if (d === null || typeof d !== 'object' || d.format !== BASELINE_FORMAT) {
    const what =
      d && typeof d === 'object' && (d as { format?: unknown }).format === 'mongo-advisor-snapshot'
        ? 'a snapshot'
        : 'not a mongo-advisor baseline';
    throw new UserError(
      `${file} is ${what}; a baseline is written by: mongo-advisor lint <uri-or-snapshot> --baseline <new ` +
        `baseline file> --update-baseline`,
    );
  }
  if (d.version !== BASELINE_VERSION) {
    throw new UserError(
      `${file} is a baseline of format version ${String(d.version)}; this mongo-advisor reads ` +
        `version ${BASELINE_VERSION}. Write a new one with --baseline <new baseline file> --update-baseline ` +
        `(it accepts every current finding; compare it with the old one before replacing it).`,
    );
  }
  const bad =
    !Array.isArray(d.findings) ||
    d.findings.some((e) => typeof e?.fingerprint !== 'string' || !SEVERITIES.includes(e.severity));
  if (bad)
    throw new UserError(
      `${file} is a damaged baseline: every entry of "findings" needs a "fingerprint" and a "severity" ` +
        `(${SEVERITIES.join(', ')}). Restore it from version control, or write a new one with --baseline <new ` +
        `baseline file> --update-baseline (it accepts every current finding).`,
    );
  return d as BaselineFile;
}

/** Reads a baseline; a missing file is an error (a typo must not silently accept nothing). */
export function loadBaseline(file: string): BaselineFile {
  let text: string;
  try {
    text = readTextBounded(file, MAX_BASELINE_BYTES);
  } catch (err) {
    if (err instanceof TooLarge) {
      throw new UserError(
        `The baseline ${file} holds more than ${formatBytes(MAX_BASELINE_BYTES)}, far more than any ` +
          `report's findings, so it was not read. Check that --baseline names the baseline file, or write a ` +
          `new one with --baseline <new baseline file> --update-baseline.`,
      );
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new UserError(
        `Baseline file ${file} does not exist. Create it with: mongo-advisor lint <uri-or-snapshot> ` +
          `--baseline ${file} --update-baseline`,
      );
    throw new UserError(`Could not read the baseline ${file}: ${(err as Error).message}`);
  }
  try {
    return parseBaseline(JSON.parse(text), file);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(
      `${file} is not JSON (${(err as Error).message}), so not a baseline. Restore it from version control, ` +
        'or write a new one with --baseline <new baseline file> --update-baseline ' +
        '(it accepts every current finding).',
    );
  }
}

export function saveBaseline(file: string, baseline: BaselineFile): void {
  try {
    writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
  } catch (err) {
    throw new UserError(`Could not write the baseline to ${file}: ${(err as Error).message}`);
  }
}

export function compareBaseline(
  findings: readonly Finding[],
  baseline: BaselineFile,
  file: string,
): BaselineComparison {
  const known = new Map(baseline.findings.map((e) => [e.fingerprint, e]));
  const states: Record<string, BaselineState> = {};
  let accepted = 0;
  for (const f of findings) {
    const fp = fingerprint(f);
    const entry = known.get(fp);
    const state: BaselineState = !entry
      ? 'new'
      : severityRank(f.severity) > severityRank(entry.severity)
        ? 'updated'
        : 'unchanged';
    // Several findings may share a fingerprint; the worst state wins.
    if (states[fp] === undefined || state !== 'unchanged') states[fp] = state;
  }
  for (const f of findings) if (states[fingerprint(f)] === 'unchanged') accepted++;
  const current = new Set(findings.map(fingerprint));
  const absent = baseline.findings.filter((e) => !current.has(e.fingerprint));
  return { file, states, accepted, absent };
}

/** True when the finding counts for the gate: no baseline, or new or worse than accepted. */
export function counts(f: Finding, baseline: BaselineComparison | null): boolean {
  if (isWithdrawn(f)) return false;
  return !baseline || baseline.states[fingerprint(f)] !== 'unchanged';
}

/** What could not be read: targets of error notes (a sample that failed, a collector that threw), once each. */
export function unreadTargets(result: CheckResult): { where: string; why: string; deployment: boolean }[] {
  const seen = new Map<string, { where: string; why: string; deployment: boolean }>();
  for (const n of result.notes) {
    // an error with neither target nor collector is confirmation's (lint does not confirm unless asked): not a read
    if (n.level !== 'error' || (!n.target && !n.collector)) continue;
    const where = n.target
      ? n.target.collection
        ? `${n.target.db}.${n.target.collection}`
        : n.target.db
      : `the deployment-wide data of ${n.collector ?? ''}`;
    if (!seen.has(where)) seen.set(where, { where, why: n.message, deployment: !n.target });
  }
  return [...seen.values()];
}

/**
 * The gate: exit 1 when a counted finding reaches failOn, or counted warnings exceed maxWarnings; exit 2 when some of
 * what it was asked to check could not be read (CI fails closed: a gate that read nothing must not pass), unless
 * `allowPartial`.
 */
export function judge(
  result: CheckResult,
  opts: { failOn: Severity; maxWarnings: number | null; baseline: BaselineComparison | null; allowPartial?: boolean },
): LintInfo {
  const counted: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const f of result.findings) if (counts(f, opts.baseline)) counted[f.severity]++;
  const failing = SEVERITIES.filter((s) => severityRank(s) >= severityRank(opts.failOn)).reduce(
    (n, s) => n + counted[s],
    0,
  );
  const accepted = opts.baseline ? ` (${opts.baseline.accepted} accepted by the baseline)` : '';
  const unread = unreadTargets(result);
  const partial =
    unread.length > 0
      ? `; ${unread.length} not read (${unread[0]?.where}${unread.length > 1 ? ', …' : ''}), judged without ` +
        `them (--allow-partial)`
      : '';
  let exitCode: 0 | 1 | 2 = 0;
  let verdict: string;
  if (unread.length > 0 && !opts.allowPartial) {
    exitCode = 2;
    const first = unread[0] as (typeof unread)[number];
    const what = unread.some((u) => u.deployment) ? ['part', 'parts'] : ['collection', 'collections'];
    const count = unread.length === 1 ? `1 ${what[0]} was` : `${unread.length} ${what[1]} were`;
    const more = unread
      .slice(1, 4)
      .map((u) => u.where)
      .join(', ');
    const others = unread.length > 1 ? `; and ${more}${unread.length > 4 ? ', …' : ''}` : '';
    verdict =
      `could not check: ${count} not read (${first.where}: ${first.why}${others}), ` +
      'so the gate does not pass on them. ' +
      'Fix the cause (raise --max-time-ms, grant the user the roles it needs) ' +
      'or pass --allow-partial to judge what was read';
  } else if (failing > 0) {
    exitCode = 1;
    const findings = `${failing} new finding${failing === 1 ? '' : 's'}`;
    verdict = `failed: ${findings} at or above ${opts.failOn}${accepted}${partial}`;
  } else if (opts.maxWarnings !== null && counted.warn > opts.maxWarnings) {
    exitCode = 1;
    verdict =
      `failed: ${counted.warn} new warning${counted.warn === 1 ? '' : 's'}, more than ` +
      `--max-warnings ${opts.maxWarnings}${accepted}${partial}`;
  } else {
    const warnings = opts.maxWarnings !== null ? ` and ${counted.warn} of at most ${opts.maxWarnings} warnings` : '';
    verdict = `passed: no new finding at or above ${opts.failOn}${warnings}${accepted}${partial}`;
  }
  return {
    failOn: opts.failOn,
    maxWarnings: opts.maxWarnings,
    baseline: opts.baseline,
    counted,
    exitCode,
    unread: unread.map((u) => u.where),
    verdict,
  };
}
