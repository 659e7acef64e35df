/**
 * One escaping rule per output, for text that comes from the database (names, server messages) or embeds it:
 * - terminal (text, Markdown, HTML, the ticket summary): `safeForTerminal`, every control, bidi and line-break
 *   character shown as a visible escape, so nothing a name holds can act on a terminal or start a line of its own;
 * - Markdown: `mdCode` (a name in a code span, fenced past any backticks it holds) and `mdText` (prose that can hold a
 *   name: nothing in it can become a link, an image or HTML);
 * - JSON (and SARIF): the same characters as lossless `\u009b` escapes: the data is unchanged, a terminal shows
 *   them as text. JUnit XML, read by people on CI dashboards, takes the terminal rule.
 */
import { terminalLine } from '../core/format';

/**
 * A copy of a JSON-shaped value with every string passed through `terminalLine`, keys too (field names key a
 * snapshot's maps; fingerprints key a baseline's states, and escaping commutes with how they are joined, so a finding
 * still finds its state). One walk, no JSON text in between: linear, and no string as long as the whole result.
 */
export function safeForTerminal<T>(value: T): T {
  return walk(value) as T;
}

function walk(v: unknown): unknown {
  if (typeof v === 'string') return terminalLine(v);
  if (Array.isArray(v)) return v.map(walk);
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[terminalLine(k)] = walk(x);
  return out;
}

/** The characters a terminal acts on that JSON.stringify leaves raw: DEL, C1 controls, bidi marks, line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex4 = (ch: string): string => (ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0');

/** JSON text with those characters as \u escapes: the same JSON value, safe on a terminal. */
export function jsonTerminalSafe(json: string): string {
  return json.replace(RAW_IN_JSON, (ch) => `\\u${hex4(ch)}`);
}

const longestRun = (s: string, ch: string): number => {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
};

/**
 * A name as a Markdown code span: nothing in it is a link, an image or HTML. The fence is one backtick longer than
 * the longest run of backticks in the name, with a space inside when the name starts or ends with one (CommonMark
 * strips one space each side). In a table cell a pipe is escaped (GFM reads `\|` as a pipe, even in a code span).
 */
export function mdCode(s: string, opts: { table?: boolean } = {}): string {
  if (s === '') return '` `';
  const fence = '`'.repeat(longestRun(s, '`') + 1);
  const spaced = s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '';
  const pad = s.startsWith('`') || s.endsWith('`') || spaced ? ' ' : '';
  const body = (opts.table ? s.replace(/\|/g, '\\|') : s).replace(/\r?\n/g, ' ');
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** Prose outside code spans: every character that could start a link, an image, HTML or an autolink is inert. */
function inertText(s: string, table: boolean): string {
  const escaped = s
    .replace(/[\\[\]!`]/g, (ch) => `\\${ch}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, table ? '\\|' : '|')
    // A scheme's colon escaped: javascript:, data:, vbscript:, and the http://, https:// and ftp:// GFM autolinks.
    .replace(/\b(javascript|vbscript|data|https?(?=:\/\/)|ftp(?=:\/\/)):/gi, '$1\\:')
    // GFM autolinks www.example.com and user@example.com too.
    .replace(/\bwww\./gi, 'www\\.')
    .replace(/@(?=[\w-]+\.)/g, '\\@');
  return escaped.replace(/\r?\n/g, ' ');
}

/**
 * Prose that may hold names (a rule's message, a server's error): the code spans it marks with backticks stay code
 * spans (their text is literal), and everything outside them is made inert by `inertText`. A name holding backticks
 * can end a span early, but what follows it is then escaped prose: still no link, image or HTML.
 */
export function mdText(s: string, opts: { table?: boolean } = {}): string {
  const table = opts.table === true;
  const out: string[] = [];
  let i = 0;
  let text = 0;
  while (i < s.length) {
    if (s[i] !== '`') {
      i++;
      continue;
    }
    let n = 0;
    while (s[i + n] === '`') n++;
    const close = closingRun(s, i + n, n);
    if (close === -1) {
      i += n;
      continue;
    }
    out.push(inertText(s.slice(text, i), table));
    const span = s.slice(i, close + n);
    out.push((table ? span.replace(/\|/g, '\\|') : span).replace(/\r?\n/g, ' '));
    i = close + n;
    text = i;
  }
  out.push(inertText(s.slice(text), table));
  return out.join('');
}

/** Where a run of exactly `n` backticks starts at or after `from`, or -1. */
function closingRun(s: string, from: number, n: number): number {
  for (let j = s.indexOf('`', from); j !== -1; j = s.indexOf('`', j)) {
    let m = 0;
    while (s[j + m] === '`') m++;
    if (m === n) return j;
    j += m;
  }
  return -1;
}

/** A fenced code block for commands that may hold names: the fence is longer than any backtick run inside. */
export function mdFence(lines: readonly string[], lang = ''): string[] {
  const fence = '`'.repeat(Math.max(3, ...lines.map((l) => longestRun(l, '`') + 1)));
  return [`${fence}${lang}`, ...lines, fence];
}
