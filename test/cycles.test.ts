import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names (`./x` is x.ts or x/index.ts), or null for a package or a missing file. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

/**
 * Every import, export-from, require and dynamic import of each file, type-only ones included (a cycle of types
 * still ties the modules together), read with the TypeScript scanner (no type check, no dependency).
 */
function importGraph(roots: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(tsFiles)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const resolved = importedFiles.map((f) => resolveSpecifier(file, f.fileName));
    graph.set(
      file,
      resolved.filter((f): f is string => f !== null),
    );
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const named = (root: string, found: string[][]): string[][] => found.map((c) => c.map((f) => relative(root, f)));

describe('no import cycles', () => {
  it('src, rules, test and bench import no module that imports them back', () => {
    const roots = ['src', 'rules', 'test', 'bench', 'scripts'].map((d) => join(ROOT, d));
    const graph = importGraph(roots);
    expect(graph.size).toBeGreaterThan(150);
    expect(named(ROOT, cycles(graph))).toEqual([]);
  });

  it('finds a planted cycle, type-only imports and index files included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
    try {
      mkdirSync(join(dir, 'rule'));
      const index = "import { a } from './analyze';\nexport type Options = { n: number };\n";
      writeFileSync(join(dir, 'rule', 'index.ts'), index);
      writeFileSync(join(dir, 'rule', 'analyze.ts'), "import type { Options } from '.';\nexport const a = 1;\n");
      writeFileSync(join(dir, 'free.ts'), "import { a } from './rule/analyze';\nimport 'node:fs';\n");
      expect(named(dir, cycles(importGraph([dir])))).toEqual([[join('rule', 'analyze.ts'), join('rule', 'index.ts')]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
