import { describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors';
import {
  checkTargets,
  collectionNameProblem,
  databaseNameProblem,
  isKnownSystemCollection,
  systemCollectionProblem,
  systemDatabaseProblem,
} from '../src/core/names';

describe('names as MongoDB defines them (manual: Naming Restrictions)', () => {
  it('database names: not empty, shorter than 64 bytes, none of / \\ . space " $ * < > : | ? nor NUL', () => {
    for (const ok of ['shop', 'my-db_1', 'a'.repeat(63), 'café']) expect(databaseNameProblem(ok)).toBeNull();
    expect(databaseNameProblem('')).toMatch(/^The database name is empty/);
    expect(databaseNameProblem('a.b')).toMatch(
      /^Database name "a\.b" holds "\.", which MongoDB does not allow in database names .* name its database and the/,
    );
    expect(databaseNameProblem('a'.repeat(70))).toMatch(
      /^Database name "a{70}" is 70 bytes long, and MongoDB database names must be shorter than 64 bytes/,
    );
    // bytes, not characters: 32 two-byte characters are 64 bytes
    expect(databaseNameProblem('é'.repeat(32))).toMatch(/is 64 bytes long/);
    expect(databaseNameProblem('a\0b')).toMatch(/holds a null character/);
    for (const c of ['/', '\\', ' ', '"', '$']) {
      expect(databaseNameProblem(`x${c}y`)).toContain(`holds ${JSON.stringify(c)}`);
    }
    // refused only by a server on Windows: such a database may exist on Linux, so it must stay checkable
    for (const c of ['*', '<', '>', ':', '|', '?']) expect(databaseNameProblem(`x${c}y`)).toBeNull();
    expect(databaseNameProblem('a.b$c')).toContain('holds ".", "$"');
  });

  it('collection names: not empty, no $ or NUL, no unknown system. name, a namespace of at most 255 bytes', () => {
    for (const ok of ['orders', 'a.b', 'system.profile', 'system.buckets.weather']) {
      expect(collectionNameProblem('shop', ok)).toBeNull();
    }
    expect(collectionNameProblem('shop', '')).toMatch(/^The collection name is empty/);
    expect(collectionNameProblem('shop', 'a$b')).toMatch(/holds "\$"/);
    expect(collectionNameProblem('shop', 'a\0b')).toMatch(/null character/);
    expect(collectionNameProblem('shop', 'system.mine')).toMatch(/begins with "system\.", which MongoDB reserves/);
    expect(collectionNameProblem('shop', 'c'.repeat(251))).toMatch(/namespace 256 bytes long/);
    expect(collectionNameProblem('shop', 'c'.repeat(250))).toBeNull();
  });

  it('the server’s own databases and collections are named as such', () => {
    expect(systemDatabaseProblem('local')).toMatch(/^Database "local" holds the server's own data \(the replication/);
    expect(systemDatabaseProblem('config')).toMatch(/^Database "config" holds the server's own data/);
    expect(systemDatabaseProblem('admin')).toBeNull(); // its own collections are checked; its system.* ones are not
    expect(isKnownSystemCollection('system.views')).toBe(true);
    expect(systemCollectionProblem('admin', 'system.users')).toMatch(/^Collection "admin\.system\.users" is a system/);
    expect(systemCollectionProblem('shop', 'orders')).toBeNull();
  });

  it('checkTargets throws a UserError (exit 2) naming the first problem, before anything is sent', () => {
    expect(() => checkTargets(['shop'], ['orders'])).not.toThrow();
    const err = (() => {
      try {
        checkTargets(['shop', 'local']);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).exitCode).toBe(2);
    expect(() => checkTargets(['shop'], ['system.profile'])).toThrow(/is a system collection/);
  });
});
