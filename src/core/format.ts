import { codeSpan } from '../lib/shell';

/** A string field of a server reply, or the fallback when it is missing or not a string. */
export function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

/**
 * Fills {{name}} placeholders; a missing value stays visible rather than printing "undefined". A placeholder that is a
 * code span of its own (`` `{{index}}` ``) takes its value through codeSpan, so a name holding backticks stays one
 * span (a longer fence) instead of ending it and spilling the rest as Markdown.
 */
export function fillTemplate(template: string, data: Record<string, string | number> = {}): string {
  return template.replace(/(`?)\{\{\s*(\w+)\s*\}\}(`?)/g, (whole, open: string, name: string, close: string) => {
    const v = data[name];
    if (v === undefined) return whole;
    if (typeof v === 'string' && open === '`' && close === '`') return codeSpan(v);
    return `${open}${typeof v === 'number' ? formatNumber(v) : v}${close}`;
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
  const rounded = (x: number): number =>
    Math.round(x * (x >= 100 ? 1 : x >= 10 ? 10 : 100)) / (x >= 100 ? 1 : x >= 10 ? 10 : 100);
  while (i < units.length - 1 && (i === 0 ? Math.round(v) : rounded(v)) >= 1024) {
    v /= 1024;
    i++;
  }
  return `${n < 0 ? '-' : ''}${formatNumber(i === 0 ? Math.round(v) : rounded(v))} ${units[i]}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'not timed';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A connection string for display: the one redactor lives in src/lib/redact.ts (malformed strings too). */
export { redactUri } from '../lib/redact';

// C0 controls but tab and newline, DEL and C1 controls (ESC, CSI, OSC, BEL…), and the Unicode line separators and
// bidirectional overrides, isolates and marks that can reorder what a terminal shows.
const UNSAFE_FOR_TERMINAL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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

/**
 * A ratio to two significant digits (1.25 → "1.3", 0.987 → "0.99", 1.0 → "1.0", 445 → "450", 29.59 → "30"), rounded
 * `down`, `up` or to the `nearest`: an interval's ends are rounded outward, so the printed interval still holds the
 * measured one.
 */
export function formatSignificant(x: number, round: 'nearest' | 'down' | 'up' = 'nearest', digits = 2): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const step = Math.pow(10, Math.floor(Math.log10(Math.abs(x))) - digits + 1);
  const f = round === 'down' ? Math.floor : round === 'up' ? Math.ceil : Math.round;
  // the small nudge keeps 1.2 from reading 1.3 when rounded up (1.2 / 0.1 = 11.999…)
  const q = f(x / step + (round === 'up' ? -1e-9 : round === 'down' ? 1e-9 : 0)) * step;
  // rounding up to the next power of ten (0.9999 → 1.0) gains a digit before the point: one fewer after it
  const grew = Math.abs(q) >= Math.pow(10, Math.floor(Math.log10(Math.abs(x))) + 1) ? 1 : 0;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) - grew);
  return Number(q.toFixed(decimals)).toLocaleString('en-US', {
    maximumFractionDigits: decimals,
    minimumFractionDigits: decimals,
  });
}

/**
 * An interval's ends to two significant digits, rounded outward: "1.1x–1.3x". An end is never printed across one of
 * `apart` (a claim's size): where two digits would (1.999 up to "2.0" beside a claim "below 2"), it gets more.
 */
export function formatRatioRange(low: number, high: number, apart: readonly number[] = []): string {
  return `${sideKept(low, 'down', apart)}x–${sideKept(high, 'up', apart)}x`;
}

function sideKept(x: number, round: 'down' | 'up', apart: readonly number[]): string {
  for (let digits = 2; digits < 6; digits++) {
    const text = formatSignificant(x, round, digits);
    const shown = Number(text.replace(/,/g, ''));
    if (apart.every((t) => Math.sign(shown - t) === Math.sign(x - t))) return text;
  }
  return String(x);
}

/**
 * A timed ratio as the interval supports it: "1.2x (95% interval 1.1x–1.3x)"; when the interval spans a factor of 2 or
 * more the point says little a rerun would repeat, so only the range is given: "about 230x–490x (95% interval)".
 * `label` is the interval's label (stats.ts `intervalLabel`); `apart`, sizes no printed end may cross.
 */
export function formatRatioFigure(
  r: { median: number; low: number; high: number },
  label: string,
  apart: readonly number[] = [],
): string {
  // nothing timed (the budget ended before a block): no number is printed for what the server did not do
  if (!Number.isFinite(r.median) || !Number.isFinite(r.low) || !Number.isFinite(r.high))
    return 'no figure (no block was timed within the budget)';
  if (r.low === r.high) return `${sideKept(r.median, r.median < (apart[0] ?? 0) ? 'down' : 'up', apart)}x`;
  if (r.low > 0 && r.high / r.low >= 2)
    return `about ${formatRatioRange(r.low, r.high, apart)} (${label.replace(/:$/, '')})`;
  return `${formatSignificant(r.median)}x (${label} ${formatRatioRange(r.low, r.high, apart)})`;
}
