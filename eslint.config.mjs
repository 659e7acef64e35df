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
  // Layers (docs/architecture.md): the engine names no rule but in its one registry; a rule never imports another
  // rule (shared helpers live in src/lib); reporters only format (no confirm, collect, adapter or spec internals);
  // the core never loads a front door or the embedded test servers. Each file group gets one list (later entries
  // would replace earlier ones for the same file).
  ...layers(),
);

function layers() {
  const noRule = { regex: '^(\\.\\./)+rules/', message: 'src/ never imports a rule: rules are listed in src/core/registry.ts only; shared helpers go to src/lib.' };
  const noOtherRule = { regex: '^\\.\\./[^./]', message: 'A rule never imports another rule: move what both need to src/lib.' };
  const noFrontDoor = { regex: '(^|/)(cli|mongosh|demo|servers)(/|$)', message: 'The core never loads a front door (cli, mongosh), the demo or the embedded test servers.' };
  const formatOnly = { regex: '^\\.\\./(confirm|collect|adapters)(/|$)|^\\.\\./spec/(?!rules$)', message: 'Reporters only format a result: no confirm, collect, adapter or spec internals.' };
  const rule = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
  const core = ['src/core/**/*.ts', 'src/collect/**/*.ts', 'src/confirm/**/*.ts', 'src/adapters/**/*.ts', 'src/lib/**/*.ts'];
  return [
    { files: core, ignores: ['src/core/registry.ts', '**/*.test.ts'], rules: rule([noRule, noFrontDoor]) },
    { files: ['src/report/**/*.ts'], rules: rule([noRule, noFrontDoor, formatOnly]) },
    { files: ['src/**/*.ts'], ignores: [...core, 'src/report/**', 'src/core/registry.ts'], rules: rule([noRule]) },
    { files: ['rules/**/*.ts'], ignores: ['rules/**/*.test.ts'], rules: rule([noOtherRule, noFrontDoor]) },
    { files: ['rules/**/*.test.ts'], rules: rule([noOtherRule]) },
  ];
}
