/**
 * Every message variant of every rule's confirmation, scanned against its verdict (issue 17): the id of a variant says
 * the verdict it is written for, and its words may not contradict it ("refuted … so the result is inconclusive",
 * "supported … not borne out"); and for each rule's claim, the figure a verdict is printed with lies where the verdict
 * says (no "supported" beside an interval outside the claim), the boundaries included.
 */
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';
import { pushClaim } from '../rules/array-growth/confirm';
import { trapClaim } from '../rules/clustered-trap/confirm';
import { accessClaim } from '../rules/collection-count/confirm';
import { gainClaim } from '../rules/compression/confirm';
import { mapClaim } from '../rules/dynamic-keys/confirm';
import { mixClaim, readsClaim } from '../rules/embed-reference/confirm';
import { againstClaim, scanClaim } from '../rules/id-pattern/confirm';
import { dropClaim } from '../rules/index-usage/confirm';
import { costClaim } from '../rules/validator/confirm';
import { withdrawn } from '../src/confirm';
import { figure, judge, MESSAGE_PREFIXES, NOISE_MARGIN, noisePercent } from '../src/confirm/verdict';
import { fillTemplate } from '../src/core/format';
import { prng } from '../src/core/stats';
import type { RatioClaim, RatioInterval, Verdict } from '../src/core/types';

/** Words a sentence written for a verdict may not hold. */
const FORBIDDEN: Record<(typeof MESSAGE_PREFIXES)[number], RegExp[]> = {
  supported: [
    /refut/i,
    /inconclusive/i,
    /not borne out/i,
    /not shown/i,
    /does not hold/i,
    /check failed/i,
    /confirmed/i,
    /withdrawn/i,
    /costs little/i,
  ],
  refuted: [
    /\bsupported\b/i,
    /inconclusive/i,
    /confirmed/i,
    /claim that \{\{claim\}\} holds/i,
    /check passed/i,
    /costs little/i,
    /not shown/i,
  ],
  // an interval within the noise margin of the size need not hold it: no "the interval holds 1x" under an inconclusive
  inconclusive: [
    /\bsupported\b/i,
    /refut/i,
    /confirmed/i,
    /does not hold/i,
    /check (passed|failed)/i,
    /claim that \{\{claim\}\} holds/i,
    /costs little/i,
    /\binterval\b[^.]*\bhold(s|ing)?\b/i,
  ],
  measured: [
    /\bsupported\b/i,
    /refut/i,
    /inconclusive/i,
    /confirmed/i,
    /not borne out/i,
    /check (passed|failed)/i,
    /\bholds\b/i,
    /costs little/i,
  ],
  notRun: [/\bsupported\b/i, /refut/i, /confirmed/i, /check (passed|failed)/i],
  error: [/\bsupported\b/i, /refut/i, /confirmed/i, /check (passed|failed)/i],
};

const prefixOf = (id: string): (typeof MESSAGE_PREFIXES)[number] | undefined =>
  MESSAGE_PREFIXES.find((p) => id.startsWith(p));

describe('confirmation messages: every variant against its verdict', () => {
  const withExperiments = rules.filter((r) => r.confirm);

  it('every rule with an experiment words it with message variants', () => {
    expect(withExperiments.length).toBeGreaterThanOrEqual(9);
    for (const r of withExperiments) expect(Object.keys(r.confirm?.messages ?? {}).length, r.id).toBeGreaterThan(2);
  });

  for (const r of withExperiments) {
    it(`${r.id}: each id names its verdict, and no sentence contradicts it`, () => {
      const messages = r.confirm?.messages ?? {};
      for (const [id, text] of Object.entries(messages)) {
        const prefix = prefixOf(id);
        expect(prefix, `${r.id}.${id}: the id must start with one of ${MESSAGE_PREFIXES.join(', ')}`).toBeDefined();
        for (const word of FORBIDDEN[prefix as keyof typeof FORBIDDEN]) expect(text, `${r.id}.${id}`).not.toMatch(word);
      }
      // a rule that can decide has a sentence for each verdict
      const verdicts = new Set(Object.keys(messages).map(prefixOf));
      for (const v of ['supported', 'refuted', 'inconclusive'] as const)
        expect(verdicts.has(v), `${r.id} has no ${v} sentence`).toBe(true);
    });
  }

  it('the scan fails on the contradictions issue 17 found', () => {
    const hits = (prefix: keyof typeof FORBIDDEN, text: string): boolean => FORBIDDEN[prefix].some((w) => w.test(text));
    expect(hits('refuted', 'Writes took 20% longer, so the result is inconclusive.')).toBe(true);
    expect(hits('supported', 'Validation costs little: writes took 1.65x.')).toBe(true);
    expect(hits('supported', 'The collection count is not borne out.')).toBe(true);
    expect(hits('measured', 'inserts took 0.99x, within noise: confirmed')).toBe(true);
    expect(hits('inconclusive', 'The interval holds 1x, so whether {{claim}} is not shown either way.')).toBe(true);
    expect(
      hits('inconclusive', 'An interval holds {{costlyRatio}}x, so whether it {{claim}} is not shown either way.'),
    ).toBe(true);
    expect(
      hits('inconclusive', 'The interval reaches within {{margin}} of 1x, so whether {{claim}} is not shown.'),
    ).toBe(false);
  });
});

/** For each rule's claim (at its default options): the sentence that prints the figure and the verdict's sentence. */
const CLAIMS: {
  rule: string;
  claim: RatioClaim;
  figureId: string;
  figureData: Record<string, string | number>;
  verdictIds: Record<Verdict, string>;
}[] = [
  {
    rule: 'validator',
    claim: costClaim({ costlyRatio: 2 }),
    figureId: 'measuredInserts',
    figureData: { what: 'the proposed validator', inserted: 500, words: 'w' },
    verdictIds: { supported: 'supportedCost', refuted: 'refutedCost', inconclusive: 'inconclusiveCost' },
  },
  {
    rule: 'index-usage',
    claim: dropClaim('`a_1`'),
    figureId: 'measuredInserts',
    figureData: { batch: 500, allTime: '9 ms', lessTime: '8 ms', less: 'without a_1' },
    verdictIds: { supported: 'supportedCost', refuted: 'refutedCost', inconclusive: 'inconclusiveCost' },
  },
  {
    rule: 'collection-count',
    claim: accessClaim('tenant'),
    figureId: 'measuredAccess',
    figureData: { what: 'w', indexes: '1 plain secondary index', n: 40, separate: '9 ms', folded: '8 ms', rounds: 14 },
    verdictIds: { supported: 'supportedAccess', refuted: 'refutedAccess', inconclusive: 'inconclusiveAccess' },
  },
  {
    rule: 'array-growth',
    claim: pushClaim(10_000),
    figureId: 'measuredPush',
    figureData: { item: 'one real element', length: '10,000', push: '9 ms', insert: '1 ms' },
    verdictIds: { supported: 'supportedPush', refuted: 'refutedPush', inconclusive: 'inconclusivePush' },
  },
  {
    rule: 'dynamic-keys',
    claim: mapClaim(),
    figureId: 'measuredFinds',
    figureData: { keys: 20, matches: 40, map: '9 ms', pairs: '1 ms', rounds: 14 },
    verdictIds: { supported: 'supportedMap', refuted: 'refutedMap', inconclusive: 'inconclusiveMap' },
  },
  {
    rule: 'embed-reference',
    claim: readsClaim(),
    figureId: 'measuredReads',
    figureData: { embedded: '9 ms', referenced: '12 ms', reads: 10 },
    verdictIds: { supported: 'supportedEmbed', refuted: 'refutedEmbed', inconclusive: 'inconclusiveEmbed' },
  },
  {
    rule: 'embed-reference',
    claim: mixClaim(),
    figureId: 'measuredMix',
    figureData: { mix: '18 reads, 1 insert, 1 update', calls: 'c', embedded: '9 ms', referenced: '12 ms' },
    verdictIds: { supported: 'supportedEmbedBoth', refuted: 'refutedEmbed', inconclusive: 'inconclusiveEmbed' },
  },
  {
    rule: 'id-pattern',
    claim: scanClaim(),
    figureId: 'measuredRuns',
    figureData: { ids: 'new ObjectIds', what: 'w', insert: '1.0x', c: '9 ms', r: '9 ms', scanned: '50 documents each' },
    verdictIds: { supported: 'supportedScan', refuted: 'refutedScan', inconclusive: 'inconclusiveScan' },
  },
  {
    rule: 'id-pattern',
    claim: againstClaim(),
    figureId: 'measuredRuns',
    figureData: { ids: 'random UUID v4', what: 'w', scan: '1.0x', c: '9 ms', r: '9 ms', scanned: '50 documents each' },
    verdictIds: {
      supported: 'supportedAgainstInserts',
      refuted: 'refutedAgainst',
      inconclusive: 'inconclusiveAgainst',
    },
  },
  {
    rule: 'clustered-trap',
    claim: trapClaim(10),
    figureId: 'measuredTime',
    figureData: { op: 'find', what: 'two single-_id finds', a: '9 ms', b: '1 ms' },
    verdictIds: { supported: 'supportedTrap', refuted: 'refutedTrap', inconclusive: 'inconclusiveTrap' },
  },
  {
    rule: 'compression',
    claim: gainClaim(1.3),
    figureId: 'measuredSizes',
    figureData: { docs: 500, collection: 'c', current: '9 MiB', codec: 'snappy', zstd: '6 MiB', flush: 'fsync' },
    verdictIds: { supported: 'supportedGain', refuted: 'refutedGain', inconclusive: 'inconclusiveGain' },
  },
];

/** The ends of the first "…x–…x" interval in a text, or of an exact figure "1.3x". */
function printedEnds(text: string): [number, number] {
  const num = (s: string | undefined): number => Number((s ?? '').replace(/,/g, ''));
  const m = /([\d,.]+)x–([\d,.]+)x/.exec(text);
  if (m) return [num(m[1]), num(m[2])];
  const one = /([\d,.]+)x smaller/.exec(text) ?? /([\d,.]+)x/.exec(text);
  return [num(one?.[1]), num(one?.[1])];
}

/** A rule's template filled (a missing template fails the test: its id was renamed or dropped). */
function fill(template: string | undefined, data: Record<string, string | number>): string {
  expect(template).toBeDefined();
  return fillTemplate(template ?? '', data);
}

describe('confirmation messages: the printed figure lies where the verdict says', () => {
  for (const c of CLAIMS) {
    it(`${c.rule}: ${c.claim.text}`, () => {
      const messages = rules.find((r) => r.id === c.rule)?.confirm?.messages ?? {};
      const rnd = prng(c.claim.size * 1000);
      const exact = c.rule === 'compression';
      const seen = new Set<Verdict>();
      for (let k = 0; k < 1000; k++) {
        // intervals around the claim's size, the boundary itself among them
        const low = k % 50 === 0 ? c.claim.size : c.claim.size * (0.85 + 0.3 * rnd());
        const high = exact ? low : k % 50 === 1 ? c.claim.size : low * (1 + 0.15 * rnd());
        const r: RatioInterval = {
          median: (low + high) / 2,
          low: Math.min(low, high),
          high: Math.max(low, high),
          ...(exact ? {} : { coverage: 0.96 }),
        };
        const v = judge(c.claim, r);
        seen.add(v);
        const fig = figure(r, c.claim);
        const values = {
          claim: c.claim.text,
          costlyRatio: 2,
          costly: '100%',
          size: c.claim.size,
          margin: noisePercent(),
        };
        const figures = { ...c.figureData, figure: fig, gain: fig, insert: fig, scan: fig };
        const text = `${fill(messages[c.figureId], figures)} ${fill(messages[c.verdictIds[v]], values)}`;
        expect(text).not.toMatch(/\{\{/);
        const [lo, hi] = printedEnds(fig);
        // a timed interval decides only beyond the noise margin; an exact figure on either side of the size
        const m = exact ? 1 : NOISE_MARGIN;
        const onClaimSide = c.claim.direction === 'above' ? lo > c.claim.size * m : hi < c.claim.size / m;
        const onOtherSide = c.claim.direction === 'above' ? hi < c.claim.size / m : lo > c.claim.size * m;
        if (v === 'supported') expect(onClaimSide, `${v}: ${text}`).toBe(true);
        if (v === 'refuted') expect(onOtherSide, `${v}: ${text}`).toBe(true);
        if (v === 'inconclusive') expect(onClaimSide || onOtherSide, `${v}: ${text}`).toBe(false);
      }
      expect([...seen].sort()).toEqual(['inconclusive', 'refuted', 'supported']);
    });
  }

  it('an interval short of 95% is never supported, whatever it holds', () => {
    for (const c of CLAIMS.filter((x) => x.rule !== 'compression')) {
      const far = c.claim.direction === 'above' ? c.claim.size * 10 : c.claim.size / 10;
      expect(judge(c.claim, { low: far * 0.9, high: far * 1.1, coverage: 0.9375 }), c.rule).toBe('inconclusive');
    }
  });

  it('a refuted recommendation is withdrawn: reworded, without its commands', () => {
    const w = withdrawn({ action: 'drop the index', reason: 'no query uses it', commands: ['db.c.dropIndex("a_1")'] });
    expect(w.action).toBe('Withdrawn: drop the index');
    expect(w.reason).toContain('refuted');
    expect(w.reason).toContain('no query uses it');
    expect(w.commands).toBeUndefined();
  });
});
