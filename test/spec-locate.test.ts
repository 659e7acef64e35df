/**
 * Where lint --spec's findings point in the spec file (SARIF's startLine, which GitHub annotates): a collection's
 * finding at its `name` line, an index's at the index's own entry — its `name` when it has one, else its `key` —
 * never at the collection's line (issue 28). Checked against the line each entry sits on in the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lintSpec } from '../src/spec';

const dir = mkdtempSync(join(tmpdir(), 'ma-spec-locate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The 1-based line of the first line holding `needle` at or after line `after`. */
const lineOf = (text: string, needle: string, after = 0): number =>
  text.split('\n').findIndex((l, i) => i >= after && l.includes(needle)) + 1;

describe('spec findings point at the declaring line', () => {
  const text = [
    '// the shop',
    'module.exports = {',
    "  db: 'shop',",
    '  collections: [',
    "    { name: 'orders', indexes: [",
    "      { key: { status: 1 }, name: 'by_status' },",
    "      { key: { status: 1, at: 1 }, name: 'by_status_at' },",
    '    ] },',
    "    { name: 'carts',",
    '      indexes: [',
    '        { key: { user: 1 } },',
    '        { key: { user: 1, at: 1 } },',
    '      ],',
    '    },',
    '  ],',
    '};',
    '',
  ].join('\n');
  const file = join(dir, 'spec.js');
  writeFileSync(file, text);
  const spec = lintSpec(file, null, {});
  const at = (collection: string, index?: string) => {
    const f = spec.findings.find((x) => x.target.collection === collection && x.target.index === index);
    if (!f) throw new Error(`no finding on ${collection} ${index ?? ''}: ${JSON.stringify(spec.findings)}`);
    return spec.locate(f)?.line;
  };

  it('an index with a name: the line of its name', () => {
    const src = readFileSync(file, 'utf8');
    expect(at('orders', 'by_status')).toBe(lineOf(src, "name: 'by_status'"));
    expect(at('orders', 'by_status')).not.toBe(lineOf(src, "name: 'orders'"));
  });

  it('an index without a name: the line of its key, the nth of its collection', () => {
    const src = readFileSync(file, 'utf8');
    const carts = lineOf(src, "name: 'carts'");
    expect(at('carts', 'user_1')).toBe(lineOf(src, '{ key: { user: 1 } }', carts));
    expect(at('carts', 'user_1')).toBeGreaterThan(carts);
  });
});
