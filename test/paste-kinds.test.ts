/**
 * The paste test's guard: every method a printed command calls, read from the source, is one the paste test pastes
 * and judges on the server (test/paste-safe.e2e.test.ts), or is listed with the reason it is not
 * (test/support/paste-kinds.ts). A rule that starts printing a new kind of command fails here first.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_PASTED, PASTED_KINDS, printedMethods } from './support/paste-kinds';

const ROOT = join(__dirname, '..');

describe('the paste test covers every kind of command the project prints', () => {
  const found = printedMethods(ROOT);
  const known = new Set<string>([...PASTED_KINDS, ...Object.keys(NOT_PASTED)]);

  it('reads the builders of the rules and the engine', () => {
    // The kinds issue 26 names, found where they are built: the reading itself works.
    for (const m of ['createIndex', 'hideIndex', 'dropIndex', 'collMod', 'updateMany', 'aggregate', 'countDocuments'])
      expect([...found.keys()], m).toContain(m);
  });

  it('finds no method the paste test neither pastes nor explains', () => {
    const unknown = [...found].filter(([m]) => !known.has(m)).map(([m, files]) => `${m} (${[...files].join(', ')})`);
    expect(unknown, 'paste these in test/paste-safe.e2e.test.ts, or say in NOT_PASTED why not').toEqual([]);
  });

  it('lists no method the source no longer prints', () => {
    const base = (k: string) => k.split(' ')[0] ?? k;
    expect([...known].filter((k) => !found.has(base(k)))).toEqual([]);
  });

  it('fails on a planted new kind', () => {
    // A rule printing `deleteMany` through the builder, and one splicing `drop` after a collection it built.
    const planted = printedMethods(ROOT, {
      'rules/planted/index.ts':
        "import { shellCall, shellCollection } from '../../src/lib/shell';\n" +
        "export const a = shellCall(db, c.name, 'deleteMany', { at: 1 });\n" +
        'export const b = `${shellCollection(db, c.name)}.drop()`;\n',
    });
    expect([...planted.keys()].filter((m) => !known.has(m))).toEqual(['deleteMany', 'drop']);
  });
});
