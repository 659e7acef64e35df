// typescript-eslint's type-checked rules over the project's TypeScript.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '**/*.mjs', '**/*.cjs', '**/*.js'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // Issue 19: lines of at most 120 characters, Prettier's printWidth. Prettier cannot break a long string, template
  // or comment, so this catches what it leaves; only URLs may run past.
  { rules: { 'max-len': ['error', { code: 120, comments: 120, ignoreUrls: true }] } },
  // Fixtures quote servers' replies and messages verbatim (from MongoDB's docs, jstests and source): not reflowed.
  { files: ['test/fixtures/**'], rules: { 'max-len': 'off' } },
  // Issue 19: functions of at most 80 lines outside tests. Tests are left out: a vitest `describe` body is a list of
  // cases, each already its own `it`, not a function to split.
  {
    files: ['src/**/*.ts', 'rules/**/*.ts', 'bench/**/*.ts', 'scripts/**'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, IIFEs: true }] },
  },
  // Layers (docs/architecture.md, the layer table): one entry per room, each saying which rooms it may import. The
  // engine names no rule (it takes the rule list as a parameter); only the front doors (cli, mongosh, demo, the Node
  // API in src/index.ts) import the list, rules/index.ts, and never one rule's folder; a rule never imports another
  // rule (shared helpers live in src/lib) and reaches the server only through the handle its context gives it. Each
  // file group gets one list (later entries would replace earlier ones for the same file). test/layers.test.ts plants
  // a crossing import for every row.
  ...layers(),
);

/** A relative import into one of `rooms` of src/ (`../core/x` from a room, `../../src/core/x` from a rule). */
function into(rooms) {
  return `^(\\.\\./)+(src/)?(${rooms.join('|')})(/|$)`;
}

/** An import into `room` but not one of its modules `files` (`../collect/profile` passes, `../collect/sample` not). */
function intoExcept(room, files) {
  return `^(\\.\\./)+(src/)?${room}(/(?!(${files.join('|')})$)|$)`;
}

/** The front doors, the demo and the embedded servers: no engine room loads them (`noFrontDoor`). */
function frontDoorRooms() {
  return ['cli', 'mongosh', 'demo', 'servers'];
}

/** Every room of src/ a relative import can reach. */
function rooms() {
  return ['adapters', 'collect', 'confirm', 'core', 'lib', 'report', 'spec', 'workload', ...frontDoorRooms()];
}

/**
 * The engine's rooms and what each may import (the table in docs/architecture.md): `may`, whole rooms; `also`, single
 * modules of another room; `types`, rooms it may import types from only. `why` opens the message.
 */
function engineRooms() {
  return [
    { room: 'adapters', may: ['core', 'lib'] },
    // The shared workload collector (src/collect/workload.ts) reads records and shapes through the workload room.
    {
      room: 'collect',
      may: ['adapters', 'core', 'lib'],
      also: { workload: ['profiler', 'query-stats', 'record', 'shape', 'shape-stats', 'tally'] },
    },
    { room: 'core', may: ['lib'] },
    { room: 'confirm', may: ['adapters', 'core', 'lib'], also: { collect: ['profile'] } },
    { room: 'lib', may: [], types: ['core'] },
    { room: 'report', may: ['core', 'lib'], why: 'Reporters only format a result: ' },
    { room: 'spec', may: ['core', 'lib', 'workload'], also: { report: ['catalog'] } },
    { room: 'workload', may: ['core', 'lib'] },
  ];
}

/** The patterns of one engine room: every other room closed but those it may import. */
function roomPatterns({ room, may, also = {}, types = [], why = '' }) {
  const modules = Object.entries(also).flatMap(([r, files]) => files.map((f) => `${r}/${f}`));
  const allowed = [...may, ...types.map((r) => `${r} (types only)`), ...modules].join(', ') || 'nothing of ours';
  const message = `${why}src/${room} may import only ${allowed} (docs/architecture.md, the layer table).`;
  const open = [room, ...may, ...types, ...Object.keys(also), ...frontDoorRooms()];
  return [
    { regex: into(rooms().filter((r) => !open.includes(r))), message },
    ...Object.entries(also).map(([r, files]) => ({ regex: intoExcept(r, files), message })),
    ...types.map((r) => ({ regex: into([r]), allowTypeImports: true, message })),
  ];
}

/** What a rule may not import: another rule, a front door, and anything that reaches the server past its context. */
function rulePatterns() {
  const server =
    'A rule reaches the server only through the handle its context gives it (ctx.adapter, ctx.source, ctx.scratch): ' +
    'no driver, no adapter, no collect internals; cursor helpers are in src/lib/cursor.ts, Doc and Adapter in ' +
    'src/core/adapter.ts.';
  const frontDoor = 'A rule never imports a front door (cli, mongosh), the demo or the embedded servers.';
  return [
    noOtherRule(),
    { regex: into(frontDoorRooms()), message: frontDoor },
    { regex: '^mongodb(/|$)', message: server },
    { regex: into(['adapters']), message: server },
    { regex: intoExcept('collect', ['server-status', 'outliers', 'profile', 'workload']), message: server },
  ];
}

/** A rule's folder imports none of another rule's (`../<id>/…` from rules/<id>/). */
function noOtherRule() {
  return { regex: '^\\.\\./[^./]', message: 'A rule never imports another rule: move what both need to src/lib.' };
}

function layers() {
  const noRule = {
    regex: '^(\\.\\./)+rules(/|$)',
    message:
      'The engine never imports rules/: it takes the rule list as a parameter; the front doors (src/cli, ' +
      'src/mongosh, src/demo, src/index.ts) pass rules/index.ts in; shared helpers go to src/lib.',
  };
  const listOnly = {
    regex: '^(\\.\\./)+rules/(?!index$)',
    message: "A front door imports the rule list (rules/index.ts), never one rule's folder.",
  };
  const noFrontDoor = {
    regex: '(^|/)(cli|mongosh|demo|servers)(/|$)',
    message: 'The core never loads a front door (cli, mongosh), the demo or the embedded test servers.',
  };
  const rule = (patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] });
  const engine = engineRooms().map(({ room }) => `src/${room}/**/*.ts`);
  const frontDoors = ['src/cli/**/*.ts', 'src/mongosh/**/*.ts', 'src/demo/**/*.ts', 'src/index.ts'];
  const ruleFiles = { files: ['rules/**/*.ts'], ignores: ['rules/index.ts', 'rules/**/*.test.ts'] };
  return [
    ...engineRooms().map((row) => ({
      files: [`src/${row.room}/**/*.ts`],
      ignores: ['**/*.test.ts'],
      rules: rule([noRule, noFrontDoor, ...roomPatterns(row)]),
    })),
    { files: frontDoors, rules: rule([listOnly]) },
    { files: ['src/servers/**/*.ts'], rules: rule([noRule]) },
    {
      files: ['src/**/*.ts'],
      ignores: [...engine, ...frontDoors, 'src/servers/**'],
      rules: rule([noRule, noFrontDoor]),
    },
    { files: ['rules/index.ts'], rules: rule([noFrontDoor]) },
    { ...ruleFiles, rules: rule(rulePatterns()) },
    { files: ['rules/**/*.test.ts'], rules: rule([noOtherRule()]) },
  ];
}
