import type { ExplainedRun } from './collect';

/**
 * Whether explain read far more documents than the $in asked for: more than `ratio` documents examined per value asked
 * (the rule's examinedRatio option). Pure: analyze and the confirmation's scratch plans judge the same way.
 */
export function readsFar(run: ExplainedRun | null, asked: number, ratio: number): run is ExplainedRun {
  return run !== null && run.docsExamined > ratio * asked;
}
