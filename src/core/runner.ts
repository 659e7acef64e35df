import { fillTemplate } from './format';
import { resolveOptions } from './options';
import { type AnyCollector, collectorsOf } from './collector';
import type { AnyRule, ReportedFinding } from './rule';
import type { Finding, Gap, Note, Severity, Snapshot, Target } from './types';
import { severityRank } from './types';

export type RuleSetting = 'off' | Severity | { severity?: Severity; options?: Record<string, unknown>; enabled?: boolean };
export interface AnalyzeSettings {
  rules?: Record<string, RuleSetting>;
  /** Only these rules (by id); all when absent. */
  only?: string[];
}

export interface AnalyzeOutput {
  findings: Finding[];
  notes: Note[];
}

function settingFor(id: string, settings: AnalyzeSettings): { enabled: boolean; severity?: Severity; options: Record<string, unknown> } {
  const s = settings.rules?.[id];
  if (settings.only && !settings.only.includes(id)) return { enabled: false, options: {} };
  if (s === undefined) return { enabled: true, options: {} };
  if (s === 'off') return { enabled: false, options: {} };
  if (typeof s === 'string') return { enabled: true, severity: s, options: {} };
  return { enabled: s.enabled !== false, ...(s.severity ? { severity: s.severity } : {}), options: s.options ?? {} };
}

/** The rules the settings enable, in order. */
export function enabledRules(rules: readonly AnyRule[], settings: AnalyzeSettings = {}): AnyRule[] {
  return rules.filter((r) => settingFor(r.id, settings).enabled);
}

/** The collectors the given rules need, each once: what collect runs beyond the core (src/core/collector.ts). */
export function collectPlan(rules: readonly AnyRule[]): AnyCollector[] {
  return collectorsOf(rules);
}

export function resolveRuleOptions(rule: AnyRule, settings: AnalyzeSettings = {}): Record<string, unknown> {
  return resolveOptions(rule.id, rule.meta.options, settingFor(rule.id, settings).options);
}

/** Runs every enabled rule of `rules` over the snapshot. Pure: no I/O. A rule that throws becomes one finding; the others run. */
export function analyze(snapshot: Snapshot, settings: AnalyzeSettings, rules: readonly AnyRule[]): AnalyzeOutput {
  const findings: Finding[] = [];
  const notes: Note[] = [];
  // Which collectors ran, at which version: the same for every rule.
  const ran = new Map(snapshot.collectors.map((c) => [c.id, c.version]));
  for (const rule of rules) {
    const setting = settingFor(rule.id, settings);
    if (!setting.enabled) continue;
    const options = resolveOptions<Record<string, unknown>>(rule.id, rule.meta.options, setting.options);
    const uncollected = (rule.needs ?? []).filter((c) => ran.get(c.id) === undefined).map((c) => c.id);
    if (uncollected.length > 0) {
      // Never a silent pass: the snapshot was collected without the data this rule reads.
      notes.push({ level: 'skipped', ruleId: rule.id, message: `${rule.id}: not checked: its data (collector ${uncollected.join(', ')}) was not collected (the rule was off when this snapshot was taken); collect again with it on` });
      continue;
    }
    // Data of another shape than this rule reads (a snapshot from another version of the collector): not read.
    const stale = (rule.needs ?? []).filter((c) => ran.get(c.id) !== c.version).map((c) => `${c.id} version ${ran.get(c.id)}, this rule reads version ${c.version}`);
    if (stale.length > 0) {
      notes.push({ level: 'skipped', ruleId: rule.id, message: `${rule.id}: not checked: the snapshot holds its data in another shape (collector ${stale.join('; ')}); collect again with this mongo-advisor` });
      continue;
    }
    const missing = rule.meta.requires.capabilities.filter((c) => snapshot.server.capabilities[c]?.supported !== true);
    if (missing.length > 0) {
      const why = missing.map((c) => `${c} (${snapshot.server.capabilities[c]?.evidence ?? 'not probed'})`).join(', ');
      notes.push({ level: 'skipped', ruleId: rule.id, message: `${rule.id}: could not check on this server, which lacks ${why}` });
      continue;
    }
    const report = (f: ReportedFinding): void => {
      // A severity set by the user applies to the whole rule, as in ESLint.
      const severity = setting.severity ?? f.severity ?? rule.meta.severity;
      const messages = rule.meta.messages as Record<string, string>;
      const template = messages[f.messageId];
      if (template === undefined) throw new Error(`rule ${rule.id} reported unknown messageId ${f.messageId}`);
      findings.push({
        ruleId: rule.id,
        messageId: f.messageId,
        severity,
        target: f.target,
        message: fillTemplate(template, f.data),
        evidence: f.evidence,
        ...(f.recommendation ? { recommendation: f.recommendation } : {}),
        docsUrl: (rule.meta.docsUrls as Record<string, string> | undefined)?.[f.messageId] ?? rule.meta.docsUrl,
      });
    };
    const note = (message: string, target?: Target, level: 'skipped' | 'info' = 'skipped', gap?: Gap): void => {
      const where = target ? { target } : {};
      notes.push({ level, ruleId: rule.id, ...where, message: `${rule.id}: ${message}`, ...(gap ? { gap } : {}) });
    };
    const run = (collection: Snapshot['databases'][number]['collections'][number] | null): void => {
      try {
        rule.analyze({ snapshot, collection, options, report, note });
      } catch (err) {
        const target = collection ? { db: collection.db, collection: collection.name } : { db: snapshot.databases[0]?.name ?? '' };
        findings.push({
          ruleId: rule.id,
          messageId: 'internalError',
          severity: 'warn',
          target,
          message: `Rule ${rule.id} failed internally and checked nothing here: ${err instanceof Error ? err.message : String(err)}. Please report this with the snapshot (mongo-advisor collect).`,
          evidence: {},
          docsUrl: rule.meta.docsUrl,
        });
      }
    };
    if (rule.scope === 'snapshot') {
      run(null);
      continue;
    }
    for (const db of snapshot.databases) {
      for (const coll of db.collections) {
        if (coll.type !== 'collection') continue;
        run(coll);
      }
    }
  }
  findings.sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || keyOf(a).localeCompare(keyOf(b)));
  return { findings, notes };
}

const keyOf = (f: Finding): string => `${f.target.db}.${f.target.collection ?? ''}.${f.target.path ?? ''}.${f.ruleId}`;
