/**
 * Verdicts and their words, for every rule's experiment: the verdict comes from the numbers (`judge` in harness.ts:
 * the interval against the claim, cleared by the noise margin NOISE_MARGIN), and the sentence is picked by the verdict.
 * A rule's confirmation messages are templates whose ids start with the verdict they are written for (`supported…`,
 * `refuted…`, `inconclusive…`), with
 * `notRun…` and `error…` for experiments that did not run and `measured…` for sentences that only give figures and
 * must hold no verdict word. test/confirm-messages.test.ts scans every variant of every rule against its prefix.
 */
import { fillTemplate, formatRatioFigure } from '../core/format';
import type { MessageValue, Placeholders } from '../core/rule';
import type { Claim, RatioClaim, RatioInterval, Verdict } from '../core/types';
import { decisionEdges, judge, NOISE_MARGIN, noisePercent } from './harness';
import { ciLabel } from './trials';

export const VERDICTS: readonly Verdict[] = ['supported', 'refuted', 'inconclusive'];
/** The prefixes a confirmation message id may start with. */
export const MESSAGE_PREFIXES = ['supported', 'refuted', 'inconclusive', 'notRun', 'error', 'measured'] as const;

type DataOf<T extends string> = [Placeholders<T>] extends [never] ? [] : [Record<Placeholders<T>, MessageValue>];

/** One sentence of a rule's confirmation messages, filled with exactly its placeholders' values. */
export function say<M extends Record<string, string>, K extends keyof M & string>(
  messages: M,
  id: K,
  ...data: DataOf<M[K]>
): string {
  return fillTemplate(messages[id] as string, data[0] ?? {});
}

/** A ratio claim, its size kept apart in the printed figure. */
export function ratioClaim(direction: RatioClaim['direction'], size: number, text: string): RatioClaim {
  return { kind: 'ratio', direction, size, text };
}

export function checkClaim(text: string): Claim {
  return { kind: 'check', text };
}

/**
 * The figure of a ratio as its interval supports it, no printed end across the claim's size, nor, for a timed interval,
 * across either of its noise-margin edges (so the printed figure reads as the verdict `judge` gave it).
 */
export function figure(r: RatioInterval, claim?: Pick<RatioClaim, 'size'>, margin = NOISE_MARGIN): string {
  const apart = !claim ? [] : r.coverage === undefined ? [claim.size] : decisionEdges(claim, margin);
  return formatRatioFigure(r, ciLabel(r), apart);
}

/** Several measurements of one claim: refuted when any is, supported when all are, else inconclusive. */
export function combine(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('refuted')) return 'refuted';
  return verdicts.length > 0 && verdicts.every((v) => v === 'supported') ? 'supported' : 'inconclusive';
}

export { decisionEdges, judge, NOISE_MARGIN, noisePercent };
