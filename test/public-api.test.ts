import { sentence } from '../src/core/rule';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { joinRegex } from './support/regex';

const ROOT = join(__dirname, '..');

describe('public API for Node callers', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    types?: string;
    main?: string;
    exports?: Record<string, { types?: string; require?: string }>;
  };

  it('package.json names type declarations that declare check, collect, analyze and defineRule', () => {
    expect(pkg.types).toBeDefined();
    expect(pkg.exports?.['.']?.types).toBe(`./${pkg.types ?? ''}`);
    expect(pkg.exports?.['.']?.require).toBe(`./${pkg.main ?? ''}`);
    const dts = join(ROOT, pkg.types ?? '');
    if (!existsSync(dts))
      throw new Error(`${pkg.types ?? ''} is missing: run \`npm run build\` first (npm test does it)`);
    const program = ts.createProgram([dts], { noEmit: true, skipLibCheck: true, types: ['node'] });
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(dts);
    const symbol = source && checker.getSymbolAtLocation(source);
    expect(symbol).toBeDefined();
    const exported = new Map(checker.getExportsOfModule(symbol as ts.Symbol).map((s) => [s.getName(), s]));
    for (const name of [
      'check',
      'collect',
      'analyze',
      'defineRule',
      'defineCollector',
      'dataOf',
      'formatText',
      'formatSarif',
      'formatJunit',
      'DriverAdapter',
    ]) {
      expect(exported.has(name), `${name} is not exported by ${pkg.types ?? ''}`).toBe(true);
    }
    // Declared as functions with their real signatures, not `any`.
    // A re-export is an alias; check, analyze and the formatters are declared in src/index.ts itself (they hand the
    // engine the built-in rules).
    const real = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
    const typeOf = (name: string): string =>
      checker.typeToString(checker.getTypeOfSymbol(real(exported.get(name) as ts.Symbol)));
    expect(typeOf('check')).toMatch(/^\(adapter: Adapter, opts: CheckOptions\) => Promise<CheckResult>$/);
    expect(typeOf('defineRule')).toMatch(
      joinRegex(
        /^<const M extends Record<string, string>, const S extends OptionsSchema>\(rule: Rule<OptionsOf<S>, M, S>\) /,
        /=> Rule<OptionsOf<S>, M, S>$/,
      ),
    );
    expect(typeOf('defineCollector')).toMatch(
      /^<D, S extends CollectorScope>\(collector: Collector<D, S>\) => Collector<D, S>$/,
    );
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual(
      [],
    );
  });

  it(
    'typed rules: a wrong message id, a placeholder left unfilled or an unknown one, and a wrong option type ' +
      'do not compile',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'mongo-advisor-types-'));
      try {
        const file = join(dir, 'rule.ts');
        const rulePath = join(ROOT, 'src', 'core', 'rule').replace(/\\/g, '/');
        // Each line marked BAD must fail to compile, and nothing else may.
        const lines = [
          `import { defineRule } from '${rulePath}';`,
          `export default defineRule({`,
          `  id: 'x', scope: 'collection',`,
          `  meta: { description: 'd', docsUrl: 'u', severity: 'warn', requires: { capabilities: [] },`,
          `    messages: { big: '{{name}} holds {{n}} items', plain: 'nothing to fill' },`,
          `    options: { type: 'object', additionalProperties: false, properties: { limit: { type: ` +
            `'integer', default: 5, description: 'd' }, mode: { type: 'string', enum: ['a', 'b'], default: 'a', ` +
            `description: 'd' } } } },`,
          `  analyze({ options, report }) {`,
          `    const t = { db: 'a' }; const evidence = {};`,
          `    report({ messageId: 'big', target: t, evidence, data: { name: 'c', n: options.limit } });`,
          `    report({ messageId: 'plain', target: t, evidence });`,
          `    const m: 'a' | 'b' = options.mode; void m;`,
          `    report({ messageId: 'nope', target: t, evidence }); // BAD: no such message`,
          `    report({ messageId: 'big', target: t, evidence, data: { name: 'c' } }); // BAD: {{n}} left unfilled`,
          sentence(
            `    report({ messageId: 'big', target: t, evidence, data: { name: 'c', n: 1, extra: 2 } }); // `,
            `BAD: no {{extra}}`,
          ),
          `    report({ messageId: 'big', target: t, evidence }); // BAD: no data at all`,
          `    const s: string = options.limit; void s; // BAD: limit is a number`,
          `  },`,
          `});`,
        ];
        writeFileSync(file, lines.join('\n'));
        const program = ts.createProgram([file], {
          noEmit: true,
          strict: true,
          skipLibCheck: true,
          types: ['node'],
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
        });
        const failing = ts
          .getPreEmitDiagnostics(program)
          .filter((d) => d.file?.fileName === file && d.start !== undefined)
          .map((d) => (d.file as ts.SourceFile).getLineAndCharacterOfPosition(d.start as number).line);
        const bad = lines.flatMap((l, i) => (l.includes('// BAD') ? [i] : []));
        expect([...new Set(failing)].sort((a, b) => a - b)).toEqual(bad);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the built CLI core never loads the embedded test servers (pip, Go builds, mongodb-memory-server): only ' +
      'dist/demo.cjs does',
    () => {
      for (const f of ['dist/cli.cjs', 'dist/index.cjs', 'dist/advisor-core.cjs']) {
        const text = readFileSync(join(ROOT, f), 'utf8');
        // the server command names the kinds (`--kind mongodb-memory-server`), which loads nothing: look for a load
        expect(text, f).not.toMatch(/(require|import)\(["'`]mongodb-memory-server|pip install|go build|secantusd-py/);
      }
      expect(readFileSync(join(ROOT, 'dist', 'demo.cjs'), 'utf8')).toMatch(/secantusd-py/);
    },
  );
});
