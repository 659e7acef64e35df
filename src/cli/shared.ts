import { rules } from '../../rules';
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { DriverAdapter } from '../adapters/driver';
import { analyzeAndConfirm } from '../check';
import { counts, type LintResult } from '../core/baseline';
import { UserError } from '../core/errors';
import type { AnalyzeSettings } from '../core/runner';
import type { CheckResult, Snapshot } from '../core/types';
import { type Locate, ruleCatalog } from '../report/catalog';
import { formatJson } from '../report/json';
import { formatJunit } from '../report/junit';
import { formatMarkdown } from '../report/markdown';
import { formatSarif } from '../report/sarif';
import { formatText } from '../report/text';
import { connectionError } from './errors';
import type { Io } from './io';

export const REPORT_FORMATS = ['text', 'json', 'sarif', 'junit', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function isUri(s: string): boolean {
  return /^mongodb(\+srv)?:\/\//i.test(s);
}

export function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

export async function connect(uri: string): Promise<DriverAdapter> {
  try {
    return await DriverAdapter.connect(uri);
  } catch (err) {
    throw connectionError(err, uri);
  }
}

/** Writes a report to a file (one line on stderr says where) or to stdout. */
export function emit(io: Io, text: string, file: string | undefined, what = 'report'): void {
  if (!file || file === '-') {
    io.out(text);
    return;
  }
  try {
    writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
  } catch (err) {
    throw new UserError(`Could not write the ${what} to ${file}: ${(err as Error).message}`);
  }
  io.err(`Wrote the ${what} to ${file}`);
}

/** The scope of a snapshot: one database by name, or several ("a, b") with qualified collection names. */
export function scopeOfSnapshot(snapshot: Snapshot): CheckResult['scope'] {
  if (snapshot.databases.length === 1) {
    const [db] = snapshot.databases;
    return { db: db?.name ?? '', collections: db?.collections.map((c) => c.name) ?? [] };
  }
  return {
    db: snapshot.databases.map((d) => d.name).join(', '),
    collections: snapshot.databases.flatMap((d) => d.collections.map((c) => `${d.name}.${c.name}`)),
  };
}

/** Runs every rule over a snapshot, offline: the same result a live `check --no-confirm` gives. */
export async function analyzeOffline(snapshot: Snapshot, settings: AnalyzeSettings): Promise<CheckResult> {
  const result = await analyzeAndConfirm(snapshot, null, { db: snapshot.databases[0]?.name ?? '', rules, confirm: false, settings });
  return { ...result, scope: scopeOfSnapshot(snapshot) };
}

/** Renders a (lint) result in one of the report formats. */
export function render(result: LintResult, format: ReportFormat, opts: { color: boolean; locate?: Locate }): string {
  switch (format) {
    case 'json':
      return formatJson(result);
    case 'sarif':
      return formatSarif(result, { rules: ruleCatalog(rules), ...(opts.locate ? { locate: opts.locate } : {}) });
    case 'junit':
      return formatJunit(result, { rules: ruleCatalog(rules) });
    case 'markdown':
      return formatMarkdown(result);
    case 'text':
      return textWithGate(result, opts.color);
  }
}

/** The terminal report; under lint with a baseline it lists only the findings that count, then the verdict. */
function textWithGate(result: LintResult, color: boolean): string {
  const lint = result.lint;
  if (!lint) return formatText(result, { color });
  const shown = lint.baseline ? { ...result, findings: result.findings.filter((f) => counts(f, lint.baseline)) } : result;
  const lines = [formatText(shown, { color })];
  if (lint.baseline) {
    lines.push(`${lint.baseline.accepted} finding${lint.baseline.accepted === 1 ? '' : 's'} accepted by the baseline ${lint.baseline.file} (not shown).`);
    if (lint.baseline.absent.length) lines.push(`${lint.baseline.absent.length} baseline entr${lint.baseline.absent.length === 1 ? 'y is' : 'ies are'} no longer found; prune with --update-baseline.`);
  }
  lines.push(`mongo-advisor lint ${lint.verdict}`);
  return lines.join('\n');
}
