import { intervalLabel } from '../core/stats';
import { formatNumber, formatRatioFigure } from '../core/format';
import type { Confirmation, Finding, Note } from '../core/types';

/**
 * Repeated info findings, collapsed for the human reports (text, Markdown, HTML): the info findings of one rule with
 * one message id (the same template, so the same kind of advice), or of several of its message ids that open with the
 * same sentence, become one entry that lists their collections.
 * Errors and warnings always stand alone, and so does an info finding with no twin; `--verbose` and JSON keep each.
 */
export interface FindingGroup {
  kind: 'group';
  ruleId: string;
  messageId: string;
  severity: Finding['severity'];
  /** The findings in report order (at least two). */
  findings: Finding[];
  /** What the messages share: their common first sentence, the words that differ shown as "…". */
  gist: string;
  /** The recommended action when every finding gives the same one, else null. */
  action: string | null;
  /** The page that explains them when every finding links to the same one, else null. */
  docsUrl: string | null;
  /** The database when every finding is in the same one, else null (then members are named db.collection). */
  db: string | null;
  /** The field path or index every finding points to, else null. */
  path: string | null;
}

export type ReportEntry = { kind: 'finding'; finding: Finding } | FindingGroup;

const same = <T>(xs: readonly T[]): T | null => (xs.length > 0 && xs.every((x) => x === xs[0]) ? (xs[0] as T) : null);

/** Appends in place: a copy of the list per finding made grouping quadratic (20,000 findings of one rule: seconds). */
function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The findings as report entries, in the order of their first finding. With `verbose`, every finding its own entry.
 */
export function groupFindings(findings: readonly Finding[], opts: { verbose?: boolean } = {}): ReportEntry[] {
  if (opts.verbose) return findings.map((finding) => ({ kind: 'finding', finding }));
  const byTemplate = new Map<string, Finding[]>();
  const template = (f: Finding): string | null => (f.severity === 'info' ? `${f.ruleId}\u0000${f.messageId}` : null);
  for (const f of findings) {
    const k = template(f);
    if (k !== null) pushTo(byTemplate, k, f);
  }
  // Variants of one rule whose findings all open with the same sentence ("No validator: …" from a sample and from a
  // whole read) read as one kind of advice: they collapse together.
  const opening = new Map<string, string>();
  for (const [k, members] of byTemplate) {
    const sentence = same(members.map((m) => firstSentence(m.message)));
    opening.set(k, sentence === null ? k : `${members[0]?.ruleId ?? ''}\u0000=${sentence}`);
  }
  const key = (f: Finding): string | null => {
    const t = template(f);
    return t === null ? null : (opening.get(t) ?? t);
  };
  const byKey = new Map<string, Finding[]>();
  for (const f of findings) {
    const k = key(f);
    if (k !== null) pushTo(byKey, k, f);
  }
  const out: ReportEntry[] = [];
  const placed = new Set<string>();
  for (const f of findings) {
    const k = key(f);
    const members = k === null ? undefined : byKey.get(k);
    if (k === null || !members || members.length < 2) {
      out.push({ kind: 'finding', finding: f });
      continue;
    }
    if (placed.has(k)) continue;
    placed.add(k);
    out.push({
      kind: 'group',
      ruleId: f.ruleId,
      messageId: same(members.map((m) => m.messageId)) ?? f.messageId,
      severity: f.severity,
      findings: members,
      gist: gistOf(members.map((m) => m.message)),
      action: same(members.map((m) => m.recommendation?.action ?? null)),
      docsUrl: same(members.map((m) => m.docsUrl)),
      db: same(members.map((m) => m.target.db)),
      path: same(members.map((m) => m.target.path ?? m.target.index ?? null)),
    });
  }
  return out;
}

/**
 * A group's shared action as its "for each" line prints it: when members carry commands (a proposed validator, say),
 * the action may name what only they show ("add this validator"), so the line says where it is (`where`).
 */
export function actionForEach(g: Pick<FindingGroup, 'action' | 'findings'>, where: string): string | null {
  if (!g.action) return null;
  return g.findings.some((f) => f.recommendation?.commands?.length) ? `${g.action}; ${where}` : g.action;
}

/**
 * The first sentence of a message (a decimal point or "e.g." is not an end, nor a question mark that does not open a
 * capitalised sentence: a query shape's placeholder, `{ customerId: ? }`).
 */
export function firstSentence(s: string): string {
  const m = /^(.+?(?:[.!]|\?(?=\s+[A-Z]|\s*$)))(\s|$)/.exec(s.replace(/\be\.g\./g, 'e\u2024g\u2024'));
  return (m?.[1] ?? s).replace(/\u2024/g, '.');
}

/** The one interval label (src/core/stats.ts intervalLabel): "95% interval", or a range that reached no 95%. */
export function intervalName(coverage: number | undefined): string {
  return intervalLabel(coverage);
}

/**
 * The verdict in words, one vocabulary in every human format: a ratio claim is supported, refuted or inconclusive; a
 * check (a correctness test, not a cost) passed, failed or was inconclusive. Reporters put their own icon before it.
 */
export function verdictWords(c: Pick<Confirmation, 'status' | 'claim'>): string {
  const check = c.claim?.kind === 'check';
  const words: Record<Confirmation['status'], string> = {
    supported: check ? 'check passed' : 'supported',
    refuted: check ? 'check failed' : 'refuted',
    inconclusive: check ? 'check inconclusive' : 'inconclusive',
    'not-run': 'not measured',
    error: 'experiment failed',
  };
  return words[c.status];
}

/** "insert time, with / without 1.2x (95% interval 1.1x–1.3x)": a ratio with the precision its interval supports. */
export function ratioFigure(r: NonNullable<Confirmation['ratio']>): string {
  return `${r.label} ${formatRatioFigure(r, intervalLabel(r.coverage))}`;
}

/** Longest common subsequence of two word lists, as the indexes of `a` it keeps. */
function commonWords(a: readonly string[], b: readonly string[]): Set<number> {
  const n = a.length;
  const m = b.length;
  const len: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      len[i]![j] = a[i] === b[j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
  }
  const keep = new Set<number>();
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) {
      keep.add(i);
      i++;
      j++;
    } else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return keep;
}

/**
 * What a group's messages say in common: the first sentence of the first, with each run of words that is not in
 * every other first sentence shown as "…". Messages of one template differ only in their values, so what is left is
 * the template's words: "`_id` is ObjectId (12 bytes), monotonic (ρ = …): a clustered collection would …".
 */
export function gistOf(messages: readonly string[]): string {
  const [first = [], ...rest] = messages.map((m) => tokens(firstSentence(m)));
  let keep = new Set(first.map((_, i) => i));
  for (const other of rest) {
    const common = commonWords(first, other);
    keep = new Set([...keep].filter((i) => common.has(i)));
  }
  const out: string[] = [];
  first.forEach((w, i) => {
    if (keep.has(i)) out.push(w);
    else if (out[out.length - 1] !== '…') out.push('…');
  });
  return out.join('').replace(/\s+/g, ' ').trim();
}

/** Words, the spaces between them, numbers and punctuation apart ("`x`):" is "`", "x", "`", ")" and ":"; "1.00" stays
 * whole). */
function tokens(s: string): string[] {
  const NUMBER = /^\d[\d.,]*\d$|^\d$/;
  return s
    .split(/(\s+)/)
    .flatMap((w) => (/^\s+$/.test(w) ? [w] : w.split(/(\d[\d.,]*\d|\d)/)))
    .flatMap((w) => (/^\s+$/.test(w) || NUMBER.test(w) ? [w] : w.split(/([()[\]{},:;!?"`]|\.(?=\s|$))/)))
    .filter(Boolean);
}

/** A finding's place in a group line: its collection (db.collection when the group spans databases). */
export function memberLabel(f: Finding, group: Pick<FindingGroup, 'db' | 'path'>): string {
  const t = f.target;
  const coll = t.collection ?? t.db;
  const base = group.db === null && t.collection ? `${t.db}.${coll}` : coll;
  const extra = group.path === null ? (t.path ? ` › ${t.path}` : t.index ? ` (index ${t.index})` : '') : '';
  return `${base}${extra}`;
}

/**
 * "3 collections" (or databases when the findings are database-wide; "findings" when a collection holds several of
 * them: two query shapes of one collection are not two collections).
 */
export function membersNoun(group: FindingGroup): string {
  const n = group.findings.length;
  const places = new Set(group.findings.map((f) => `${f.target.db}\u0000${f.target.collection ?? ''}`));
  const what =
    places.size < n
      ? 'finding'
      : group.findings.every((f) => f.target.collection === undefined)
        ? 'database'
        : 'collection';
  return `${formatNumber(n)} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * The verdict of one member's experiment in a few words: "≈ inconclusive: clustered / regular 1.2x (95% interval
 * 1.0x–1.6x)". `icon` is the reporter's mark per status; the words are verdictWords'.
 */
export function confirmationVerdict(c: Confirmation, icon: Record<Confirmation['status'], string>): string {
  const head = `${icon[c.status]} ${verdictWords(c)}`.trim();
  if (c.brief) return `${head}: ${c.brief}`;
  return `${head}${c.ratio ? `: ${ratioFigure(c.ratio)}` : ''}`;
}

/** What --verbose adds for a group: "figures, commands and measurements". */
export function verboseHolds(g: FindingGroup): string {
  const parts = ['figures'];
  if (g.findings.some((f) => f.recommendation?.commands?.length)) parts.push('commands');
  if (g.findings.some((f) => f.confirmation?.measurements.length)) parts.push('measurements');
  return parts.length === 1
    ? (parts[0] ?? '')
    : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1] ?? ''}`;
}

/**
 * The notes as the human reports print them: the notes of one server gap (`Note.gap`, src/core/gaps.ts) become one
 * line, where the first of them stood, that states the gap once and names every place it affected; a gap only one
 * note reports keeps that note's own words. Notes without a gap pass as they are. JSON prints the notes themselves.
 */
export function collapseGaps(notes: readonly Note[]): Note[] {
  const byKey = new Map<string, Note[]>();
  for (const n of notes) if (n.gap) pushTo(byKey, `${n.level}\u0000${n.gap.key}`, n);
  const out: Note[] = [];
  for (const n of notes) {
    const same = n.gap ? (byKey.get(`${n.level}\u0000${n.gap.key}`) as Note[]) : [n];
    if (same.length === 1) out.push(n);
    else if (same[0] === n) out.push(gapLine(n, same));
  }
  return out;
}

/**
 * Where a note applies, said beside its effect when the collapsed line's own target does not say it: its collection in
 * a line on one database, `db.collection` (or the database) in a line across databases; '' when the line says it.
 */
function placeBeside(n: Note, lineDb: string | undefined): string {
  const t = n.target;
  if (!t) return '';
  if (lineDb !== undefined) return t.collection ?? '';
  return t.collection ? `${t.db}.${t.collection}` : t.db;
}

/**
 * One line for the notes of one gap: its cause (the core read's wording when it is among them), then each effect,
 * once, with the places it concerns when the line's target does not name them (audit 2026-11-26, item 12).
 */
function gapLine(first: Note, notes: readonly Note[]): Note {
  const head = notes.find((n) => n.ruleId === undefined) ?? first;
  const dbs = new Set(notes.map((n) => n.target?.db));
  const db = dbs.size === 1 ? [...dbs][0] : undefined;
  const places = new Map<string, string[]>();
  for (const n of [head, ...notes.filter((x) => x !== head)]) {
    const effect = `${n.ruleId ? `${n.ruleId}: ` : ''}${n.gap?.effect ?? ''}`;
    const where = placeBeside(n, db);
    const list = places.get(effect) ?? [];
    if (where && !list.includes(where)) list.push(where);
    places.set(effect, list);
  }
  const effects = [...places].map(([effect, where]) => (where.length ? `${effect} (${where.join(', ')})` : effect));
  const target = db === undefined ? {} : { target: { db } };
  const cause = head.gap?.cause ?? '';
  const message = `${cause}. Not checked because of it: ${effects.join('; ')}.`;
  return { level: head.level, ...target, message, ...(head.gap ? { gap: head.gap } : {}) };
}
