import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FIRST } from '../projects';

/**
 * Starts the files known to take longest first, so the two workers end together instead of one finishing a
 * three-minute file alone at the end. vitest orders by the last run's durations when it has them (its cache); a
 * fresh clone (CI) has none and would go by file size. The list is test/projects.ts's SLOW_FIRST.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FIRST.indexOf(relative(f.project.config.root, f.moduleId).replaceAll('\\', '/'));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    // A stable sort: files off the list keep vitest's order after those on it.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map((x) => x.f);
  }
}
