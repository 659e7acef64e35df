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
  // Layers (docs/architecture.md): the engine names no rule (it takes the rule list as a parameter); only the front
  // doors (cli, mongosh, demo, the Node API in src/index.ts) import the list, rules/index.ts, and never one rule's
  // folder; a rule never imports another rule (shared helpers live in src/lib); reporters only format (no confirm,
  // collect, adapter or spec internals); the core never loads a front door or the embedded test servers. Each file
  // group gets one list (later entries would replace earlier ones for the same file).
  ...layers(),
);

function layers() {
  const noRule = { regex: '^(\\.\\./)+rules(/|$)', message: 'The engine never imports rules/: it takes the rule list as a parameter; the front doors (src/cli, src/mongosh, src/demo, src/index.ts) pass rules/index.ts in; shared helpers go to src/lib.' };
  const listOnly = { regex: '^(\\.\\./)+rules/(?!index$)', message: 'A front door imports the rule list (rules/index.ts), never one rule\'s folder.' };
  const noOtherRule = { regex: '^\\.\\./[^./]', message: 'A rule never imports another rule: move what both need to src/lib.' };
  const noFrontDoor = { regex: '(^|/)(cli|mongosh|demo|servers)(/|$)', message: 'The core never loads a front door (cli, mongosh), the demo or the embedded test servers.' };
  const workloadOnly = { regex: '^\\.\\./(?!(core|lib)/)', message: 'src/workload reads and shapes recorded queries: it imports only src/core and src/lib.' };
  const formatOnly = { regex: '^\\.\\./(confirm|collect|adapters)(/|$)|^\\.\\./spec/(?!rules$)', message: 'Reporters only format a result: no confirm, collect, adapter or spec internals.' };
  const rule = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
  const core = ['src/core/**/*.ts', 'src/collect/**/*.ts', 'src/confirm/**/*.ts', 'src/adapters/**/*.ts', 'src/lib/**/*.ts'];
  const frontDoors = ['src/cli/**/*.ts', 'src/mongosh/**/*.ts', 'src/demo/**/*.ts', 'src/index.ts'];
  return [
    { files: core, ignores: ['**/*.test.ts'], rules: rule([noRule, noFrontDoor]) },
    { files: ['src/report/**/*.ts'], rules: rule([noRule, noFrontDoor, formatOnly]) },
    { files: frontDoors, rules: rule([listOnly]) },
    { files: ['src/**/*.ts'], ignores: [...core, 'src/report/**', 'src/workload/**', ...frontDoors], rules: rule([noRule]) },
    { files: ['src/workload/**/*.ts'], rules: rule([workloadOnly]) },
    { files: ['rules/index.ts'], rules: rule([noFrontDoor]) },
    { files: ['rules/**/*.ts'], ignores: ['rules/index.ts', 'rules/**/*.test.ts'], rules: rule([noOtherRule, noFrontDoor]) },
    { files: ['rules/**/*.test.ts'], rules: rule([noOtherRule]) },
  ];
}
