/** A string field of a server reply, or the fallback when it is missing or not a string. */
export function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

/** Fills {{name}} placeholders; a missing value stays visible rather than printing "undefined". */
export function fillTemplate(template: string, data: Record<string, string | number> = {}): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => {
    const v = data[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? formatNumber(v) : v;
  });
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const abs = Math.abs(n);
  return n.toLocaleString('en-US', { maximumFractionDigits: abs >= 100 ? 0 : abs >= 10 ? 1 : 2 });
}

/**
 * A size in IEC binary units (B, KiB, MiB, GiB, TiB: multiples of 1,024, the units MongoDB gives its limits in, such
 * as the 16 MiB document limit), with formatNumber's precision: whole bytes, then 2 decimals below 10, 1 below 100,
 * none above, trailing zeros dropped (9.76 KiB, 97.7 KiB, 977 KiB, 16 MiB).
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return `${String(n)} B`;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = Math.abs(n);
  let i = 0;
  // Move up a unit when the value would print as 1,024 or more once rounded (1,023.997 KiB is 1 MiB).
  const rounded = (x: number): number => Math.round(x * (x >= 100 ? 1 : x >= 10 ? 10 : 100)) / (x >= 100 ? 1 : x >= 10 ? 10 : 100);
  while (i < units.length - 1 && (i === 0 ? Math.round(v) : rounded(v)) >= 1024) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '-' : ''}${formatNumber(i === 0 ? Math.round(v) : rounded(v))} ${units[i]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A connection string for display: the one redactor lives in src/lib/redact.ts (malformed strings too). */
export { redactUri } from '../lib/redact';

// C0 controls but tab and newline, DEL and C1 controls (ESC, CSI, OSC, BEL…), and the Unicode line separators and
// bidirectional overrides, isolates and marks that can reorder what a terminal shows.
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A string from the database (a name, a server message) made safe to print: every control character a terminal would
 * act on is shown as a visible `\u{…}` escape instead, so a collection named with ESC or OSC sequences cannot recolour
 * or rewrite the report.
 */
export function terminalSafe(s: string): string {
  return s.replace(UNSAFE_FOR_TERMINAL, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

/**
 * terminalSafe, and newlines too (shown as `\n`; a carriage return already reads `\u{d}`): a name printed this way
 * stays on the line it is printed on, so it can never begin a line of its own and fake a report line.
 */
export function terminalLine(s: string): string {
  return terminalSafe(s).replace(/\n/g, '\\n');
}

/** A copy of a JSON-shaped value with every string made terminal-safe (reporters apply it before formatting). */
export function terminalSafeDeep<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_k, v: unknown) => (typeof v === 'string' ? terminalSafe(v) : v)) as T;
}
