import { laterLines } from '../lib/shell';
import type { Invocation, Location, Log, ReportingDescriptor, Result } from 'sarif';
import { type BaselineComparison, fingerprint, type LintResult } from '../core/baseline';
import type { Finding, Severity } from '../core/types';
import { type Locate, type RuleInfo, targetLabel } from './catalog';
import { jsonTerminalSafe, mdFence, mdText } from './escape';

export interface SarifOptions {
  /** Rules to describe in tool.driver.rules (`ruleCatalog(rules)`: the front door passes the rule list in). */
  rules: readonly RuleInfo[];
  /** A repository file for each finding (e.g. the declared spec). */
  locate?: Locate;
}

const LEVEL: Record<Severity, Result.level> = { error: 'error', warn: 'warning', info: 'note' };

/**
 * Where a finding lives. GitHub code scanning refuses a result without a repository-relative file, so a finding
 * that points at no file gets a stable pseudo path, mongodb/<db>/<collection>, plus a logical location.
 */
function locationOf(f: Finding, locate: Locate | undefined): Location {
  const src = locate?.(f) ?? null;
  const pseudo = ['mongodb', f.target.db, f.target.collection]
    .filter(Boolean)
    .map((p) => encodeURIComponent(p as string))
    .join('/');
  const fq = [f.target.db, f.target.collection, f.target.path].filter(Boolean).join('.');
  return {
    physicalLocation: {
      artifactLocation: { uri: src?.uri ?? pseudo, ...(src ? {} : { uriBaseId: '%SRCROOT%' }) },
      ...(src?.line ? { region: { startLine: src.line } } : {}),
    },
    logicalLocations: [
      {
        fullyQualifiedName: fq,
        kind: f.target.index ? 'index' : f.target.path ? 'field' : f.target.collection ? 'collection' : 'database',
      },
    ],
    message: { text: targetLabel(f) },
  };
}

/** The result's Markdown (GitHub renders it on the alert): the Markdown rule of src/report/escape.ts, no live link. */
function markdownOf(f: Finding): string {
  const lines = [mdText(f.message)];
  if (f.recommendation) {
    lines.push('', `**${mdText(f.recommendation.action)}**: ${mdText(f.recommendation.reason)}`);
    if (f.recommendation.commands?.length) lines.push('', ...mdFence(f.recommendation.commands, 'js'));
    const later = f.recommendation.later;
    if (later) lines.push('', `Later, ${mdText(later.when)}:`, '', ...mdFence(laterLines(later), 'js'));
  }
  if (f.confirmation) lines.push('', `Confirmation (${f.confirmation.status}): ${mdText(f.confirmation.summary)}`);
  return lines.join('\n');
}

/** SARIF 2.1.0 log: one run, every rule described with its helpUri, one result per finding. */
export function formatSarif(result: LintResult, opts: SarifOptions): string {
  const catalog = [...opts.rules];
  const indexOf = new Map(catalog.map((r, i) => [r.id, i] as const));
  // Rules a finding names but the catalog lacks (an internal error of an unknown rule) still get a descriptor.
  for (const f of result.findings) {
    if (indexOf.has(f.ruleId)) continue;
    indexOf.set(f.ruleId, catalog.length);
    catalog.push({ id: f.ruleId, description: f.ruleId, docsUrl: f.docsUrl, severity: f.severity });
  }
  const baseline = result.lint?.baseline ?? null;
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mongo-advisor',
            version: result.tool.version,
            semanticVersion: result.tool.version,
            informationUri: 'https://www.npmjs.com/package/mongo-advisor',
            rules: catalog.map(descriptorOf),
          },
        },
        automationDetails: { id: `mongo-advisor/${result.scope.db}/` },
        invocations: [invocationOf(result)],
        results: result.findings.map((f) => resultOf(f, indexOf.get(f.ruleId) ?? -1, baseline, opts.locate)),
        properties: {
          source: result.source,
          server: result.server,
          scope: result.scope,
          ...(baseline
            ? {
                baseline: {
                  file: baseline.file,
                  accepted: baseline.accepted,
                  absent: baseline.absent.map((a) => a.fingerprint),
                },
              }
            : {}),
        },
      },
    ],
  };
  // Characters a terminal acts on that JSON.stringify leaves raw (C1 controls, bidi marks): \u escapes, same value.
  return jsonTerminalSafe(JSON.stringify(log, null, 2));
}

/** A rule's descriptor in tool.driver.rules. */
function descriptorOf(r: RuleInfo): ReportingDescriptor {
  return {
    id: r.id,
    name: r.id.replace(/(^|-)(\w)/g, (_m, _d: string, c: string) => c.toUpperCase()),
    shortDescription: { text: r.description },
    fullDescription: { text: r.description },
    helpUri: r.docsUrl,
    help: {
      text: `${r.description}. See ${r.docsUrl}`,
      markdown: `${r.description}. See [the MongoDB manual](${r.docsUrl}).`,
    },
    defaultConfiguration: { level: LEVEL[r.severity] },
  };
}

/** One finding as a SARIF result, with its state against the baseline when there is one. */
function resultOf(f: Finding, ruleIndex: number, baseline: BaselineComparison | null, locate?: Locate): Result {
  const fp = fingerprint(f);
  const r: Result = {
    ruleId: f.ruleId,
    ruleIndex,
    level: LEVEL[f.severity],
    message: { text: `${targetLabel(f)}: ${f.message}`, markdown: markdownOf(f) },
    locations: [locationOf(f, locate)],
    partialFingerprints: { 'mongoAdvisorFinding/v1': fp },
    properties: {
      messageId: f.messageId,
      target: { ...f.target },
      evidence: f.evidence,
      ...(f.confirmation
        ? {
            confirmation: {
              status: f.confirmation.status,
              summary: f.confirmation.summary,
              ...(f.confirmation.ratio ? { ratio: f.confirmation.ratio } : {}),
            },
          }
        : {}),
    },
  };
  if (baseline) r.baselineState = baseline.states[fp] ?? 'new';
  return r;
}

/** The run's invocation: whether it executed, when, what could not be checked, and the gate's exit code. */
function invocationOf(result: LintResult): Invocation {
  return {
    // A gate that could not read what it was asked to check did not execute successfully (lint exit 2).
    executionSuccessful: result.lint?.exitCode !== 2,
    startTimeUtc: result.startedAt,
    toolExecutionNotifications: result.notes
      .filter((n) => n.level !== 'info')
      .map((n) => ({
        level: n.level === 'error' ? 'error' : 'note',
        message: { text: `${n.target ? `${targetLabel({ target: n.target })}: ` : ''}${n.message}` },
      })),
    ...(result.lint ? { exitCode: result.lint.exitCode, exitCodeDescription: result.lint.verdict } : {}),
  };
}
