import { describe, expect, it } from 'vitest';
import { specDrift } from '../src/spec/drift';
import type { Spec } from '../src/spec/format';
import { collectionOf, snapshotOf } from './support/fixtures';

const live = snapshotOf([
  collectionOf('orders', {
    capped: true,
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 1 },
      { name: 'status_1', key: { status: 1 }, unique: true, sizeBytes: 2 },
      { name: 'byHand', key: { total: -1 }, sizeBytes: 3 },
    ],
  }),
  collectionOf('logs'),
]);

const spec: Spec = {
  db: 'app',
  collections: [
    { name: 'orders', indexes: [{ key: { status: 1 } }, { key: { customer: 1, at: -1 }, name: 'cust' }] },
    { name: 'users', indexes: [{ key: { email: 1 }, unique: true }] },
    { name: 'events', db: 'audit' },
  ],
};

describe('lint --spec: drift between the declared spec and a snapshot', () => {
  it('finds every kind of drift, in order: per declared collection, then the undeclared ones', () => {
    const { findings, notes } = specDrift(spec, live);
    const orders = { db: 'app', collection: 'orders' };
    expect(findings.map((f) => [f.messageId, f.target])).toEqual([
      ['collectionOptions', orders],
      ['indexOptions', { ...orders, index: 'status_1' }],
      ['missingIndex', { ...orders, index: 'cust' }],
      ['undeclaredIndex', { ...orders, index: 'byHand' }],
      ['missingCollection', { db: 'app', collection: 'users' }],
      ['undeclaredCollection', { db: 'app', collection: 'logs' }],
    ]);
    expect(findings.map((f) => f.message)).toEqual([
      'app.orders differs from its declaration: capped: declared false, live true.',
      'Index status_1 on app.orders differs from its declaration: unique: declared false, live true.',
      'Index {"customer":1,"at":-1} is declared on app.orders but not built on the server.',
      'Index byHand {"total":-1} exists on app.orders but is not declared: every write maintains it.',
      'app.users is declared but does not exist on the server (nor its 1 declared index).',
      'app.logs exists on the server but is not declared in the spec.',
    ]);
    const create =
      'db.getSiblingDB("app").getCollection("orders").createIndex({ customer: 1, at: -1 }, { name: "cust" })';
    expect(findings[2]?.recommendation?.commands).toEqual([create]);
    expect(findings[3]?.evidence).toEqual({ key: '{"total":-1}', sizeBytes: 3 });
    expect(findings[4]?.evidence).toEqual({ declaredIndexes: 1 });
    expect(findings[5]).toMatchObject({ severity: 'info', evidence: { type: 'collection' } });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ level: 'skipped', target: { db: 'audit' } });
    expect(notes[0]?.message).toMatch(/^drift not checked for database audit: .*--db audit\)$/);
  });

  it('leaves undeclared collections alone when the spec says so', () => {
    const { findings } = specDrift({ ...spec, reportUndeclared: false }, live);
    expect(findings.map((f) => f.messageId)).not.toContain('undeclaredCollection');
    expect(findings).toHaveLength(5);
  });
});
