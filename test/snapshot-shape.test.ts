import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The snapshot's types and the collectors' data types are derived from their JSON Schemas: one source. Here a schema
 * is edited in memory and a probe using the types is compiled against it: a field added to the schema is in the type,
 * a field made required must be given, and a field the schema lacks does not compile. test/snapshot-shape.ts holds
 * the checks of what the derived types are as written.
 */
const ROOT = join(__dirname, '..');
const CHECKS = join(ROOT, 'test', 'snapshot-shape.ts');
const PROBE = join(ROOT, 'test', '__shape_probe.ts');
const SCHEMA = join(ROOT, 'src', 'core', 'snapshot-schema.ts');
const ID_PROFILE = join(ROOT, 'rules', 'id-pattern', 'id-profile.ts');

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

/** The messages of the errors in `root` (the probe's text, or the checks file), with `file` edited by `edit`. */
function errors(root: { probe: string } | 'checks', file?: string, edit?: (text: string) => string): string[] {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    if (root !== 'checks' && join(name) === PROBE) return ts.createSourceFile(name, root.probe, version);
    if (file === undefined || edit === undefined || join(name) !== file) return read(name, version, onError, create);
    const text = readFileSync(file, 'utf8');
    const edited = edit(text);
    if (edited === text) throw new Error(`the planted edit did not apply to ${file}`);
    return ts.createSourceFile(name, edited, version);
  };
  const hostFileExists = host.fileExists.bind(host);
  host.fileExists = (name) => join(name) === PROBE || hostFileExists(name);
  const target = root === 'checks' ? CHECKS : PROBE;
  const program = ts.createProgram([target], options, host, previous);
  previous = program;
  const source = program.getSourceFile(target) as ts.SourceFile;
  // Only this file's diagnostics: the checker reads the rest as far as the file needs it.
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}

const probe = (body: string): { probe: string } => ({
  probe:
    "import type { Note, Snapshot } from '../src/core/types';\n" +
    "import type { IdProfile } from '../rules/id-pattern/id-profile';\n" +
    body,
});

const NOTE_PLANTED = probe("export const n: Note = { level: 'info', message: 'm', planted: 'p' };\n");
const NOTE_BARE = probe("export const n: Note = { level: 'info', message: 'm' };\n");
const SNAPSHOT_PLANTED = probe('export const p = (s: Snapshot): string => s.databases[0]!.collections[0]!.planted;\n');
const ID_PLANTED = probe('export const p = (d: IdProfile): number | undefined => d.planted;\n');

const plantInNote = (s: string): string =>
  s.replace(
    "    level: { enum: ['info', 'skipped', 'error'] },\n",
    "    level: { enum: ['info', 'skipped', 'error'] },\n    planted: str,\n",
  );

describe('the snapshot types are derived from its JSON Schema', () => {
  it('compile as written, with the checks of test/snapshot-shape.ts', () => {
    expect(errors('checks')).toEqual([]);
    expect(errors(NOTE_BARE)).toEqual([]);
  });

  it('a field the schema lacks does not compile', () => {
    expect(errors(NOTE_PLANTED).join('\n')).toMatch(/'planted' does not exist in type/);
    expect(errors(SNAPSHOT_PLANTED).join('\n')).toMatch(/Property 'planted' does not exist/);
  });

  it('a field added to the schema is in the type, optional unless required', () => {
    expect(errors(NOTE_PLANTED, SCHEMA, plantInNote)).toEqual([]);
    expect(errors(NOTE_BARE, SCHEMA, plantInNote)).toEqual([]);
    const required = (s: string): string =>
      plantInNote(s).replace("required: ['level', 'message']", "required: ['level', 'message', 'planted']");
    expect(errors(NOTE_BARE, SCHEMA, required).join('\n')).toMatch(/'planted' is missing/);
  });

  it('reaches the nested types: a collection field planted in the schema is on the snapshot type', () => {
    const plant = (s: string): string =>
      s.replace("    capped: { type: 'boolean' },\n", "    capped: { type: 'boolean' },\n    planted: str,\n");
    const got = errors(SNAPSHOT_PLANTED, SCHEMA, plant);
    // optional in the schema, so `string | undefined` where a string is wanted: the field is there, typed
    expect(got.join('\n')).not.toMatch(/does not exist/);
    expect(got.join('\n')).toMatch(/'string \| undefined' is not assignable to type 'string'/);
  });

  it("a collector's data type follows its schema (id-pattern's `_id` profile)", () => {
    expect(errors(ID_PLANTED).join('\n')).toMatch(/Property 'planted' does not exist/);
    const plant = (s: string): string =>
      s.replace(
        "    uuidStrings: { type: 'integer', minimum: 0 },\n",
        "    uuidStrings: { type: 'integer', minimum: 0 },\n    planted: { type: 'integer' },\n",
      );
    expect(errors(ID_PLANTED, ID_PROFILE, plant)).toEqual([]);
  });
});
