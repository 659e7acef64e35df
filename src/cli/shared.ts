import { rules } from '../../rules';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { DriverAdapter } from '../adapters/driver';
import { readOnly } from '../adapters/read-only';
import type { Adapter } from '../adapters/types';
import { leftoverNotes } from '../confirm/leftovers';
import { terminalLine } from '../core/format';
import { analyzeAndConfirm } from '../check';
import { counts, type LintResult } from '../core/baseline';
import { UserError } from '../core/errors';
import type { ResolvedRule } from '../core/runner';
import type { AdvisorConfig } from '../core/config';
import type { FoldOptions } from '../core/fold';
import type { CheckResult, Snapshot } from '../core/types';
import { type Locate, ruleCatalog } from '../report/catalog';
import { formatJson } from '../report/json';
import { formatJunit } from '../report/junit';
import { formatMarkdown } from '../report/markdown';
import { formatSarif } from '../report/sarif';
import { formatText } from '../report/text';
import { looksLikeConnectionString } from '../lib/redact';
import { connectionError } from './errors';
import { checkConnectionString } from './uri';
import type { Io } from './io';

/**
 * What collect takes from the flags and the configuration file (the flag wins): the sample size and when an object
 * counts as a map (`maps`). One place, so every command that reads a server reads it the same way.
 */
export function collectSettingsOf(
  flags: { sampleSize?: number },
  config: AdvisorConfig,
): { sampleSize?: number; maps?: Partial<FoldOptions> } {
  const sampleSize = flags.sampleSize ?? config.sampleSize;
  return { ...(sampleSize ? { sampleSize } : {}), ...(config.maps ? { maps: config.maps } : {}) };
}

/** The flags of a door that reads a server, as collect reads them (absent: the door has no such flag). */
export interface CollectFlags {
  collection?: string[];
  sampleSize?: number;
  timeField?: string;
  maxTimeMs: number;
  readPreference?: 'primary' | 'secondaryPreferred';
  concurrency?: number;
}

/**
 * collect's options from a door's flags and the configuration (`collectSettingsOf`): one place, so collect, check,
 * audit and lint pass the same flags the same way and cannot drift (a flag one door reads and another drops).
 */
export function collectOptionsOf(
  flags: CollectFlags,
  config: AdvisorConfig,
): {
  collections?: string[];
  sampleSize?: number;
  maps?: Partial<FoldOptions>;
  timeField?: string;
  maxTimeMS: number;
  readPreference?: 'primary' | 'secondaryPreferred';
  concurrency?: number;
} {
  return {
    ...(flags.collection?.length ? { collections: flags.collection } : {}),
    ...collectSettingsOf(flags, config),
    ...(flags.timeField ? { timeField: flags.timeField } : {}),
    maxTimeMS: flags.maxTimeMs,
    ...(flags.readPreference ? { readPreference: flags.readPreference } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
  };
}

export const REPORT_FORMATS = ['text', 'json', 'sarif', 'junit', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function isUri(s: string): boolean {
  return /^mongodb(\+srv)?:\/\//i.test(s);
}

/**
 * For a target that is a connection string or a file (lint, analyze): a string that reads like a connection string
 * (any `scheme://`, or `user:password@host`) and is no file there is taken for one, so a typo in the scheme gets a
 * connection string's diagnosis, not "no such file".
 */
export function meantAsUri(s: string): boolean {
  return isUri(s) || ((looksLikeConnectionString(s) || colonless(s) !== null) && !existsSync(s));
}

/**
 * `mongodb//host` (or `mongodb+srv//…`): a connection string with the colon after its scheme left out, which no other
 * test reads as one (it is a valid relative path). Returns the string with the colon put back, else null.
 */
export function colonless(s: string): string | null {
  const m = /^(mongodb(?:\+srv)?)\/\/(.*)$/i.exec(s.trim());
  return m ? `${(m[1] ?? '').toLowerCase()}://${m[2] ?? ''}` : null;
}

export function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

/**
 * Checks the connection string (scheme, host, port, options: src/cli/uri.ts), then connects; a failure names its
 * cause (authentication, unreachable host, TLS: src/cli/errors.ts), the string redacted.
 */
export async function connect(uri: string, label = 'connection string'): Promise<DriverAdapter> {
  const checked = checkConnectionString(uri, label);
  try {
    return await DriverAdapter.connect(
      checked.uri,
      checked.serverSelectionTimeoutMS ? { serverSelectionTimeoutMS: checked.serverSelectionTimeoutMS } : {},
    );
  } catch (err) {
    throw connectionError(err, checked.uri, checked.auth, label);
  }
}

/** `--read-preference`: where collect's reads go (secondaryPreferred by default; primary forces the primary). */
export function readPreferenceOption(): Option {
  return new Option(
    '--read-preference <mode>',
    "where reads of the data go: secondaryPreferred spares a replica set's primary; primary sends every " +
      'read there (per-node statistics always go to the primary)',
  )
    .choices(['secondaryPreferred', 'primary'])
    .default('secondaryPreferred');
}

/**
 * Stale scratch databases an interrupted run left on this server (copies of source documents): said on stderr with
 * their size and the command that removes them; a prefixed database without our marker is named as not ours.
 * Read-only; a user who may not list databases hears nothing.
 */
export async function sayLeftovers(adapter: Adapter, io: Io): Promise<void> {
  for (const line of await leftoverNotes(readOnly(adapter), 'mongo-advisor cleanup <uri>'))
    io.err(`mongo-advisor: ${terminalLine(line)}`);
}

/**
 * `-o, --output <file>`: the one name every command writes a file with. `--out` (collect and audit before) still
 * works, hidden from --help, with one line on stderr saying so.
 */
export function outputOption(): Option {
  return new Option('--out <file>', 'deprecated: use -o, --output').hideHelp();
}

export function outputOf(flags: { output?: string; out?: string }, io: Io): string | undefined {
  if (flags.out === undefined) return flags.output;
  if (flags.output !== undefined && flags.output !== flags.out)
    throw new UserError(`--out ${flags.out} and --output ${flags.output} name two files: give only -o, --output.`);
  io.err('mongo-advisor: --out is now -o, --output (one name in every command); --out still works for now.');
  return flags.out;
}

/**
 * A file name for a hint's command that names no file of the user's: `snap.json`, else `snap-2.json`, … (a hint never
 * proposes a command that would overwrite one).
 */
export function freshFile(name: string, dir = process.cwd()): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; i < 1000; i++) {
    const candidate = i === 1 ? name : `${stem}-${i}${ext}`;
    if (!existsSync(path.join(dir, candidate))) return candidate;
  }
  return `${stem}-new${ext}`;
}

/** Writes a report to a file (one line on stderr says where) or to stdout, checked: src/cli/io.ts. */
export { writeOutput as emit } from './io';

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
export async function analyzeOffline(snapshot: Snapshot, resolved: readonly ResolvedRule[]): Promise<CheckResult> {
  const db = snapshot.databases[0]?.name ?? '';
  const result = await analyzeAndConfirm(snapshot, null, { db, rules, confirm: false, resolved });
  return { ...result, scope: scopeOfSnapshot(snapshot) };
}

/** Renders a (lint) result in one of the report formats. */
export function render(
  result: LintResult,
  format: ReportFormat,
  opts: { color: boolean; verbose?: boolean; locate?: Locate },
): string {
  switch (format) {
    case 'json':
      return formatJson(result);
    case 'sarif':
      return formatSarif(result, { rules: ruleCatalog(rules), ...(opts.locate ? { locate: opts.locate } : {}) });
    case 'junit':
      return formatJunit(result, { rules: ruleCatalog(rules) });
    case 'markdown':
      return formatMarkdown(result, { verbose: opts.verbose === true });
    case 'text':
      return textWithGate(result, opts.color, opts.verbose === true);
  }
}

/**
 * The terminal report; under lint with a baseline it lists only the findings that count. The verdict goes to stderr
 * (src/cli/commands/lint.ts): stdout holds the report alone.
 */
function textWithGate(result: LintResult, color: boolean, verbose: boolean): string {
  const lint = result.lint;
  if (!lint) return formatText(result, { color, verbose });
  const shown = lint.baseline
    ? { ...result, findings: result.findings.filter((f) => counts(f, lint.baseline)) }
    : result;
  const lines = [formatText(shown, { color, verbose })];
  if (lint.baseline) {
    lines.push(
      `${lint.baseline.accepted} finding${lint.baseline.accepted === 1 ? '' : 's'} accepted by the ` +
        `baseline ${lint.baseline.file} (not shown).`,
    );
    if (lint.baseline.absent.length)
      lines.push(
        `${lint.baseline.absent.length} baseline entr${lint.baseline.absent.length === 1 ? 'y is' : 'ies are'} ` +
          'no longer found; prune with --update-baseline.',
      );
  }
  return lines.join('\n');
}
