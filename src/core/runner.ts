import { fillTemplate } from './format';
import { type AnalyzeSettings, asResolved, type ResolvedRule, settingFor } from './options';
import { type AnyCollector, collectorsOf } from './collector';
import type { AnyRule, ReportedFinding } from './rule';
import type { Finding, Gap, Note, ReportTable, Snapshot, Target } from './types';
import { severityRank } from './types';

export type { AnalyzeSettings, ResolvedRule, RuleSetting } from './options';
export { resolveRules } from './options';

export interface AnalyzeOutput {
  findings: Finding[];
  notes: Note[];
}

/** The rank each ranked finding was reported with (`rank` on the rule contract): read by the sort, never reported. */
type Ranks = Map<Finding, number>;

/** The rules the settings enable, in order. */
export function enabledRules(rules: readonly AnyRule[], settings: AnalyzeSettings = {}): AnyRule[] {
  return rules.filter((r) => settingFor(r.id, settings).enabled);
}

/**
 * The collectors the given rules need, each once: what collect runs beyond the core (src/core/collector.ts). Takes
 * the run's resolved list (`resolveRules`) or bare rules.
 */
export function collectPlan(rules: readonly (AnyRule | ResolvedRule)[]): AnyCollector[] {
  return collectorsOf(rules.map((r) => ('rule' in r ? r.rule : r)));
}

/**
 * Why a rule cannot run over this snapshot (its data was not collected, or the server lacks what it needs); null when
 * it can.
 */
function skipReason(rule: AnyRule, snapshot: Snapshot, ran: ReadonlyMap<string, number>): string | null {
  const uncollected = (rule.needs ?? []).filter((c) => ran.get(c.id) === undefined).map((c) => c.id);
  if (uncollected.length > 0) {
    // Never a silent pass: the snapshot was collected without the data this rule reads.
    return (
      `${rule.id}: not checked: its data (collector ${uncollected.join(', ')}) was not collected ` +
      '(the rule was off when this snapshot was taken); collect again with it on'
    );
  }
  // Data of another shape than this rule reads (a snapshot from another version of the collector): not read.
  const stale = (rule.needs ?? [])
    .filter((c) => ran.get(c.id) !== c.version)
    .map((c) => `${c.id} version ${ran.get(c.id)}, this rule reads version ${c.version}`);
  if (stale.length > 0) {
    return (
      `${rule.id}: not checked: the snapshot holds its data in another shape (collector ${stale.join('; ')}); ` +
      'collect again with this mongo-advisor'
    );
  }
  const missing = rule.meta.requires.capabilities.filter((c) => snapshot.server.capabilities[c]?.supported !== true);
  if (missing.length > 0) {
    const why = missing.map((c) => `${c} (${snapshot.server.capabilities[c]?.evidence ?? 'not probed'})`).join(', ');
    return `${rule.id}: could not check on this server, which lacks ${why}`;
  }
  return null;
}

type CollectionOf = Snapshot['databases'][number]['collections'][number];

/** Runs one resolved rule over the snapshot, adding to `out`. A rule that throws becomes one finding there. */
function runOne(
  snapshot: Snapshot,
  { rule, options, severity: set }: ResolvedRule,
  out: AnalyzeOutput,
  ranks: Ranks,
): void {
  const report = (f: ReportedFinding): void => {
    // A severity set by the user applies to the whole rule, as in ESLint.
    const severity = set ?? f.severity ?? rule.meta.severity;
    const messages = rule.meta.messages as Record<string, string>;
    const template = messages[f.messageId];
    if (template === undefined) throw new Error(`rule ${rule.id} reported unknown messageId ${f.messageId}`);
    const finding: Finding = {
      ruleId: rule.id,
      messageId: f.messageId,
      severity,
      target: f.target,
      message: fillTemplate(template, f.data),
      evidence: f.evidence,
      ...(f.recommendation ? { recommendation: f.recommendation } : {}),
      docsUrl: (rule.meta.docsUrls as Record<string, string> | undefined)?.[f.messageId] ?? rule.meta.docsUrl,
    };
    out.findings.push(finding);
    if (f.rank !== undefined && Number.isFinite(f.rank)) ranks.set(finding, f.rank);
  };
  const note = (message: string, target?: Target, level: 'skipped' | 'info' = 'skipped', gap?: Gap): void => {
    const where = target ? { target } : {};
    out.notes.push({ level, ruleId: rule.id, ...where, message: `${rule.id}: ${message}`, ...(gap ? { gap } : {}) });
  };
  const run = (collection: CollectionOf | null): void => {
    try {
      rule.analyze({ snapshot, collection, options, report, note });
    } catch (err) {
      const target = collection
        ? { db: collection.db, collection: collection.name }
        : { db: snapshot.databases[0]?.name ?? '' };
      const why = err instanceof Error ? err.message : String(err);
      out.findings.push({
        ruleId: rule.id,
        messageId: 'internalError',
        severity: 'warn',
        target,
        message:
          `Rule ${rule.id} failed internally and checked nothing here: ${why}. ` +
          'Please report this with the snapshot (mongo-advisor collect).',
        evidence: {},
        docsUrl: rule.meta.docsUrl,
      });
    }
  };
  if (rule.scope === 'snapshot') return run(null);
  for (const db of snapshot.databases) {
    for (const coll of db.collections) if (coll.type === 'collection') run(coll);
  }
}

/**
 * Runs the run's rules (`resolveRules`: enabled ones, options resolved once) over the snapshot. Pure: no I/O. A rule
 * that throws becomes one finding; the others run.
 */
export function analyze(snapshot: Snapshot, run: readonly ResolvedRule[]): AnalyzeOutput;
/** For a caller without a run's list (tests, benches, the Node API): resolves `rules` under `settings` first. */
export function analyze(snapshot: Snapshot, settings: AnalyzeSettings, rules: readonly AnyRule[]): AnalyzeOutput;
export function analyze(
  snapshot: Snapshot,
  given: AnalyzeSettings | readonly ResolvedRule[],
  rules?: readonly AnyRule[],
): AnalyzeOutput {
  const run = Array.isArray(given)
    ? (given as readonly ResolvedRule[])
    : asResolved(rules ?? [], given as AnalyzeSettings);
  const out: AnalyzeOutput = { findings: [], notes: [] };
  const ranks: Ranks = new Map();
  // Which collectors ran, at which version: the same for every rule.
  const ran = new Map(snapshot.collectors.map((c) => [c.id, c.version]));
  for (const r of run) {
    const skipped = skipReason(r.rule, snapshot, ran);
    if (skipped !== null) out.notes.push({ level: 'skipped', ruleId: r.rule.id, message: skipped });
    else runOne(snapshot, r, out, ranks);
  }
  // Severity, then database; within them ranked findings first, highest rank first; then by address.
  const rank = (f: Finding): number => ranks.get(f) ?? -Infinity;
  out.findings.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      a.target.db.localeCompare(b.target.db) ||
      (rank(a) === rank(b) ? 0 : rank(b) > rank(a) ? 1 : -1) ||
      keyOf(a).localeCompare(keyOf(b)),
  );
  return out;
}

/**
 * The tables of the run's rules (`tables` on the rule contract), given the run's findings (confirmed when the run
 * confirmed): a rule skipped over this snapshot makes none; one whose `tables` throws, or makes a row of another
 * width than its columns, makes none and gets a note.
 */
export function ruleTables(
  snapshot: Snapshot,
  run: readonly ResolvedRule[],
  findings: readonly Finding[],
): { tables: ReportTable[]; notes: Note[] } {
  const out: { tables: ReportTable[]; notes: Note[] } = { tables: [], notes: [] };
  const ran = new Map(snapshot.collectors.map((c) => [c.id, c.version]));
  for (const { rule, options } of run) {
    if (!rule.tables || skipReason(rule, snapshot, ran) !== null) continue;
    try {
      const own = findings.filter((f) => f.ruleId === rule.id);
      const made = rule.tables({ snapshot, options, findings: own }).map((t) => {
        const bad = t.rows.findIndex((row) => row.length !== t.columns.length);
        if (bad !== -1) throw new Error(`row ${bad + 1} of "${t.title}" does not have one cell per column`);
        return { ruleId: rule.id, ...t };
      });
      out.tables.push(...made);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      out.notes.push({ level: 'skipped', ruleId: rule.id, message: `${rule.id}: its report tables failed: ${why}` });
    }
  }
  return out;
}

const keyOf = (f: Finding): string => `${f.target.db}.${f.target.collection ?? ''}.${f.target.path ?? ''}.${f.ruleId}`;
