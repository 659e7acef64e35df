import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import compression from '../rules/compression';
import {
  codeSpan,
  laterLines,
  shellCall,
  shellCollection,
  shellKey,
  shellRunCommand,
  shellString,
  shellTemplate,
  shellValue,
} from '../src/lib/shell';
import { runRule } from './support/rule-tester';
import { collectionOf, sampleOf, snapshotOf, withData } from './support/fixtures';
import { BLOCK_BYTES, compressibility } from '../rules/compression/collect';

/** Names built to break out of a literal, a line, a comment or a code span (the issue 26 list). */
const HOSTILE = [
  'x"); db.dropDatabase(); ("\n// y',
  "'); db.dropDatabase(); ('",
  '" + db.getSiblingDB("canary").dropDatabase() + "',
  '"\ndb.getSiblingDB("canary").dropDatabase()',
  'a\u2028db.getSiblingDB("canary").dropDatabase()',
  'b\u2029c',
  'back`tick``s',
  'pi|pe',
  'a.b.c',
  'orders-2024',
  'stats',
  '\\"; db.dropDatabase(); //',
  'esc\u001b[31mred\u009b',
  'bidi\u202eevil',
  '__proto__',
  'constructor',
];

/** Parses `source` as JavaScript (as mongosh does) and returns its value; no shell globals exist, so nothing runs. */
const evaluate = (source: string): unknown => runInNewContext(`(${source})`, Object.create(null) as object);

describe('the command builder (src/lib/shell.ts)', () => {
  it.each(HOSTILE)('keeps %j one string literal: parsed back, it is the name itself', (name) => {
    const literal = shellString(name);
    expect(evaluate(literal)).toBe(name);
    // no character that ends a line for JavaScript (or a // comment), and nothing a terminal acts on
    expect(literal).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });

  it.each(HOSTILE)('names the database and collection %j as literals in every command', (name) => {
    const cmd = shellCall(name, name, 'dropIndex', name);
    expect(cmd.startsWith(`db.getSiblingDB(${shellString(name)}).getCollection(${shellString(name)})`)).toBe(true);
    const calls: unknown[][] = [];
    const collection = { dropIndex: (...a: unknown[]) => calls.push(['dropIndex', ...a]) };
    const db = { getSiblingDB: (d: unknown) => ({ getCollection: (c: unknown) => (calls.push([d, c]), collection) }) };
    runInNewContext(cmd, { db });
    expect(calls).toEqual([
      [name, name],
      ['dropIndex', name],
    ]);
  });

  it('quotes keys that are not identifiers, and makes __proto__ a field, not the prototype', () => {
    expect(shellKey('tenantId')).toBe('tenantId');
    expect(shellKey('a.b')).toBe('"a.b"');
    expect(shellKey('__proto__')).toBe('["__proto__"]');
    const parsed = evaluate(shellValue(JSON.parse('{"__proto__": 1, "constructor": -1}'))) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__', 'constructor']);
  });

  it('prints a template as a comment, and a later step as comments under a label', () => {
    const t = shellTemplate(`${shellCollection('a\u2028b', 'c\nd')}.insertOne({ parentId: <id> })`);
    expect(t.startsWith('//')).toBe(true);
    expect(t).not.toMatch(/[\n\r\u2028\u2029]/);
    const lines = laterLines({ when: 'after a business cycle', commands: [shellCall('a', 'b', 'dropIndex', 'x')] });
    expect(lines.every((l) => l.startsWith('//'))).toBe(true);
    // pasted as a whole, the later step is only comments: it evaluates to nothing and calls nothing
    expect(runInNewContext(lines.join('\n'), {})).toBeUndefined();
  });

  it('builds database commands with the database named', () => {
    expect(shellRunCommand('shop', { collMod: 'orders', validationLevel: 'moderate' })).toBe(
      'db.getSiblingDB("shop").runCommand({ collMod: "orders", validationLevel: "moderate" })',
    );
  });

  it.each(['plain', 'one`tick', '``two', 'end`', '`'])('holds %j whole in a code span', (name) => {
    const span = codeSpan(name);
    const fence = /^`+/.exec(span)?.[0] ?? '';
    const inner = span.slice(fence.length, span.length - fence.length);
    // CommonMark: the span ends at the first backtick run as long as its opening fence; none inside is
    expect(inner.split(/[^`]+/).some((run) => run.length === fence.length)).toBe(false);
    expect(inner === name || inner === ` ${name} `).toBe(true);
  });

  it('a rule built with it never lets a collection name out of its quotes', () => {
    const hostile = HOSTILE[0] ?? '';
    const c0 = collectionOf(hostile, {
      stats: {
        count: 100_000,
        sizeBytes: 4e9,
        avgObjSize: 40_000,
        storageSizeBytes: 2e9,
        totalIndexSizeBytes: 1e6,
        nindexes: 1,
        blockCompressor: 'snappy',
      },
      sample: sampleOf([]),
    });
    // what the compressibility collector stores for a 1 MB sample that zstd compresses best
    const c = withData(c0, compressibility, {
      docs: 1000,
      bytes: 1_000_000,
      serializer: 'bson',
      blockBytes: BLOCK_BYTES,
      codecs: { snappy: 500_000, zlib: 300_000, zstd: 250_000 },
    });
    const findings = runRule(compression, snapshotOf([c]));
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      for (const cmd of [...(f.recommendation?.commands ?? []), ...(f.recommendation?.later?.commands ?? [])]) {
        expect(cmd, cmd).not.toContain('\n');
        expect(cmd, cmd).toMatch(/^(db\.getSiblingDB\(|\/\/ )/);
        expect(cmd, cmd).not.toMatch(/db\.dropDatabase\(\); \("(?!\\)/);
      }
      // the copy is made now; replacing the original (renameCollection, dropTarget) is a later step
      expect(f.recommendation?.commands?.join('\n')).not.toContain('renameCollection');
      expect(f.recommendation?.later?.commands.join('\n')).toContain('renameCollection');
    }
  });
});

/** Non-test TypeScript files under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

describe('no code but the builder writes command text', () => {
  // A literal starting a mongosh command (`db.…`), or naming a database or collection in command text: only
  // src/lib/shell.ts writes these. The adapters call the real shell's getSiblingDB (code, not text); "db.collection"
  // in prose is a placeholder for a namespace.
  const COMMAND_TEXT = /[`'"]db\.(?!collection["'`])[A-Za-z$]|getSiblingDB\(|getCollection\(|runCommand\(\{/;
  const root = join(__dirname, '..');
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'rules'))]
    .map((p) => relative(root, p))
    .filter((p) => p !== join('src', 'lib', 'shell.ts') && !p.startsWith(join('src', 'adapters')));

  it('finds command text only in src/lib/shell.ts', () => {
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const f of files) {
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
          if (COMMAND_TEXT.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('would find a command built by hand (the check itself can fail)', () => {
    expect(COMMAND_TEXT.test('`db.getSiblingDB("${db}").${collection}.createIndex(`')).toBe(true);
    expect(COMMAND_TEXT.test('`db.orders.hideIndex("${index}")`')).toBe(true);
    expect(COMMAND_TEXT.test('return `db.runCommand({ collMod: ${name} })`')).toBe(true);
  });
});
