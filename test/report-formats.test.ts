import { formatText } from '../src/report/text';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { buildBaseline, compareBaseline, judge } from '../src/core/baseline';
import type { CheckResult, Finding } from '../src/core/types';
import { checkResultOf } from './support/fixtures';
import { rules as builtIn } from '../rules';
import { ruleCatalog } from '../src/report/catalog';
import { formatJunit } from '../src/report/junit';
import { formatMarkdown } from '../src/report/markdown';
import { formatSarif } from '../src/report/sarif';

const SCHEMA = JSON.parse(
  readFileSync(
    join(__dirname, '..', 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'),
    'utf8',
  ),
) as object;
// The official schema's "language" pattern has a stray "]", valid only outside unicode mode.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validateSarif = ajv.compile(SCHEMA);

function finding(over: Partial<Finding> = {}): Finding {
  return {
    ruleId: 'array-growth',
    messageId: 'tooLong',
    severity: 'error',
    target: { db: 'app', collection: 'posts', path: 'comments' },
    message: 'Array `comments` reaches 10,000 elements <b> & "quotes" | pipes',
    evidence: { maxLength: 10000, p95: 1000 },
    recommendation: {
      action: 'reference',
      reason: 'Each $push rewrites the whole document.',
      commands: ['db.createCollection("comments")'],
    },
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-patterns/',
    ...over,
  };
}

function result(findings: Finding[]): CheckResult {
  return checkResultOf(findings, {
    durationMs: 1234,
    server: { version: '7.0.12', flavor: 'mongodb', storageEngine: 'wiredTiger', topology: 'replicaSet' },
    scope: { db: 'app', collections: ['posts', 'sessions', 'events'] },
    notes: [
      {
        level: 'skipped',
        ruleId: 'id-pattern',
        message: 'id-pattern: could not check on this server, which lacks sample (aggregate $sample failed)',
      },
    ],
    roundTrips: 20,
  });
}

const FINDINGS = [
  finding({
    confirmation: {
      status: 'supported',
      summary: '$push into the 10,000-element array took 26x as long as an insert into a child collection.',
      ratio: { label: 'push / insert', median: 26.1, low: 21.5, high: 30.2, coverage: 0.95 },
      measurements: [{ label: 'push', unit: 'ms', median: 3.1, low: 2.9, high: 3.4, trials: 7, coverage: 0.984375 }],
      where: 'mongo_advisor_scratch_ab12',
      durationMs: 4000,
    },
  }),
  finding({
    ruleId: 'id-pattern',
    messageId: 'adviseAgainstClustered',
    severity: 'warn',
    target: { db: 'app', collection: 'sessions' },
    message: 'Random UUID v4 _id.',
  }),
  finding({
    ruleId: 'spec-drift',
    messageId: 'missingIndex',
    severity: 'warn',
    target: { db: 'app', collection: 'events', index: 'type_1' },
    message: 'Index {"type":1} is declared but not built.',
  }),
  finding({
    severity: 'info',
    target: { db: 'app', collection: 'events', path: 'tags' },
    message: 'Array tags has 300 elements.',
  }),
];

describe('SARIF', () => {
  it('validates against the official SARIF 2.1.0 JSON Schema, every rule with a helpUri', () => {
    const log = JSON.parse(formatSarif(result(FINDINGS), { rules: ruleCatalog(builtIn) })) as {
      runs: {
        tool: { driver: { rules: { id: string; helpUri?: string }[] } };
        results: { ruleId: string; ruleIndex: number; level: string; locations: unknown[] }[];
      }[];
    };
    const ok = validateSarif(log);
    expect(validateSarif.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    const run = log.runs[0];
    expect(run?.tool.driver.rules.map((r) => r.id)).toEqual(ruleCatalog(builtIn).map((r) => r.id));
    expect(run?.tool.driver.rules.every((r) => /^https:\/\//.test(r.helpUri ?? ''))).toBe(true);
    expect(run?.results.map((r) => r.level)).toEqual(['error', 'warning', 'warning', 'note']);
    for (const r of run?.results ?? []) {
      expect(run?.tool.driver.rules[r.ruleIndex]?.id).toBe(r.ruleId);
      expect(r.locations).toHaveLength(1);
    }
  });

  it(
    'gives every result a repository path (code scanning needs one): the spec when known, else ' +
      'mongodb/<db>/<collection>',
    () => {
      const log = JSON.parse(
        formatSarif(result(FINDINGS), {
          rules: ruleCatalog(builtIn),
          locate: (f) => (f.target.collection === 'events' ? { uri: 'db/spec.json', line: 12 } : null),
        }),
      ) as {
        runs: {
          results: {
            locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
          }[];
        }[];
      };
      expect(validateSarif(log)).toBe(true);
      const locs = log.runs[0]?.results.map((r) => r.locations[0]?.physicalLocation);
      expect(locs?.[0]?.artifactLocation.uri).toBe('mongodb/app/posts');
      expect(locs?.[2]).toEqual({ artifactLocation: { uri: 'db/spec.json' }, region: { startLine: 12 } });
    },
  );

  it('with a baseline: baselineState on each result, still valid', () => {
    const r = result(FINDINGS);
    const base = buildBaseline([FINDINGS[1] as Finding]);
    const lint = judge(r, {
      failOn: 'error',
      maxWarnings: null,
      baseline: compareBaseline(r.findings, base, 'b.json'),
    });
    const log = JSON.parse(formatSarif({ ...r, lint }, { rules: ruleCatalog(builtIn) })) as {
      runs: { results: { baselineState: string }[]; invocations: { exitCode: number }[] }[];
    };
    expect(validateSarif(log)).toBe(true);
    expect(log.runs[0]?.results.map((x) => x.baselineState)).toEqual(['new', 'unchanged', 'new', 'new']);
    expect(log.runs[0]?.invocations[0]?.exitCode).toBe(1);
  });

  it('the schema check has teeth: a wrong level or a missing message fails it', () => {
    const log = JSON.parse(formatSarif(result(FINDINGS), { rules: ruleCatalog(builtIn) })) as {
      runs: { results: Record<string, unknown>[] }[];
    };
    const r0 = log.runs[0]?.results[0] as Record<string, unknown>;
    r0.level = 'warn';
    expect(validateSarif(log)).toBe(false);
    r0.level = 'error';
    delete r0.message;
    expect(validateSarif(log)).toBe(false);
  });

  it('an empty run is valid too', () => {
    expect(validateSarif(JSON.parse(formatSarif(result([]), { rules: ruleCatalog(builtIn) })))).toBe(true);
  });
});

describe('JUnit', () => {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

  it('parses: a suite per rule, a case per collection, failures at or above failOn only', () => {
    // The two model rules only, so the suites do not depend on which rules the registry holds.
    const rules = ruleCatalog(builtIn).filter((r) => ['array-growth', 'id-pattern'].includes(r.id));
    const xml = formatJunit(result(FINDINGS), { failOn: 'warn', rules });
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parser.parse(xml) as {
      testsuites: {
        tests: string;
        failures: string;
        testsuite: {
          name: string;
          failures: string;
          skipped: string;
          testcase: { name: string; failure?: unknown; 'system-out'?: string; skipped?: unknown }[];
        }[];
      };
    };
    const suites = doc.testsuites.testsuite;
    const byName = Object.fromEntries(suites.map((s) => [s.name, s]));
    expect(Object.keys(byName)).toEqual(['array-growth', 'id-pattern', 'spec-drift']);
    const ag = byName['array-growth'];
    expect(ag?.testcase.map((c) => c.name)).toEqual(['app.posts', 'app.sessions', 'app.events']);
    expect(ag?.failures).toBe('1');
    // The info finding on events stays out of failures but is in the output.
    const events = ag?.testcase.find((c) => c.name === 'app.events');
    expect(events?.failure).toBeUndefined();
    expect(events?.['system-out']).toContain('Array tags has 300 elements.');
    expect(byName['id-pattern']?.testcase.find((c) => c.name === 'app.sessions')?.failure).toBeDefined();
    // The rule the server could not run is skipped where it found nothing.
    expect(byName['id-pattern']?.skipped).toBe('2');
    expect(doc.testsuites.failures).toBe('3');
  });

  it('escapes markup; a control character (XML cannot hold some) shows as a visible escape', () => {
    const xml = formatJunit(result([finding({ message: 'bad \u0001 char <x> & "q"' })]), {
      rules: ruleCatalog(builtIn),
    });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('bad \\u{1} char &lt;x&gt; &amp; &quot;q&quot;');
  });
});

describe('Markdown', () => {
  it('has the verdict, counts, an escaped table row per finding and the confirmation interval', () => {
    const r = result(FINDINGS);
    const md = formatMarkdown({ ...r, lint: judge(r, { failOn: 'error', maxWarnings: null, baseline: null }) });
    expect(md).toContain('**❌ failed: 1 new finding at or above error**');
    expect(md).toContain('| findings | 1 | 2 | 1 |');
    const rows = md.split('\n').filter((l) => l.startsWith('| 🔴') || l.startsWith('| 🟡') || l.startsWith('| 🔵'));
    expect(rows).toHaveLength(4);
    expect(rows[0]).toContain('&lt;b&gt; & "quotes" \\| pipes');
    expect(rows[0]).toContain('✅ supported (push / insert 26x (95% interval 21x–31x))');
    expect(md).toContain('### Could not check');
  });
});

describe('text', () => {
  // one level in every label (issue 17): an interval that reaches 95% says 95%, whatever its exact coverage (98.4%
  // here); one that does not is a range, never labelled 95%
  it('labels each measured interval with the one level, 95%, or as a range when it does not reach it', () => {
    const out = formatText(result(FINDINGS), { color: false });
    expect(out).toContain('interval (coverage)');
    expect(out).toContain('(95%)');
    expect(out).not.toContain('98.4%');
    const short = FINDINGS.map((f) =>
      f.confirmation
        ? {
            ...f,
            confirmation: {
              ...f.confirmation,
              measurements: f.confirmation.measurements.map((m) => ({ ...m, coverage: 0.9375 })),
            },
          }
        : f,
    );
    const out2 = formatText(result(short), { color: false });
    expect(out2).toContain('(range)');
    expect(out2).not.toContain('(95%)');
  });
});
