import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * test/snapshot-shape.ts proves with the compiler that the snapshot's types and its JSON Schema agree. Here the two
 * sources are edited in memory, one side at a time, and the proof must fail on each edit (and pass on neither).
 */
const ROOT = join(__dirname, '..');
const CHECKS = join(ROOT, 'test', 'snapshot-shape.ts');
const TYPES = join(ROOT, 'src', 'core', 'types.ts');
const SCHEMA = join(ROOT, 'src', 'core', 'snapshot-file.ts');

const options: ts.CompilerOptions = {
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  types: ['node'],
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
};

let previous: ts.Program | undefined;

/** The lines of test/snapshot-shape.ts (0-based) that fail to compile with `file`'s text edited by `edit`. */
function failingChecks(file?: string, edit?: (text: string) => string): number[] {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    if (file === undefined || edit === undefined || join(name) !== file) return read(name, version, onError, create);
    const text = readFileSync(file, 'utf8');
    const edited = edit(text);
    if (edited === text) throw new Error(`the planted edit did not apply to ${file}`);
    return ts.createSourceFile(name, edited, version);
  };
  const program = ts.createProgram([CHECKS], options, host, previous);
  previous = program;
  const checks = program.getSourceFile(CHECKS) as ts.SourceFile;
  // Only this file's diagnostics: the checker reads the rest as far as the checks need it.
  const lines = [...program.getSyntacticDiagnostics(checks), ...program.getSemanticDiagnostics(checks)]
    .filter((d) => d.start !== undefined)
    .map((d) => (d.file as ts.SourceFile).getLineAndCharacterOfPosition(d.start as number).line);
  return [...new Set(lines)];
}

/** The line of test/snapshot-shape.ts that checks `name`. */
function checkLine(name: string): number {
  const i = readFileSync(CHECKS, 'utf8')
    .split('\n')
    .findIndex((l) => l.trimStart().startsWith(`${name}: true`));
  if (i < 0) throw new Error(`no check named ${name}`);
  return i;
}

describe('the snapshot types and JSON Schema cannot drift apart', () => {
  it('agree as written', () => {
    expect(failingChecks()).toEqual([]);
  });

  it('fails when the schema gains a field the type lacks', () => {
    const edit = (s: string): string =>
      s.replace('ruleId: str, collector: str }', 'ruleId: str, collector: str, planted: str }');
    expect(failingChecks(SCHEMA, edit)).toContain(checkLine('note'));
  });

  it('fails when the type gains a field the schema lacks', () => {
    const edit = (s: string): string =>
      s.replace('  medianKeys: number;\n', '  medianKeys: number;\n  planted?: string;\n');
    expect(failingChecks(TYPES, edit)).toContain(checkLine('dynamicKey'));
  });

  it('fails when only the schema makes a field required', () => {
    const edit = (s: string): string =>
      s.replace("required: ['level', 'message']", "required: ['level', 'message', 'ruleId']");
    expect(failingChecks(SCHEMA, edit)).toContain(checkLine('note'));
  });

  it('fails when only the type changes an enum or a field type', () => {
    const level = (s: string): string => s.replace("level: 'info' | 'skipped' | 'error';", "level: 'info' | 'error';");
    expect(failingChecks(TYPES, level)).toContain(checkLine('note'));
    const count = (s: string): string => s.replace('  count: number;\n', '  count: string;\n');
    expect(failingChecks(TYPES, count)).toContain(checkLine('stats'));
  });

  it('checks the whole snapshot, not only the named parts', () => {
    const edit = (s: string): string => s.replace('  roundTrips: number;\n', '  roundTrips?: number;\n');
    expect(failingChecks(TYPES, edit)).toEqual([checkLine('snapshot')]);
  });
});
