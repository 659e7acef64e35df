import { describe, expect, it } from 'vitest';
import { judge } from '../src/core/baseline';
import { formatBytes } from '../src/core/format';
import type { CheckResult, Finding } from '../src/core/types';
import { actionForEach, confirmationVerdict, gistOf, groupFindings } from '../src/report/group';
import { ticketSummary } from '../src/report/html-data';
import { formatMarkdown } from '../src/report/markdown';
import { formatText } from '../src/report/text';
import { checkResultOf, collectionOf, snapshotOf } from './support/fixtures';
import { joinRegex } from './support/regex';

function clustered(
  collection: string,
  rho: string,
  extra: number,
  status?: 'supported' | 'refuted' | 'inconclusive',
  median = 1,
): Finding {
  return {
    ruleId: 'id-pattern',
    messageId: 'suggestClustered',
    severity: 'info',
    target: { db: 'app', collection, path: '_id' },
    message:
      `\`_id\` is ObjectId (12 bytes), monotonic (ρ = ${rho}): a clustered collection would store documents ` +
      `in \`_id\` order, one tree instead of two. Secondary indexes here: about ${extra} KiB more.`,
    evidence: {},
    recommendation: {
      action: 'clustered collection (when you next create it)',
      reason: 'One tree instead of two.',
      commands: [
        `db.createCollection("${collection}_clustered", { clusteredIndex: { key: { _id: 1 }, unique: true } })`,
      ],
    },
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
    ...(status
      ? {
          confirmation: {
            status,
            summary: `Inserts into ${collection} measured.`,
            ratio: {
              label: 'clustered / regular insert',
              median,
              low: median * 0.8,
              high: median * 1.25,
              coverage: 0.95,
            },
            measurements: [
              {
                label: `insert 500 docs into ${collection}`,
                unit: 'ms' as const,
                median: 100,
                low: 90,
                high: 120,
                trials: 7,
              },
            ],
            where: 'scratch',
            durationMs: 1,
          },
        }
      : {}),
  };
}

const ERROR: Finding = {
  ruleId: 'array-growth',
  messageId: 'growing',
  severity: 'error',
  target: { db: 'app', collection: 'posts', path: 'comments' },
  message: 'Array `comments` grows by 222 elements a day.',
  evidence: {},
  docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
};

const FINDINGS: Finding[] = [
  ERROR,
  // two warnings of one rule and message: never collapsed
  {
    ...clustered('a', '1.00', 1),
    severity: 'warn',
    messageId: 'clusteredOnRandom',
    message: 'Clustered on random keys (a).',
  },
  {
    ...clustered('b', '1.00', 1),
    severity: 'warn',
    messageId: 'clusteredOnRandom',
    message: 'Clustered on random keys (b).',
  },
  clustered('events', '1.00', 11.7, 'inconclusive', 1.24),
  clustered('logs', '0.98', 0, 'refuted', 0.94),
  {
    ...clustered('sessions', '0.07', 23.4),
    messageId: 'adviseAgainstClustered',
    message: '`_id` is UUID v4: keep this a regular collection.',
  },
  clustered('posts', '1.00', 0.2),
];

function resultOf(findings: Finding[]): CheckResult {
  return checkResultOf(findings, {
    scope: { db: 'app', collections: ['posts', 'events', 'logs', 'sessions', 'a', 'b'] },
    confirm: { enabled: true, where: 'scratch', cleanedUp: true },
  });
}

describe('sizes', () => {
  it('prints IEC binary units with the precision of every other number', () => {
    expect(
      [
        0,
        1008,
        1023,
        1024,
        1536,
        9_999,
        11_980,
        100_000,
        1_047_552,
        1_048_575,
        2_000_000,
        16 * 1024 ** 2,
        8 * 1024 ** 3,
        -2048,
      ].map(formatBytes),
    ).toEqual([
      '0 B',
      '1,008 B',
      '1,023 B',
      '1 KiB',
      '1.5 KiB',
      '9.76 KiB',
      '11.7 KiB',
      '97.7 KiB',
      '1,023 KiB',
      '1 MiB',
      '1.91 MiB',
      '16 MiB',
      '8 GiB',
      '-2 KiB',
    ]);
  });
});

describe('repeated info findings collapse (text)', () => {
  const text = formatText(resultOf(FINDINGS), { color: false });

  it('collapses the info findings of one rule and message into one entry that names the collections', () => {
    expect(text).toContain('ℹ info  3 collections in app › _id  id-pattern');
    expect(text.replace(/\n {2}/g, ' ')).toContain(
      'events, logs, posts: `_id` is ObjectId (12 bytes), monotonic (ρ = …): a clustered collection would ' +
        'store documents in `_id` order, one tree instead of two.',
    );
    // the action may name what only each member's commands show ("add this validator"): the line says where they are
    expect(text).toContain(
      "→ for each: clustered collection (when you next create it); --verbose prints each finding's own",
    );
    // one verdict line per collection with its experiment, and a line for the one without
    expect(text).toMatch(
      / {2}events {2}≈ inconclusive: clustered \/ regular insert 1\.2x \(95% interval 0\.99x–1\.6x\)/,
    );
    expect(text).toMatch(/ {2}logs {4}✖ refuted: clustered \/ regular insert 0\.94x/);
    expect(text).toMatch(/ {2}posts {3}no experiment/);
    expect(text).toContain("run with --verbose for each collection's figures, commands and measurements");
    // the per-collection details are left to --verbose
    expect(text).not.toContain('about 11.7 KiB more');
    expect(text).not.toContain('events_clustered');
    expect(text).not.toContain('insert 500 docs into events');
    // the counts still count every finding, a refuted one apart (withdrawn: listed, not counted)
    expect(text).toContain('1 error · 2 warnings · 3 info · 1 withdrawn (refuted on scratch)');
  });

  it('leaves errors, warnings and a lone info finding as they are', () => {
    expect(text).toContain('✖ error app.posts › comments  array-growth');
    expect(text).toContain('Clustered on random keys (a).');
    expect(text).toContain('Clustered on random keys (b).');
    expect(text).toContain('ℹ info  app.sessions › _id  id-pattern');
    // the entry sits where its first finding was: after the warnings, before the lone info finding
    expect(text.indexOf('3 collections in app')).toBeGreaterThan(text.indexOf('(b).'));
    expect(text.indexOf('3 collections in app')).toBeLessThan(text.indexOf('app.sessions'));
  });

  it('--verbose keeps each finding in full', () => {
    const verbose = formatText(resultOf(FINDINGS), { color: false, verbose: true });
    expect(verbose).not.toContain('3 collections in app');
    for (const c of ['events', 'logs', 'posts']) expect(verbose).toContain(`ℹ info  app.${c} › _id  id-pattern`);
    expect(verbose).toContain('about 11.7 KiB more');
    expect(verbose).toContain('insert 500 docs into events');
    expect(verbose.split('\n').length).toBeGreaterThan(text.split('\n').length + 15);
  });

  it('a healthy database gives a short report', () => {
    const healthy = formatText(resultOf([]), { color: false });
    expect(healthy.split('\n')).toHaveLength(5);
    expect(healthy).toContain('✔ No findings.');
  });

  it('names db.collection when the findings span databases', () => {
    const other = { ...clustered('events', '1.00', 1), target: { db: 'shop', collection: 'events', path: '_id' } };
    const t = formatText(resultOf([clustered('events', '1.00', 1), other]), { color: false });
    expect(t).toContain('ℹ info  2 collections › _id  id-pattern');
    expect(t).toContain('app.events, shop.events: ');
  });
});

describe("a member's verdict in a collapsed entry", () => {
  it("says what the experiment showed (the confirmation's brief) when it has one, else the ratio", () => {
    const ratio = {
      label: 'insert time, with / without the validator',
      median: 1.42,
      low: 1.36,
      high: 1.54,
      coverage: 0.9375,
    };
    const base = { status: 'supported' as const, summary: 's', measurements: [], where: 'w', durationMs: 1, ratio };
    const icons = { supported: '✔', refuted: '✖', inconclusive: '≈', 'not-run': '-', error: '!' } as const;
    expect(
      confirmationVerdict({ ...base, brief: 'every copy passes; inserts 1.4x (95% interval 1.3x–1.6x)' }, icons),
    ).toBe('✔ supported: every copy passes; inserts 1.4x (95% interval 1.3x–1.6x)');
    // 93.75% is short of 95%: a range of what was timed, never labelled 95%
    expect(confirmationVerdict(base, icons)).toBe(
      '✔ supported: insert time, with / without the validator 1.4x (range timed, too few blocks for a 95% ' +
        'interval: 1.3x–1.6x)',
    );
    // a check reads as a check, not as a confirmed cost
    expect(
      confirmationVerdict(
        {
          ...base,
          claim: { kind: 'check', text: 't' },
          status: 'refuted',
          brief: 'the planner chose a collection scan without it',
        },
        icons,
      ),
    ).toBe('✖ check failed: the planner chose a collection scan without it');
  });
});

describe('repeated info findings collapse (Markdown, ticket)', () => {
  it('Markdown: one table row and one details entry for the group; verbose and a baseline keep each', () => {
    const md = formatMarkdown(resultOf(FINDINGS));
    const rows = md.split('\n').filter((l) => /^\| (🔴|🟡|🔵)/.test(l));
    expect(rows).toHaveLength(5);
    // Names in code spans (src/report/escape.ts): nothing a name holds becomes a link.
    expect(rows[3]).toContain('3 collections in `app` › `_id`: `events`, `logs`, `posts`');
    expect(rows[3]).toContain('`events`: ≈ inconclusive<br>`logs`: ❌ refuted');
    expect(md).toContain(
      "**For each: clustered collection (when you next create it); `--verbose` prints each finding's own**",
    );
    expect(md).toContain("_Run with `--verbose` for each collection's figures, commands and measurements._");
    expect(
      formatMarkdown(resultOf(FINDINGS), { verbose: true })
        .split('\n')
        .filter((l) => /^\| (🔴|🟡|🔵)/.test(l)),
    ).toHaveLength(7);
    const r = resultOf(FINDINGS);
    const lint = judge(r, {
      failOn: 'error',
      maxWarnings: null,
      baseline: { file: 'b.json', states: {}, accepted: 0, absent: [] },
    });
    expect(
      formatMarkdown({ ...r, lint })
        .split('\n')
        .filter((l) => /^\| (🔴|🟡|🔵)/.test(l)),
    ).toHaveLength(7);
  });

  it('the HTML report’s ticket summary gives the group one line', () => {
    const ticket = ticketSummary({ result: resultOf(FINDINGS), snapshot: snapshotOf([collectionOf('events')]) });
    const lines = ticket.split('\n').filter((l) => /^\d+\. /.test(l));
    expect(lines).toHaveLength(5);
    expect(lines[3]).toMatch(
      joinRegex(
        /^4\. \[info\] 3 collections in app › _id \(id-pattern\): events, logs, posts\. `_id` is ObjectId .* /,
        /Suggested for each: clustered collection \(when you next create it\); each finding's own is in the /,
        /report's details\. Measured: events inconclusive: clustered \/ regular insert 1\.2x \(95% interval /,
        /0\.99x–1\.6x\); logs refuted/,
      ),
    );
  });
});

describe("a group's action", () => {
  const member = (commands?: string[]) =>
    ({ recommendation: { action: 'add this validator', reason: 'r', ...(commands ? { commands } : {}) } }) as never;
  it("says where the members' own commands are when they have some, and is left as it is otherwise", () => {
    expect(actionForEach({ action: 'add this validator', findings: [member(['x']), member(['y'])] }, 'see each')).toBe(
      'add this validator; see each',
    );
    expect(actionForEach({ action: 'add this validator', findings: [member(), member()] }, 'see each')).toBe(
      'add this validator',
    );
    expect(actionForEach({ action: null, findings: [member(['x'])] }, 'see each')).toBeNull();
  });
});

describe('what a group says', () => {
  it('keeps the words every first sentence shares and marks the rest with …', () => {
    expect(gistOf(['A is 1 here. More.', 'A is 2 here. Other.', 'A is 1 here.'])).toBe('A is … here.');
    expect(
      gistOf([
        'No validator: nothing stops a write. Proposed from 120.',
        'No validator: nothing stops a write. Proposed from 20.',
      ]),
    ).toBe('No validator: nothing stops a write.');
    expect(gistOf(['Array `a` (e.g. x) has 3. Then.', 'Array `b` (e.g. y) has 3.'])).toBe('Array `…` (e.g. …) has 3.');
    expect(
      gistOf(['12 collections named `tenant_{id}_events` (1.00):', '3 collections named `tenant_{id}_logs` (0.98):']),
    ).toBe('… collections named `tenant_{id}…` (…):');
  });

  it('groups only info findings of one rule and message id, two or more', () => {
    const kinds = groupFindings(FINDINGS).map((e) =>
      e.kind === 'group' ? `group:${e.findings.length}` : e.finding.severity,
    );
    expect(kinds).toEqual(['error', 'warn', 'warn', 'group:3', 'info']);
    expect(groupFindings(FINDINGS, { verbose: true })).toHaveLength(7);
  });

  it('variants of one rule that open with the same sentence collapse together (a sample and a whole read)', () => {
    const validator = (collection: string, messageId: string, from: string): Finding => ({
      ruleId: 'validator',
      messageId,
      severity: 'info',
      target: { db: 'app', collection },
      message: `No validator: nothing stops a write from dropping a field or changing its type. Proposed from ${from}.`,
      evidence: {},
      recommendation: { action: 'add this validator (strict, error)', reason: 'r' },
      docsUrl: 'https://www.mongodb.com/docs/manual/core/schema-validation/',
    });
    const entries = groupFindings([
      validator('a', 'missingComplete', 'every document'),
      validator('b', 'missing', 'a random sample'),
      validator('c', 'missing', 'a random sample'),
    ]);
    expect(entries).toHaveLength(1);
    const g = entries[0];
    expect(g?.kind === 'group' ? g.findings.map((f) => f.target.collection) : []).toEqual(['a', 'b', 'c']);
    // different openings stay apart
    const apart = groupFindings([
      validator('a', 'missing', 'x'),
      { ...validator('b', 'missingOrdered', 'x'), message: 'Another opening. Then.' },
    ]);
    expect(apart.map((e) => e.kind)).toEqual(['finding', 'finding']);
  });
});

describe('the noun of a group', () => {
  it('two findings of one collection are findings, not collections', () => {
    const shape = (id: string): Finding => ({
      ruleId: 'query-indexes',
      messageId: 'regexCaseInsensitive',
      severity: 'info',
      target: { db: 'shop', collection: 'orders', path: `shape ${id}` },
      message: 'db.orders.find({ sku: /…/i }) matches `sku` with a case-insensitive regex: no index bounds it.',
      evidence: {},
      docsUrl: 'https://www.mongodb.com/docs/manual/reference/operator/query/regex/',
    });
    const text = formatText(checkResultOf([shape('38ae2aaccd56373b'), shape('9c7c9dbd19f5619c')]), { color: false });
    expect(text).toContain('2 findings in shop');
    expect(text).toContain('orders › shape 38ae2aaccd56373b, orders › shape 9c7c9dbd19f5619c');
    expect(text).not.toContain('collections in shop');
  });
});
