/**
 * The report formats as the number of collections grows: seconds to render and write each format of
 * `lint --spec` over a declared spec of N collections (default 1,000 to 50,000).
 *
 *   node bench/run.mjs report-scale [--sizes 1000,5000,20000,50000] [--formats sarif,markdown,text,junit,json]
 *       [--limit-s 300]
 *
 * Each collection declares a redundant index (a warning from `spec-redundant-index`, located in the spec file: SARIF
 * looks its line up) and carries one info finding of one made-up rule (all collapse into one group in the human
 * formats, the grouping path). Each format is rendered the way the CLI renders it (`render` of src/cli/shared.ts)
 * and written to /dev/null through the CLI's writer (src/cli/io.ts). No server. Targets: SARIF of 20,000
 * collections under 10 s; Markdown of 50,000 completes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultIo, type Io, writeOutput } from '../src/cli/io';
import { render, REPORT_FORMATS, type ReportFormat } from '../src/cli/shared';
import type { LintResult } from '../src/core/baseline';
import type { Finding } from '../src/core/types';
import { lintSpec } from '../src/spec';
import { fmt, intArg, machine, markdownTable, stringArg } from './lib/report';

function specText(n: number): string {
  const redundant = [{ key: { a: 1 } }, { key: { a: 1, b: 1 } }];
  const collections = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, indexes: redundant }));
  return JSON.stringify({ db: 'app', collections }, null, 2);
}

type Locate = ReturnType<typeof lintSpec>['locate'];

function infoFinding(i: number): Finding {
  return {
    ruleId: 'bench-info',
    messageId: 'note',
    severity: 'info',
    target: { db: 'app', collection: `c${i}` },
    message: `Collection c${i} holds ${i} things: this is an info finding that collapses into a group.`,
    evidence: { things: i },
    docsUrl: 'https://example.com/bench-info',
  };
}

function resultOf(file: string, n: number): { result: LintResult; locate: Locate } {
  const spec = lintSpec(file, null, {});
  const result: LintResult = {
    tool: { name: 'mongo-advisor', version: 'bench' },
    startedAt: new Date().toISOString(),
    durationMs: 0,
    source: `spec ${file}`,
    server: { version: 'n/a', flavor: 'mongodb', storageEngine: null, topology: 'unknown' },
    scope: spec.scope,
    findings: [...spec.findings, ...Array.from({ length: n }, (_, i) => infoFinding(i))],
    notes: spec.notes,
    roundTrips: 0,
    confirm: { enabled: false, where: null, cleanedUp: null },
  };
  return { result, locate: spec.locate };
}

/** The CLI's writer without its "Wrote the report to …" line. */
const quiet: Io = { ...defaultIo, err: () => undefined };

async function timeFormat(format: ReportFormat, result: LintResult, locate: Locate): Promise<string> {
  const t0 = performance.now();
  try {
    const text = render(result, format, { color: false, locate });
    await writeOutput(quiet, text, '/dev/null');
    return fmt((performance.now() - t0) / 1000, 2);
  } catch (err) {
    return `failed: ${(err as Error).message.slice(0, 40)}`;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = (stringArg(argv, 'sizes') ?? '1000,5000,20000,50000')
    .split(',')
    .map((s) => Number(s.replace(/k$/i, '000')));
  const formats = (stringArg(argv, 'formats') ?? REPORT_FORMATS.join(',')).split(',') as ReportFormat[];
  const limitS = intArg(argv, 'limit-s', 300);
  console.log(`report-scale: ${machine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'ma-bench-report-'));
  const rows: string[][] = [];
  const slow = new Set<ReportFormat>();
  try {
    for (const n of sizes) {
      const file = join(dir, `spec-${n}.json`);
      writeFileSync(file, specText(n));
      const t0 = performance.now();
      const { result, locate } = resultOf(file, n);
      const count = (x: number): string => x.toLocaleString('en-US');
      const row = [count(n), count(result.findings.length), fmt((performance.now() - t0) / 1000, 2)];
      for (const format of formats) {
        // A format past the limit at a smaller size is not run at the larger ones (a quadratic one would take hours).
        const cell = slow.has(format) ? `skipped (>${limitS} s before)` : await timeFormat(format, result, locate);
        if (Number(cell) > limitS) slow.add(format);
        row.push(cell);
      }
      console.log(row.join('\t'));
      rows.push(row);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${markdownTable(['collections', 'findings', 'lintSpec s', ...formats.map((f) => `${f} s`)], rows)}`);
  console.log(`load average after: ${machine().match(/load average [\d. ]+/)?.[0] ?? ''}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
