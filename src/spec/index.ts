import * as path from 'node:path';
import { type AdvisorConfig, specRuleSeverity } from '../core/config';
import type { CheckResult, Finding, Note, Snapshot } from '../core/types';
import type { Locate } from '../report/catalog';
import { specDrift } from './drift';
import { dbOf, loadSpec, type LoadedSpec, type Spec } from './format';
import { SPEC_RULES } from './rules';
import { clusteredProblems, redundantIndexes, type SpecFindingInput, validatorProblems } from './static';

export { loadSpec, type Spec } from './format';

export interface SpecLint {
  findings: Finding[];
  notes: Note[];
  scope: CheckResult['scope'];
  /** Points each finding on a declared collection at its declaration in the spec file. */
  locate: Locate;
}

/** The checks that need no database: validators, redundant indexes, clustered key choice. */
export function staticSpecFindings(spec: Spec): SpecFindingInput[] {
  const out: SpecFindingInput[] = [];
  for (const c of spec.collections) {
    const problems = validatorProblems(c);
    if (problems.length) {
      out.push({
        ruleId: 'spec-invalid-validator',
        messageId: 'invalid',
        target: { db: dbOf(c, spec), collection: c.name },
        message: `The declared validator of ${c.name} would be refused by the server: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}.`,
        evidence: { problems: problems.length },
      });
    }
    out.push(...redundantIndexes(c, spec), ...clusteredProblems(c, spec));
  }
  return out;
}

function toFinding(f: SpecFindingInput, config: AdvisorConfig): Finding | null {
  const meta = SPEC_RULES.find((r) => r.id === f.ruleId);
  const configured = specRuleSeverity(f.ruleId, config);
  if (configured === null) return null;
  // A severity set in the configuration applies to the whole check; otherwise the finding's own, else the check's.
  const userSet = config.rules?.[f.ruleId] !== undefined;
  return {
    ruleId: f.ruleId,
    messageId: f.messageId,
    severity: userSet ? configured : (f.severity ?? meta?.severity ?? 'warn'),
    target: f.target,
    message: f.message,
    evidence: f.evidence,
    ...(f.recommendation ? { recommendation: f.recommendation } : {}),
    docsUrl: meta?.docsUrl ?? '',
  };
}

/** 1-based line of a collection's declaration ("name": "posts" or name: 'posts'), or null. */
function declarationLine(text: string, name: string): number | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`["']?name["']?\\s*:\\s*["'\`]${escaped}["'\`]`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i >= 0 ? i + 1 : null;
}

function locator(loaded: LoadedSpec): Locate {
  const rel = path.relative(process.cwd(), loaded.file).split(path.sep).join('/');
  const uri = rel.startsWith('..') ? loaded.file : rel;
  return (f) => {
    const declared = loaded.spec.collections.find((c) => c.name === f.target.collection && dbOf(c, loaded.spec) === f.target.db);
    if (!declared && !f.ruleId.startsWith('spec-')) return null;
    const line = declared ? declarationLine(loaded.text, declared.name) : null;
    return line ? { uri, line } : { uri };
  };
}

/** Checks a spec file; with a snapshot (live or from a file) it also reports drift. */
export function lintSpec(file: string, snapshot: Snapshot | null, config: AdvisorConfig): SpecLint {
  const loaded = loadSpec(file);
  const { spec } = loaded;
  const inputs = staticSpecFindings(spec);
  const notes: Note[] = [];
  if (snapshot) {
    const drift = specDrift(spec, snapshot);
    inputs.push(...drift.findings);
    notes.push(...drift.notes);
  }
  const findings = inputs.map((f) => toFinding(f, config)).filter((f): f is Finding => f !== null);
  const dbs = [...new Set(spec.collections.map((c) => dbOf(c, spec)))];
  const scope =
    dbs.length === 1
      ? { db: dbs[0] as string, collections: spec.collections.map((c) => c.name) }
      : { db: dbs.join(', '), collections: spec.collections.map((c) => `${dbOf(c, spec)}.${c.name}`) };
  return { findings, notes, scope, locate: locator(loaded) };
}
