/**
 * The formats at scale: SARIF of a declared spec and the grouping the human formats share are linear in the number
 * of findings (they were quadratic: SARIF with --spec took 62 s at 4,000 collections). The time bounds sit far above
 * the linear times on a loaded two-core machine (1-10 s) and far below the quadratic ones (minutes);
 * bench/report-scale.ts gives the figures. They bound the CPU time the formatting takes (`cpuSeconds`), not the wall
 * time: with another suite running beside this one, the wall time of the same linear work once read 39.6 s.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';
import type { Finding } from '../src/core/types';
import { ruleCatalog } from '../src/report/catalog';
import { formatMarkdown } from '../src/report/markdown';
import { formatSarif } from '../src/report/sarif';
import { formatText } from '../src/report/text';
import { lintSpec } from '../src/spec';
import { checkResultOf } from './support/fixtures';

interface SarifLog {
  runs: { results: { locations: { physicalLocation: { region?: { startLine: number } } }[] }[] }[];
}

/** CPU seconds (user and system, every thread of this process) `work` takes: what other processes do not stretch. */
function cpuSeconds<T>(work: () => T): { value: T; seconds: number } {
  const from = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(from);
  return { value, seconds: (used.user + used.system) / 1e6 };
}

function infoFinding(i: number): Finding {
  return {
    ruleId: 'array-growth',
    messageId: 'tooLong',
    severity: 'info',
    target: { db: 'app', collection: `c${i}`, path: 'tags' },
    message: `Array \`tags\` in c${i} reaches ${i} elements.`,
    evidence: { maxLength: i },
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-patterns/',
  };
}

describe('the formats at scale: linear in the number of findings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-scale-'));

  it('SARIF of a declared spec of 8,000 collections (was quadratic: 62 s at 4,000)', () => {
    const file = join(dir, 'spec-8000.json');
    const redundant = [{ key: { a: 1 } }, { key: { a: 1, b: 1 } }];
    const collections = Array.from({ length: 8000 }, (_, i) => ({ name: `c${i}`, indexes: redundant }));
    writeFileSync(file, JSON.stringify({ db: 'app', collections }, null, 2));
    const spec = lintSpec(file, null, {});
    const result = checkResultOf(spec.findings, { scope: spec.scope });
    const { value: sarif, seconds } = cpuSeconds(() =>
      formatSarif(result, { rules: ruleCatalog(rules), locate: spec.locate }),
    );
    const log = JSON.parse(sarif) as SarifLog;
    expect(log.runs[0]?.results).toHaveLength(8000);
    const text = readFileSync(file, 'utf8').split('\n');
    const declared = text.findIndex((l) => l.includes('"name": "c7999"')) + 1;
    // the redundant index's own entry: the first `"key"` line after its collection's name
    const keyLine = text.findIndex((l, i) => i >= declared && l.includes('"key"')) + 1;
    const last = log.runs[0]?.results.at(-1);
    expect(keyLine).toBeGreaterThan(declared);
    expect(last?.locations[0]?.physicalLocation.region?.startLine).toBe(keyLine);
    expect(seconds, 'CPU seconds: linear takes seconds, quadratic minutes').toBeLessThan(20);
  }, 120_000);

  it('Markdown and text of 40,000 info findings of one rule, one group (grouping was quadratic)', () => {
    const findings = Array.from({ length: 40_000 }, (_, i) => infoFinding(i));
    const scope = { db: 'app', collections: findings.map((f) => f.target.collection ?? '') };
    const result = checkResultOf(findings, { scope });
    const {
      value: [md, text],
      seconds,
    } = cpuSeconds(() => [formatMarkdown(result), formatText(result, { color: false })] as const);
    expect(md).toMatch(/40,000 collections in `?app`?/);
    expect(text).toContain('40,000 collections in app');
    expect(seconds, 'CPU seconds: linear takes seconds, quadratic minutes').toBeLessThan(30);
  }, 120_000);
});
