import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Builds dist/: the CLI, the Node API, the mongosh core bundle and the tiny file mongosh load()s.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, chmodSync, copyFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url)));
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: false,
  logLevel: 'warning',
  define: { __VERSION__: JSON.stringify(pkg.version) },
};

mkdirSync('dist', { recursive: true });
await Promise.all([
  // CLI and Node API: dependencies stay in node_modules.
  build({
    ...common,
    entryPoints: ['src/cli/bin.ts'],
    outfile: 'dist/cli.cjs',
    packages: 'external',
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.cjs', packages: 'external' }),
  // The demo and its embedded servers, loaded by the CLI only when `demo` runs (never by check, lint or audit).
  build({ ...common, entryPoints: ['src/demo/run.ts'], outfile: 'dist/demo.cjs', packages: 'external' }),
  // mongosh: self-contained (the snippet package ships it alone); it never imports the driver.
  build({ ...common, entryPoints: ['src/mongosh/index.ts'], outfile: 'dist/advisor-core.cjs', external: ['mongodb'] }),
]);
chmodSync('dist/cli.cjs', 0o755);
// The HTML report's own script and stylesheet, read at run time beside dist/cli.cjs (Chart.js comes from its package).
mkdirSync('dist/report-html', { recursive: true });
for (const f of ['report.js', 'report.css']) copyFileSync(`src/report/html/${f}`, `dist/report-html/${f}`);

// mongosh passes load()ed files through its async rewriter; code reached by require() is left alone.
writeFileSync(
  'dist/advisor.js',
  `// mongo-advisor ${pkg.version}: load('dist/advisor.js') in mongosh defines \`advisor\`. Try advisor.help().
require('module').createRequire(__filename)('./advisor-core.cjs').install(globalThis);
`,
);

// The mongosh snippet package: built JS only (snippet install runs npm with --ignore-scripts).
mkdirSync('dist/snippet', { recursive: true });
for (const f of ['index.js', 'README.md']) copyFileSync(`snippet/${f}`, `dist/snippet/${f}`);
copyFileSync('dist/advisor-core.cjs', 'dist/snippet/advisor-core.cjs');
const snippetPkg = JSON.parse(readFileSync('snippet/package.template.json', 'utf8'));
writeFileSync('dist/snippet/package.json', `${JSON.stringify({ ...snippetPkg, version: pkg.version }, null, 2)}\n`);

// JSON Schemas of the files users write or keep (config, declared spec, snapshot), for editors' "$schema".
const schemaBundle = await build({
  ...common,
  stdin: {
    // The snapshot's schema is composed with the built-in rules' collectors (each collector's data under data.<id>).
    contents: [
      "const { snapshotJsonSchema } = require('./src/core/snapshot-file');",
      "const { collectorsOf } = require('./src/core/collector');",
      'module.exports = {',
      "  snapshot: snapshotJsonSchema(collectorsOf(require('./rules').rules)),",
      "  config: require('./src/core/config').CONFIG_JSON_SCHEMA,",
      "  spec: require('./src/spec/format').SPEC_JSON_SCHEMA,",
      '};',
    ].join('\n'),
    resolveDir: '.',
    loader: 'js',
  },
  packages: 'external',
  write: false,
});
const schemaModule = { exports: {} };
new Function('module', 'exports', 'require', '__filename', '__dirname', schemaBundle.outputFiles[0].text)(
  schemaModule,
  schemaModule.exports,
  createRequire(import.meta.url),
  fileURLToPath(import.meta.url),
  path.dirname(fileURLToPath(import.meta.url)),
);
mkdirSync('dist/schemas', { recursive: true });
for (const [name, schema] of Object.entries(schemaModule.exports))
  writeFileSync(`dist/schemas/${name}.schema.json`, `${JSON.stringify(schema, null, 2)}\n`);

// Type declarations for Node callers (package.json "types"): tsc over src/index.ts. `--skip-types` (the demo) saves
// the ~10 s this takes.
if (!process.argv.includes('--skip-types')) {
  execFileSync(
    process.execPath,
    [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.types.json'],
    { stdio: 'inherit' },
  );
}
