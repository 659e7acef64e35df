import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from './support/run';

const ROOT = join(__dirname, '..');

/** One probe: a file in `dir` with `source`, and the message it must get (a pattern), or none (null: allowed). */
interface Probe {
  dir: string;
  source: string;
  fails: RegExp | null;
  /** Lint the probe as this existing file (its own config row), without writing it. */
  as?: string;
}

const row = (room: string): RegExp => new RegExp(`src/${room} may import only`);
const RULE_SERVER = /A rule reaches the server only through the handle its context gives it/;

/**
 * The lint's gates and every row of the layer table in docs/architecture.md: a crossing import that must fail, and
 * one that must pass, all linted in one ESLint run (a typed lint per probe took a minute in all).
 */
const TABLE: Record<string, Probe[]> = {
  'npm run lint fails a rule that imports another rule': [
    {
      dir: 'rules/array-growth',
      source: "import x from '../validator/index';",
      fails: /A rule never imports another rule/,
    },
  ],
  'npm run lint fails the engine importing a rule or the rule list, and a collector loading the embedded servers': [
    { dir: 'src/collect', source: "import x from '../../rules/validator';", fails: /The engine never imports rules\// },
    { dir: 'src/core', source: "import { rules as x } from '../../rules';", fails: /The engine never imports rules\// },
    {
      dir: 'src/report',
      source: "import { rules as x } from '../../rules/index';",
      fails: /The engine never imports rules\//,
    },
    {
      dir: 'src/collect',
      source: "import { startServer as x } from '../servers/embedded';",
      fails: /never loads a front door/,
    },
  ],
  'npm run lint fails a front door importing a single rule, and lets it import the list': [
    { dir: 'src/cli', source: "import x from '../../rules/validator';", fails: /never one rule's folder/ },
    {
      dir: 'src/cli/commands',
      source: "import x from '../../../rules/validator/index';",
      fails: /never one rule's folder/,
    },
    { dir: 'src/cli', source: "import { rules as x } from '../../rules';", fails: null },
    { dir: 'src/mongosh', source: "import { rules as x } from '../../rules/index';", fails: null },
  ],
  'npm run lint fails a reporter that reaches into confirm': [
    { dir: 'src/report', source: "import { Scratch as x } from '../confirm/scratch';", fails: /Reporters only format/ },
  ],
  'npm run lint lets the allowed imports through': [
    { dir: 'rules/array-growth', source: "import { formatBytes as x } from '../../src/core/format';", fails: null },
  ],
  'src/adapters may import core and lib only': [
    { dir: 'src/adapters', source: "import { sample as x } from '../collect/sample';", fails: row('adapters') },
    { dir: 'src/adapters', source: "import { formatBytes as x } from '../core/format';", fails: null },
  ],
  "src/collect may import adapters, core, lib and the workload's readers and shapes only": [
    { dir: 'src/collect', source: "import { Scratch as x } from '../confirm/scratch';", fails: row('collect') },
    { dir: 'src/collect', source: "import { readOnly as x } from '../adapters/read-only';", fails: null },
    { dir: 'src/collect', source: "import { shapesOf as x } from '../workload/shape';", fails: null },
    { dir: 'src/collect', source: "import { serveShape as x } from '../workload/serve';", fails: row('collect') },
  ],
  'src/core may import lib only': [
    { dir: 'src/core', source: "import { readOnly as x } from '../adapters/read-only';", fails: row('core') },
    { dir: 'src/core', source: "import { PathFolder as x } from '../collect/fold';", fails: row('core') },
    { dir: 'src/core', source: "import { CONFIRM_DEFAULTS as x } from '../confirm/context';", fails: row('core') },
    { dir: 'src/core', source: "import { loadSpec as x } from '../spec';", fails: row('core') },
    { dir: 'src/core', source: "import { closest as x } from '../lib/suggest';", fails: null },
  ],
  'src/confirm may import adapters, core, lib and collect/profile only': [
    { dir: 'src/confirm', source: "import { sampleCollection as x } from '../collect/sample';", fails: row('confirm') },
    { dir: 'src/confirm', source: "import { formatText as x } from '../report/text';", fails: row('confirm') },
    { dir: 'src/confirm', source: "import { Profiler as x } from '../collect/profile';", fails: null },
    { dir: 'src/confirm', source: "import { indexKeyBytes as x } from '../lib/bson-size';", fails: null },
  ],
  'src/lib may import core types only': [
    { dir: 'src/lib', source: "import type { Doc as x } from '../adapters/types';", fails: row('lib') },
    { dir: 'src/lib', source: "import { formatBytes as x } from '../core/format';", fails: row('lib') },
    {
      dir: 'src/lib',
      source: "import type { Snapshot } from '../core/types';\nconst x: Snapshot | null = null;",
      fails: null,
    },
  ],
  'src/report may import core and lib only': [
    { dir: 'src/report', source: "import { loadSpec as x } from '../spec';", fails: row('report') },
    { dir: 'src/report', source: "import { SPEC_RULES as x } from '../core/spec-rules';", fails: null },
  ],
  'src/spec may import core, lib, workload and the report catalog only': [
    { dir: 'src/spec', source: "import { PathFolder as x } from '../collect/fold';", fails: row('spec') },
    { dir: 'src/spec', source: "import { formatText as x } from '../report/text';", fails: row('spec') },
    { dir: 'src/spec', source: "import { ruleCatalog as x } from '../report/catalog';", fails: null },
    { dir: 'src/spec', source: "import { serveShape as x } from '../workload/serve';", fails: null },
    { dir: 'src/spec', source: "import { readOnly as x } from '../adapters/read-only';", fails: row('spec') },
  ],
  'src/workload may import core and lib only; rules and front doors may import it, the engine only its readers': [
    { dir: 'src/workload', source: "import { readOnly as x } from '../adapters/read-only';", fails: row('workload') },
    { dir: 'src/workload', source: "import { formatBytes as x } from '../core/format';", fails: null },
    { dir: 'src/collect', source: "import { x } from '../workload/shapes';", fails: row('collect') },
    { dir: 'src/core', source: "import { x } from '../workload';", fails: row('core') },
    { dir: 'rules/array-growth', source: "import { x } from '../../src/workload/shapes';", fails: null },
    { dir: 'src/cli', source: "import { x } from '../workload/shapes';", fails: null },
  ],
  'the embedded servers import no rule': [
    {
      dir: 'src/servers',
      source: "import { rules as x } from '../../rules';",
      fails: /The engine never imports rules\//,
    },
  ],
  'rules/index.ts imports the rule folders and core, never a front door': [
    {
      dir: 'rules',
      as: 'rules/index.ts',
      source: "import { main as x } from '../src/cli/main';",
      fails: /never loads a front door/,
    },
    { dir: 'rules', as: 'rules/index.ts', source: "import x from './validator';", fails: null },
  ],
  "a rule reaches the server only through its context's handle": [
    { dir: 'rules/array-growth', source: "import { MongoClient as x } from 'mongodb';", fails: RULE_SERVER },
    {
      dir: 'rules/array-growth',
      source: "import { driverAdapter as x } from '../../src/adapters/driver';",
      fails: RULE_SERVER,
    },
    {
      dir: 'rules/array-growth',
      source: "import { readOnly as x } from '../../src/adapters/read-only';",
      fails: RULE_SERVER,
    },
    {
      dir: 'rules/array-growth',
      source: "import { sampleCollection as x } from '../../src/collect/sample';",
      fails: RULE_SERVER,
    },
    {
      dir: 'rules/array-growth',
      source: "import { idShape as x } from '../../src/collect/id-profile';",
      fails: RULE_SERVER,
    },
    {
      dir: 'rules/array-growth',
      source: "import { main as x } from '../../src/cli/main';",
      fails: /A rule never imports a front door/,
    },
    {
      dir: 'rules/array-growth',
      source: "import { serverStatus as x } from '../../src/collect/server-status';",
      fails: null,
    },
    {
      dir: 'rules/array-growth',
      source: "import { outlierSearch as x } from '../../src/collect/outliers';",
      fails: null,
    },
    {
      dir: 'rules/array-growth',
      source: "import { queryWorkload as x } from '../../src/collect/workload';",
      fails: null,
    },
    { dir: 'rules/array-growth', source: "import { commandCursor as x } from '../../src/lib/cursor';", fails: null },
    { dir: 'rules/array-growth', source: "import { idShape as x } from '../../src/lib/id-shape';", fails: null },
  ],
};

/** Writes every probe at once, lints them in one ESLint run (in a child process), removes them and their folders. */
async function lintProbes(probes: readonly Probe[]): Promise<string[][]> {
  const made = [...new Set(probes.map((p) => p.dir))].filter((d) => !existsSync(join(ROOT, d)));
  for (const d of made) mkdirSync(join(ROOT, d), { recursive: true });
  const files = probes.map((p) => join(ROOT, p.dir, `__layer_probe_${randomBytes(4).toString('hex')}.ts`));
  try {
    const text = (p: Probe): string => `${p.source}\nexport const probe = x;\n`;
    probes.forEach((p, i) => p.as === undefined && writeFileSync(files[i]!, text(p)));
    // in a process of its own (test/support/lint-in-child.mjs): the typed lint would block this worker for a minute
    const asText = probes.flatMap((p) => (p.as === undefined ? [] : [{ text: text(p), filePath: join(ROOT, p.as) }]));
    const run = await runProcess(process.execPath, [join(__dirname, 'support', 'lint-in-child.mjs')], {
      cwd: ROOT,
      timeoutMs: 240_000,
      input: JSON.stringify({ cwd: ROOT, files: files.filter((_, i) => probes[i]!.as === undefined), texts: asText }),
    });
    expect(run.code, run.err).toBe(0);
    const linted = JSON.parse(run.out) as {
      files: Record<string, Linter.LintMessage[]>;
      texts: Linter.LintMessage[][];
    };
    let nextText = 0;
    return probes.map((p, i) => {
      const found = p.as === undefined ? linted.files[files[i]!] : linted.texts[nextText++];
      return (found ?? []).filter((m) => m.ruleId?.endsWith('no-restricted-imports')).map((m) => m.message);
    });
  } finally {
    for (const f of files) rmSync(f, { force: true });
    for (const d of made) if (readdirSync(join(ROOT, d)).length === 0) rmSync(join(ROOT, d), { recursive: true });
  }
}

describe('each row of the layer table is enforced', () => {
  const probes = Object.values(TABLE).flat();
  let messages: string[][] = [];
  beforeAll(async () => {
    messages = await lintProbes(probes);
  }, 240_000);

  for (const [name, cases] of Object.entries(TABLE)) {
    it(name, () => {
      for (const p of cases) {
        const got = messages[probes.indexOf(p)];
        const want = p.fails === null ? [] : [expect.stringMatching(p.fails)];
        expect(got, `${p.dir}: ${p.source}`).toEqual(want);
      }
    });
  }
});
