import type { AnyRule as Rule } from '../core/rule';
import type { Finding, Severity } from '../core/types';
import { SPEC_RULES } from '../core/spec-rules';

/** What a report needs to know about a rule: enough for SARIF's reportingDescriptor and a link. */
export interface RuleInfo {
  id: string;
  description: string;
  docsUrl: string;
  severity: Severity;
}

/** Every rule a finding can come from: the given snapshot rules, then the declared-spec checks. */
export function ruleCatalog(rules: readonly Rule[]): RuleInfo[] {
  return [
    ...rules.map((r) => ({
      id: r.id,
      description: r.meta.description,
      docsUrl: r.meta.docsUrl,
      severity: r.meta.severity,
    })),
    ...SPEC_RULES.map((r) => ({ ...r })),
  ];
}

/** Where a finding points to in a repository (for SARIF consumers that need a file), if anywhere. */
export interface SourceLocation {
  uri: string;
  line?: number;
}

export type Locate = (f: Finding) => SourceLocation | null;

/** "db.collection › path (index name)", the one-line address of a finding. */
export function targetLabel(f: Pick<Finding, 'target'>): string {
  const t = f.target;
  const collection = t.collection ? `.${t.collection}` : '';
  const path = t.path ? ` › ${t.path}` : '';
  const index = t.index ? ` (index ${t.index})` : '';
  return `${t.db}${collection}${path}${index}`;
}

/**
 * The collections a result covers as `db.collection`. A result over several databases names them "a, b" in
 * scope.db and qualifies its collections (database names cannot hold a space or a dot).
 */
export function scopeTargets(scope: { db: string; collections: string[] }): string[] {
  const multi = scope.db.includes(', ');
  return scope.collections.map((c) => (multi ? c : `${scope.db}.${c}`));
}
