import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');

/** Writes a probe file that crosses a layer, lints it with the project's config, and removes it. */
async function restrictedImports(dir: string, source: string): Promise<string[]> {
  const file = join(ROOT, dir, `__layer_probe_${randomBytes(4).toString('hex')}.ts`);
  writeFileSync(file, `${source}\nexport const probe = x;\n`);
  try {
    const [result] = await new ESLint({ cwd: ROOT }).lintFiles([file]);
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  } finally {
    rmSync(file, { force: true });
  }
}

describe('npm run lint keeps the layers', () => {
  it('fails a rule that imports another rule', async () => {
    expect(await restrictedImports('rules/array-growth', "import x from '../validator/index';")).toEqual([expect.stringMatching(/A rule never imports another rule/)]);
  });

  it('fails the engine importing a rule or the rule list, and a collector loading the embedded servers', async () => {
    expect(await restrictedImports('src/collect', "import x from '../../rules/validator';")).toEqual([expect.stringMatching(/The engine never imports rules\//)]);
    expect(await restrictedImports('src/core', "import { rules as x } from '../../rules';")).toEqual([expect.stringMatching(/The engine never imports rules\//)]);
    expect(await restrictedImports('src/report', "import { rules as x } from '../../rules/index';")).toEqual([expect.stringMatching(/The engine never imports rules\//)]);
    expect(await restrictedImports('src/collect', "import { startServer as x } from '../servers/embedded';")).toEqual([expect.stringMatching(/never loads a front door/)]);
  });

  it('fails a front door importing a single rule, and lets it import the list', async () => {
    expect(await restrictedImports('src/cli', "import x from '../../rules/validator';")).toEqual([expect.stringMatching(/never one rule's folder/)]);
    expect(await restrictedImports('src/cli/commands', "import x from '../../../rules/validator/index';")).toEqual([expect.stringMatching(/never one rule's folder/)]);
    expect(await restrictedImports('src/cli', "import { rules as x } from '../../rules';")).toEqual([]);
    expect(await restrictedImports('src/mongosh', "import { rules as x } from '../../rules/index';")).toEqual([]);
  });

  it('fails a reporter that reaches into confirm', async () => {
    expect(await restrictedImports('src/report', "import { Scratch as x } from '../confirm/scratch';")).toEqual([expect.stringMatching(/Reporters only format/)]);
  });

  it('keeps src/workload to src/core and src/lib', async () => {
    const only = [expect.stringMatching(/imports only src\/core and src\/lib/)];
    expect(await restrictedImports('src/workload', "import { readOnly as x } from '../adapters/read-only';")).toEqual(only);
    expect(await restrictedImports('src/workload', "import { rules as x } from '../../rules';")).toEqual(only);
    expect(await restrictedImports('src/workload', "import { formatKey as x } from '../lib/index-keys';")).toEqual([]);
  });

  it('lets the allowed imports through', async () => {
    expect(await restrictedImports('rules/array-growth', "import { formatBytes as x } from '../../src/core/format';")).toEqual([]);
  });
}, 120_000);
