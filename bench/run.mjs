// Runs one bench: bundles bench/<name>.ts with esbuild (as scripts/build.mjs bundles the product) and
// requires the bundle in this process, so node flags (--expose-gc, --cpu-prof) apply to the bench itself.
//   node bench/run.mjs <name> [args...]
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const name = process.argv[2];
const entry = name ? path.join(root, 'bench', `${name}.ts`) : '';
if (!name || !/^[a-z0-9-]+$/.test(name) || !existsSync(entry)) {
  console.error(
    `usage: node bench/run.mjs <name> [args...], where bench/<name>.ts exists (got ${JSON.stringify(name ?? '')})`,
  );
  process.exit(2);
}

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// Under the repository (ignored by git) so `require` of external packages finds node_modules.
const outfile = path.join(root, '.cache', 'bench', `${name}.cjs`);
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  logLevel: 'warning',
  define: { __VERSION__: JSON.stringify(pkg.version) },
});

// The bench reads its own arguments from process.argv.slice(2).
process.argv.splice(2, 1);
createRequire(import.meta.url)(outfile);
