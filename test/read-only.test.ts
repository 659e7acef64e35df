import { Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { readPreferenceFor, writeStages, whyNotReading } from '../src/adapters/read-only';
import { joinRegex } from './support/regex';

// The classifier alone (no server, no adapter): which command documents count as reading. The live test
// (test/read-only.live.test.ts) proves on real servers that refused ones never reach the server.
describe('whyNotReading: the allow-list of reading commands', () => {
  it('lets through what collect sends', () => {
    const reads = [
      { buildInfo: 1, maxTimeMS: 1 },
      { hello: 1 },
      { serverStatus: 1, repl: 0, metrics: 0 },
      { listDatabases: 1, nameOnly: true, authorizedDatabases: true },
      { listCollections: 1, cursor: {}, authorizedCollections: true },
      { listIndexes: 'posts', cursor: {} },
      { count: 'posts', query: { $nor: [{ a: 1 }] } },
      { replSetGetConfig: 1 },
      { find: 'posts', filter: {}, hint: { $natural: 1 }, singleBatch: true },
      { aggregate: 'posts', pipeline: [{ $collStats: { storageStats: {}, count: {} } }], cursor: {} },
      {
        aggregate: 'posts',
        pipeline: [{ $sample: { size: 5 } }, { $project: { s: { $bsonSize: '$$ROOT' } } }],
        cursor: {},
      },
      { explain: { find: 'posts', filter: { _id: { $in: [1, 2] } } }, verbosity: 'queryPlanner' },
      { explain: { aggregate: 'posts', pipeline: [{ $match: {} }], cursor: {} }, verbosity: 'executionStats' },
      { explain: { delete: 'posts', deletes: [{ q: { _id: { $in: [1, 2] } }, limit: 0 }] }, verbosity: 'queryPlanner' },
      {
        explain: { delete: 'posts', deletes: [{ q: { _id: { $in: [1, 2] } }, limit: 0 }] },
        verbosity: 'executionStats',
      },
      { getMore: Long.fromString('123456789012'), collection: 'posts' },
      { killCursors: 'posts', cursors: [Long.fromString('123456789012')] },
      { profile: -1 },
    ];
    for (const cmd of reads) expect(whyNotReading(cmd), JSON.stringify(cmd)).toBeNull();
  });

  it('refuses writes, unknown commands and anything it cannot read ahead', () => {
    const refused: [unknown, RegExp][] = [
      [{ insert: 'posts', documents: [{}] }, /^insert is not on the allow-list of reading commands/],
      [{ drop: 'posts' }, /^drop is not on the allow-list/],
      [{ profile: 1 }, /^profile is a reading command only as \{ profile: -1 \}/],
      [{ profile: 0 }, /^profile is a reading command only as \{ profile: -1 \}/],
      [{ profile: -1, slowms: 5 }, /^profile is a reading command only as \{ profile: -1 \}/],
      [{ profile: -1, maxTimeMS: 5 }, /^profile is a reading command only as \{ profile: -1 \}/],
      [{ collMod: 'posts', validator: {} }, /^collMod is not on/],
      [{ Find: 'posts' }, /^Find is not on/],
      [{ find: 'posts', $db: 'other' }, /\$db/],
      [new Map([['find', 'posts']]), /plain document/],
      [{ find: 'posts', toBSON: () => ({ insert: 'posts', documents: [{}] }) }, /own toBSON cannot be checked/],
      [
        { explain: { find: 'posts', $db: 'other' }, verbosity: 'queryPlanner' },
        /^the explained command may not name its own database/,
      ],
      [{}, /^\(empty command\) is not on/],
      [{ aggregate: 'posts', pipeline: [{ $out: 'copy' }] }, /^a \$out stage at pipeline\[0\] writes/],
      [
        { aggregate: 'posts', pipeline: [{ $match: {} }, { $merge: { into: 'copy' } }] },
        /^a \$merge stage at pipeline\[1\] writes/,
      ],
      [
        { aggregate: 'posts', pipeline: [{ $facet: { a: [{ $match: {} }], b: [{ $merge: 'x' }] } }] },
        /at pipeline\[0\]\.\$facet\.b\[0\]/,
      ],
      [
        { aggregate: 'posts', pipeline: [{ $lookup: { from: 'c', as: 'k', pipeline: [{ $out: 'x' }] } }] },
        /at pipeline\[0\]\.\$lookup\.pipeline\[0\]/,
      ],
      [
        {
          aggregate: 'posts',
          pipeline: [{ $unionWith: { coll: 'c', pipeline: [{ $facet: { z: [{ $out: { db: 'o', coll: 'x' } }] } }] } }],
        },
        /at pipeline\[0\]\.\$unionWith\.pipeline\[0\]\.\$facet\.z\[0\]/,
      ],
      [{ aggregate: 'posts', pipeline: [new Map([['$out', 'x']])] }, /\$out stage at pipeline\[0\]/],
      [{ aggregate: 'posts', pipeline: [{ toBSON: () => ({ $out: 'x' }) }] }, /cannot be checked at pipeline\[0\]/],
      [{ aggregate: 'posts' }, /without a pipeline array/],
      [
        { explain: { delete: 'posts', deletes: [{ q: {}, limit: 0 }] }, verbosity: 'allPlansExecution' },
        joinRegex(
          /^explain of delete with verbosity "allPlansExecution" is not allowed; only verbosity "queryPlanner" or /,
          /"executionStats"/,
        ),
      ],
      [
        { explain: { delete: 'posts', deletes: [{ q: {}, limit: 0 }] } },
        /^explain of delete with no verbosity \(the server then uses allPlansExecution\)/,
      ],
      [
        { explain: { update: 'posts', updates: [{ q: {}, u: { $set: { a: 1 } } }] }, verbosity: 'executionStats' },
        /^explain of update with verbosity "executionStats" is not allowed; only verbosity "queryPlanner"$/,
      ],
      [
        { explain: { update: 'posts', updates: [{ q: {}, u: { $set: { a: 1 } } }] } },
        /^explain of update with no verbosity \(the server then uses allPlansExecution\)/,
      ],
      [
        { explain: { findAndModify: 'posts', query: {}, remove: true }, verbosity: 'queryPlanner' },
        /^explain of findAndModify: only explains of/,
      ],
      [{ explain: { insert: 'posts', documents: [{}] }, verbosity: 'queryPlanner' }, /^explain of insert/],
      [
        { explain: { aggregate: 'posts', pipeline: [{ $out: 'x' }], cursor: {} }, verbosity: 'queryPlanner' },
        /\$out stage at explain\.pipeline\[0\]/,
      ],
    ];
    for (const [cmd, why] of refused) expect(whyNotReading(cmd), String(why)).toMatch(why);
  });

  it('finds every $out and $merge, however deep', () => {
    const found = writeStages([
      {
        $facet: {
          a: [
            {
              $lookup: {
                from: 'x',
                as: 'y',
                pipeline: [{ $unionWith: { coll: 'z', pipeline: [{ $merge: { into: { db: 'd', coll: 'c' } } }] } }],
              },
            },
          ],
          b: [{ $out: 'o' }],
        },
      },
    ]);
    expect(found.map((f) => `${f.stage} ${f.path}`)).toEqual([
      '$merge pipeline[0].$facet.a[0].$lookup.pipeline[0].$unionWith.pipeline[0]',
      '$out pipeline[0].$facet.b[0]',
    ]);
  });
});

describe('readPreferenceFor: where the gate sends each read', () => {
  it(
    'data reads follow the gate; node-specific figures, explains of writes and listDatabases go to the ' + 'primary',
    () => {
      const cases: [object, string][] = [
        [{ find: 'posts', filter: {} }, 'secondaryPreferred'],
        [{ aggregate: 'posts', pipeline: [{ $sample: { size: 5 } }], cursor: {} }, 'secondaryPreferred'],
        [{ count: 'posts' }, 'secondaryPreferred'],
        [{ listCollections: 1 }, 'secondaryPreferred'],
        [{ listIndexes: 'posts' }, 'secondaryPreferred'],
        [{ explain: { find: 'posts' }, verbosity: 'executionStats' }, 'secondaryPreferred'],
        [{ aggregate: 'posts', pipeline: [{ $indexStats: {} }], cursor: {} }, 'primary'],
        [{ aggregate: 'posts', pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} }, 'primary'],
        [{ explain: { delete: 'posts', deletes: [] }, verbosity: 'queryPlanner' }, 'primary'],
        [{ serverStatus: 1 }, 'primary'],
        [{ listDatabases: 1 }, 'primary'],
        [{ hello: 1 }, 'primary'],
      ];
      for (const [cmd, where] of cases)
        expect(readPreferenceFor(cmd as never, 'secondaryPreferred'), JSON.stringify(cmd)).toBe(where);
      expect(readPreferenceFor({ find: 'posts' }, 'primary')).toBe('primary');
    },
  );
});
