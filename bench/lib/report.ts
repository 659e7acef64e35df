/** Small helpers the benches share: medians, number formatting, a Markdown table, the machine. */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import { EMBEDDED_KINDS, type EmbeddedKind } from '../../src/servers/embedded';

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** 12345.6 -> "12,346"; fractional digits only below 100. */
export function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits);
}

/** A GitHub-flavoured Markdown table; numeric-looking columns are right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = header.map(
    (_, c) => rows.length > 0 && rows.every((r) => /^[-+]?[\d,.]+[x%]?$|^—$/.test(r[c] ?? '')),
  );
  const widths = header.map((h, c) => Math.max(h.length, 3, ...rows.map((r) => (r[c] ?? '').length)));
  const pad = (s: string, c: number): string =>
    numeric[c] ? s.padStart(widths[c] as number) : s.padEnd(widths[c] as number);
  const line = (cells: readonly string[]): string => `| ${cells.map((s, c) => pad(s, c)).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (numeric[c] ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** One line about where the figures come from. */
export function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return (
    `Node ${process.version}, ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB ` +
    `RAM, load average ${load}, ${new Date().toISOString().slice(0, 10)}, ${revision()}`
  );
}

/** The commit measured, and whether the working tree had changes (figures are of the tree, not the commit). */
export function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return `commit ${head}${dirty ? ' plus uncommitted changes' : ''}`;
  } catch {
    return 'commit unknown (not a git checkout)';
  }
}

/** Integer argument `--name N` (or `--name=N`) from argv, else the default. */
export function intArg(argv: readonly string[], name: string, dflt: number): number {
  const v = stringArg(argv, name);
  if (v === undefined) return dflt;
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} wants a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

export function stringArg(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === `--${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

/** `--server ferretdb|secantusdb|mongodb-memory-server` (a comma list is an order of fallbacks); default: the demo's
 * order. */
export function serverOrder(argv: readonly string[]): EmbeddedKind[] | undefined {
  const raw = stringArg(argv, 'server');
  if (raw === undefined) return undefined;
  const kinds = raw.split(',').map((s) => s.trim());
  for (const k of kinds) {
    if (!(EMBEDDED_KINDS as readonly string[]).includes(k))
      throw new Error(`--server ${k}: expected one of ${EMBEDDED_KINDS.join(', ')}`);
  }
  return kinds as EmbeddedKind[];
}

/** Pairs of runs whose intervals overlap, of all pairs in which both runs measured the finding. */
export function pairwiseOverlap(intervals: readonly ({ low: number; high: number } | null)[]): {
  overlapping: number;
  pairs: number;
} {
  let overlapping = 0;
  let pairs = 0;
  for (let i = 0; i < intervals.length; i++) {
    for (let j = i + 1; j < intervals.length; j++) {
      const [a, b] = [intervals[i], intervals[j]];
      if (!a || !b) continue;
      pairs++;
      if (a.low <= b.high && b.low <= a.high) overlapping++;
    }
  }
  return { overlapping, pairs };
}
