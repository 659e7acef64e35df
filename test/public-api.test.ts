import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');

describe('public API for Node callers', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { types?: string; main?: string; exports?: Record<string, { types?: string; require?: string }> };

  it('package.json names type declarations that declare check, collect, analyze and defineRule', () => {
    expect(pkg.types).toBeDefined();
    expect(pkg.exports?.['.']?.types).toBe(`./${pkg.types ?? ''}`);
    expect(pkg.exports?.['.']?.require).toBe(`./${pkg.main ?? ''}`);
    const dts = join(ROOT, pkg.types ?? '');
    if (!existsSync(dts)) throw new Error(`${pkg.types ?? ''} is missing: run \`npm run build\` first (npm test does it)`);
    const program = ts.createProgram([dts], { noEmit: true, skipLibCheck: true, types: ['node'] });
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(dts);
    const symbol = source && checker.getSymbolAtLocation(source);
    expect(symbol).toBeDefined();
    const exported = new Map(checker.getExportsOfModule(symbol as ts.Symbol).map((s) => [s.getName(), s]));
    for (const name of ['check', 'collect', 'analyze', 'defineRule', 'formatText', 'formatSarif', 'formatJunit', 'DriverAdapter']) {
      expect(exported.has(name), `${name} is not exported by ${pkg.types ?? ''}`).toBe(true);
    }
    // Declared as functions with their real signatures, not `any`.
    // A re-export is an alias; check, analyze and the formatters are declared in src/index.ts itself (they hand the engine the built-in rules).
    const real = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
    const typeOf = (name: string): string => checker.typeToString(checker.getTypeOfSymbol(real(exported.get(name) as ts.Symbol)));
    expect(typeOf('check')).toMatch(/^\(adapter: Adapter, opts: CheckOptions\) => Promise<CheckResult>$/);
    expect(typeOf('defineRule')).toMatch(/^<O extends Record<string, unknown>>\(rule: Rule<O>\) => Rule<O>$/);
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });

  it('the built CLI core never loads the embedded test servers (pip, Go builds, mongodb-memory-server): only dist/demo.cjs does', () => {
    for (const f of ['dist/cli.cjs', 'dist/index.cjs', 'dist/advisor-core.cjs']) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      expect(text, f).not.toMatch(/mongodb-memory-server|pip install|go build|secantusd-py/);
    }
    expect(readFileSync(join(ROOT, 'dist', 'demo.cjs'), 'utf8')).toMatch(/secantusd-py/);
  });
});
