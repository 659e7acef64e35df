/**
 * Lists every skipped test at the end of the run with its project (the server) and the reason it gave through
 * `ctx.skip(reason)`, so a capability that is missing is visible, never a silent pass.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const project = test.project.name ? `[${test.project.name}] ` : '';
        const note =
          result.note ??
          (test.options.mode === 'skip'
            ? "skipped by a static condition (see the file's log line)"
            : 'no reason given');
        lines.push(`  ${project}${mod.moduleId.replace(`${process.cwd()}/`, '')} › ${test.fullName}: ${note}`);
      }
    }
    process.stdout.write(
      lines.length
        ? `\nSkipped tests (${lines.length}), with reasons:\n${lines.join('\n')}\n`
        : '\nSkipped tests: none\n',
    );
  }
}
