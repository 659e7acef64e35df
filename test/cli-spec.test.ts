import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../src/cli/main';
import type { LintResult } from '../src/core/baseline';
import { staticSpecFindings } from '../src/spec';
import type { Spec } from '../src/spec/format';
import { jsonSchemaProblems } from '../src/spec/static';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (s) => (out += s.endsWith('\n') ? s : `${s}\n`),
    err: (s) => (err += `${s}\n`),
    isTTY: false,
  });
  return { code, out, err };
}

const ids = (r: LintResult): string[] =>
  r.findings
    .map((f) => `${f.ruleId}/${f.messageId} ${f.target.collection ?? ''}${f.target.index ? ` ${f.target.index}` : ''}`)
    .sort();

describe('declared spec: static checks (no database)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-spec-'));
  const write = (name: string, text: string): string => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  it('$jsonSchema: keywords MongoDB omits, "integer", bad bsonTypes, empty required, bad patterns', () => {
    expect(
      jsonSchemaProblems({
        bsonType: 'object',
        required: ['a'],
        properties: { a: { bsonType: ['string', 'null'] }, n: { bsonType: 'int', minimum: 0 } },
      }),
    ).toEqual([]);
    expect(
      jsonSchemaProblems({
        $schema: 'x',
        required: [],
        properties: {
          a: { type: 'integer' },
          b: { bsonType: 'integer' },
          c: { format: 'email' },
          d: { pattern: '(' },
          e: { bsonType: 'string', type: 'string' },
        },
        additionalProperties: { bsonType: 'strin' },
      }),
    ).toEqual([
      '$jsonSchema: "$schema" is not supported by MongoDB\'s $jsonSchema',
      '$jsonSchema.required must be a non-empty array of distinct field names',
      '$jsonSchema.properties.a.type: "integer" is not supported; use bsonType "int" or "long"',
      '$jsonSchema.properties.b.bsonType: "integer" is not a BSON type alias',
      '$jsonSchema.properties.c: "format" is not supported by MongoDB\'s $jsonSchema',
      '$jsonSchema.properties.d.pattern: "(" is not a valid regular expression',
      '$jsonSchema.properties.e: "type" and "bsonType" cannot both be set',
      '$jsonSchema.additionalProperties.bsonType: "strin" is not a BSON type alias',
    ]);
  });

  it('finds redundant indexes, a validator the server refuses, and clustered key mistakes', () => {
    const spec: Spec = {
      db: 'app',
      collections: [
        {
          name: 'posts',
          indexes: [
            { key: { author: 1 } },
            { key: { author: 1, createdAt: -1 } },
            { key: { tags: 1 }, name: 'a' },
            { key: { tags: 1 }, name: 'b' },
            { key: { slug: 1 }, unique: true },
            { key: { slug: 1, x: 1 } },
            { key: { _id: 1, y: 1 } },
          ],
          options: {
            validator: { $jsonSchema: { properties: { n: { type: 'integer' } } }, $where: 'this.a > 1' },
            validationAction: 'reject',
          },
        },
        { name: 'events', options: { clusteredIndex: { key: { at: 1 }, unique: false }, capped: true } },
        { name: 'sessions', idType: 'uuidv4', options: { clusteredIndex: { key: { _id: 1 }, unique: true } } },
        {
          name: 'logs',
          idType: 'objectId',
          options: { clusteredIndex: { key: { _id: 1 }, unique: true } },
          indexes: [{ key: { _id: 1 } }],
        },
      ],
    };
    const found = staticSpecFindings(spec).map(
      (f) => `${f.ruleId}/${f.messageId} ${f.target.collection ?? ''}${f.target.index ? ` ${f.target.index}` : ''}`,
    );
    expect(found.sort()).toEqual(
      [
        'spec-invalid-validator/invalid posts',
        'spec-redundant-index/prefix posts author_1',
        'spec-redundant-index/duplicate posts b',
        'spec-clustered-key/key events',
        'spec-clustered-key/unique events',
        'spec-clustered-key/capped events',
        'spec-clustered-key/randomId sessions',
      ].sort(),
    );
    const v = staticSpecFindings(spec).find((f) => f.ruleId === 'spec-invalid-validator');
    expect(v?.message).toMatch(
      joinRegex(
        /"integer" is not supported.*validator: \$where cannot be used in a validator.*validationAction "reject" is /,
        /not one of error, warn, errorAndLog/,
      ),
    );
  });

  it('lint --spec alone: exit 1 on errors, SARIF results point at the declaration line', async () => {
    const file = write(
      'spec.json',
      JSON.stringify(
        {
          db: 'app',
          collections: [
            { name: 'posts', indexes: [{ key: { author: 1 } }, { key: { author: 1, at: 1 } }] },
            { name: 'events', options: { clusteredIndex: { key: { at: 1 }, unique: true } } },
          ],
        },
        null,
        2,
      ),
    );
    const r = await cli(['lint', '--spec', file, '--format', 'sarif']);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out) as {
      runs: {
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
        }[];
      }[];
    };
    const results = log.runs[0]?.results ?? [];
    const lineOf = (name: string): number =>
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(`"name": "${name}"`)) + 1;
    expect(lineOf('events')).toBeGreaterThan(lineOf('posts'));
    // an index's finding points at the index's entry (its `key`), not at its collection's name
    const keyLine =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l, i) => i >= lineOf('posts') && l.includes('"key"')) + 1;
    expect(keyLine).toBeGreaterThan(lineOf('posts'));
    expect(results.map((x) => [x.ruleId, x.level, x.locations[0]?.physicalLocation.region?.startLine])).toEqual([
      ['spec-clustered-key', 'error', lineOf('events')],
      ['spec-redundant-index', 'warning', keyLine],
    ]);
    expect(results[0]?.locations[0]?.physicalLocation.artifactLocation.uri).toMatch(/spec\.json$/);
  });

  it('a JS spec (module.exports) loads; the config can turn a check off', async () => {
    const file = write(
      'spec.js',
      "module.exports = { db: 'app', collections: [{ name: 'posts', indexes: [{ key: { author: 1 } }, { " +
        'key: { author: 1, at: 1 } }] }] };\n',
    );
    const r = await cli(['lint', '--spec', file, '--fail-on', 'warn']);
    expect(r.code).toBe(1);
    const config = write('cfg.json', JSON.stringify({ rules: { 'spec-redundant-index': 'off' } }));
    const off = await cli(['lint', '--spec', file, '--fail-on', 'warn', '--config', config]);
    expect(off.out).toMatch(/No findings/);
    expect(off.code).toBe(0);
  });

  it('a spec with a typo: exit 2 naming the key', async () => {
    const r = await cli([
      'lint',
      '--spec',
      write(
        'typo.json',
        JSON.stringify({ db: 'app', collections: [{ name: 'posts', indexes: [{ keys: { a: 1 } }] }] }),
      ),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      joinRegex(
        /The spec .*typo\.json is not valid: collections\.0\.indexes\.0: missing "key"; collections\.0\.indexes\.0: /,
        /unknown key "keys"/,
      ),
    );
    const noDb = await cli([
      'lint',
      '--spec',
      write('nodb.json', JSON.stringify({ collections: [{ name: 'posts' }] })),
    ]);
    expect(noDb.err).toMatch(/does not say which database "posts" belongs to/);
    expect(noDb.code).toBe(2);
  });
});

describe('declared spec: drift against the live server and a snapshot of it', () => {
  const uri = liveUri();
  const dir = mkdtempSync(join(tmpdir(), 'ma-drift-'));
  const spec = join(dir, 'spec.json');
  const snap = join(dir, 'snap.json');

  beforeAll(async () => {
    writeFileSync(
      spec,
      JSON.stringify({
        db: DB,
        collections: [
          // Live: author_1. Declared also title_1 (missing), and author_1 as unique (different options).
          { name: 'posts', indexes: [{ key: { author: 1 }, unique: true }, { key: { title: 1 } }] },
          // Live: userId_1, undeclared here; the declared validator is not on the server.
          { name: 'sessions', options: { validator: { $jsonSchema: { required: ['userId'] } } } },
          // Not on the server at all.
          { name: 'comments', indexes: [{ key: { postId: 1, _id: 1 } }] },
          // events: live, undeclared.
        ],
      }),
    );
    const c = await cli(['collect', uri, '--db', DB, '--out', snap]);
    if (c.code !== 0) throw new Error(c.err);
  });

  const EXPECTED = [
    'spec-drift/collectionOptions sessions',
    'spec-drift/indexOptions posts author_1',
    'spec-drift/missingCollection comments',
    'spec-drift/missingIndex posts title_1',
    'spec-drift/undeclaredCollection events',
    'spec-drift/undeclaredIndex sessions userId_1',
  ];

  it('with a URI: declared but missing, live but undeclared, different options', async () => {
    const r = await cli(['lint', uri, '--db', DB, '--spec', spec, '--format', 'json', '--quiet']);
    const result = JSON.parse(r.out) as LintResult;
    expect(ids(result).filter((x) => x.startsWith('spec-'))).toEqual(EXPECTED);
    const opts = result.findings.find((f) => f.messageId === 'collectionOptions');
    expect(opts?.message).toMatch(/validator: declared, missing on the live collection/);
    expect(result.findings.find((f) => f.messageId === 'indexOptions')?.message).toMatch(
      /unique: declared true, live false/,
    );
    expect(result.findings.find((f) => f.messageId === 'undeclaredCollection')?.severity).toBe('info');
    // The snapshot rules still run alongside.
    expect(result.findings.some((f) => f.ruleId === 'array-growth')).toBe(true);
    expect(r.code).toBe(1);
  });

  it('with a snapshot file: the same drift, offline', async () => {
    const r = await cli(['lint', snap, '--spec', spec, '--format', 'json']);
    expect(ids(JSON.parse(r.out) as LintResult).filter((x) => x.startsWith('spec-'))).toEqual(EXPECTED);
  });
});
