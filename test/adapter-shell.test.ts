import { describe, expect, it } from 'vitest';
import { commandCursor, readCursor } from '../src/adapters/cursor';
import { readOnly } from '../src/adapters/read-only';
import { type ShellCursor, type ShellGlobals, ShellAdapter } from '../src/adapters/shell';
import type { Doc } from '../src/adapters/types';

/**
 * A stand-in for mongosh 2.12 (@mongosh/shell-api 5.9.0), following its source: `Database._runCursorCommand(cmd,
 * options)` (lib/database.js) wraps the driver's `runCursorCommand(db, cmd, options)` in a RunCommandCursor whose
 * `objsLeftInBatch()` is the driver cursor's `bufferedCount()`, `isClosed()` its `closed` (true once the server cursor
 * is dead and the buffer read), `tryNext()` one fetch, `close()` a killCursors of a live cursor
 * (lib/abstract-cursor.js). The driver cursor sends its getMore and killCursors on the session of its opening command;
 * here every command is recorded with the session it went on. `runCommand` takes a fresh implicit session each time,
 * as the driver's `db.command` does.
 */
function fakeShell(batches: Doc[][], opts: { cursorRunner?: boolean } = {}) {
  const sent: { name: string; session: number; options?: Doc }[] = [];
  let sessions = 0;
  const cursorFor = (cmd: Doc, options: Doc, session: number): ShellCursor => {
    let buffer: Doc[] = [];
    let next = 0;
    let dead = false;
    let opened = false;
    const fetch = () => {
      sent.push({
        name: opened ? 'getMore' : (Object.keys(cmd)[0] as string),
        session,
        ...(opened ? {} : { options }),
      });
      opened = true;
      buffer.push(...(batches[next] ?? []));
      next++;
      dead = next >= batches.length;
    };
    return {
      objsLeftInBatch: () => buffer.length,
      next: () => {
        if (buffer.length === 0 && !dead) fetch();
        return buffer.shift() ?? null;
      },
      tryNext: () => {
        if (buffer.length === 0 && !dead) fetch();
        return buffer.shift() ?? null;
      },
      isClosed: () => dead && buffer.length === 0,
      close: () => {
        if (opened && !dead) sent.push({ name: 'killCursors', session });
        dead = true;
        buffer = [];
      },
    };
  };
  const db = {
    runCommand: (cmd: Doc, options?: Doc) => {
      const name = Object.keys(cmd)[0] as string;
      sent.push({ name, session: ++sessions, ...(options ? { options } : {}) });
      if (name === 'find') return { cursor: { id: 7, firstBatch: batches[0] ?? [], ns: 'shop.orders' }, ok: 1 };
      if (name === 'getMore')
        return { cursor: { id: 0, nextBatch: batches.slice(1).flat(), ns: 'shop.orders' }, ok: 1 };
      return { ok: 1 };
    },
    ...(opts.cursorRunner === false
      ? {}
      : { _runCursorCommand: (cmd: Doc, options: Doc = {}) => Promise.resolve(cursorFor(cmd, options, ++sessions)) }),
  };
  const g: ShellGlobals = {
    db: { getSiblingDB: () => db, getName: () => 'shop', getMongo: () => ({ _uri: 'mongodb://localhost/' }) },
    ObjectId: () => ({}),
    UUID: () => ({}),
    NumberLong: (v: string) => ({ v }),
  };
  return { adapter: new ShellAdapter(g), sent };
}

const docs = (from: number, n: number): Doc[] => Array.from({ length: n }, (_, i) => ({ i: from + i }));

describe('ShellAdapter cursors: through mongosh’s RunCommandCursor, on one session', () => {
  it(
    'reads every batch through the shell cursor: opening command and getMores on one session, each one round ' + 'trip',
    async () => {
      const { adapter, sent } = fakeShell([docs(0, 3), docs(3, 3), docs(6, 2)]);
      const rows = await commandCursor(
        readOnly(adapter),
        'shop',
        { find: 'orders', filter: {}, batchSize: 3, maxTimeMS: 100 },
        { maxTimeMS: 100 },
      );
      expect(rows.map((d) => d.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(sent.map((s) => `${s.name}@${s.session}`)).toEqual(['find@1', 'getMore@1', 'getMore@1']);
      expect(adapter.roundTrips).toBe(3);
    },
  );

  it('stops at the limit and closes the cursor (a killCursors on the same session, counted)', async () => {
    const { adapter, sent } = fakeShell([docs(0, 3), docs(3, 3), docs(6, 2)]);
    const read = await readCursor(adapter, 'shop', { find: 'orders', filter: {}, batchSize: 3 }, { limit: 4 });
    expect(read).toEqual({ docs: docs(0, 4), exhausted: false });
    expect(sent.map((s) => `${s.name}@${s.session}`)).toEqual(['find@1', 'getMore@1', 'killCursors@1']);
    expect(adapter.roundTrips).toBe(3);
  });

  it(
    'passes the gate’s read preference to the cursor runner and to runCommand; node-specific reads go to the ' +
      'primary',
    async () => {
      const { adapter, sent } = fakeShell([docs(0, 1)]);
      const gate = readOnly(adapter, { readPreference: 'secondaryPreferred' });
      await commandCursor(gate, 'shop', { find: 'orders', filter: {} }, { maxTimeMS: 1 });
      await gate.command('admin', { serverStatus: 1 });
      await commandCursor(
        gate,
        'shop',
        { aggregate: 'orders', pipeline: [{ $indexStats: {} }], cursor: {} },
        { maxTimeMS: 1 },
      );
      await gate.command('shop', { count: 'orders' });
      expect(sent.map((s) => [s.name, s.options?.readPreference ?? 'primary'])).toEqual([
        ['find', 'secondaryPreferred'],
        ['serverStatus', 'primary'],
        ['aggregate', 'primary'],
        ['count', 'secondaryPreferred'],
      ]);
      const primaryGate = readOnly(adapter, { readPreference: 'primary' });
      sent.length = 0;
      await commandCursor(primaryGate, 'shop', { find: 'orders', filter: {} }, { maxTimeMS: 1 });
      expect(sent[0]?.options?.readPreference).toBeUndefined();
    },
  );

  it(
    'a mongosh without the cursor runner: no cursor method, getMore sent as a command of its own (another ' +
      'session)',
    async () => {
      const { adapter, sent } = fakeShell([docs(0, 2), docs(2, 2)], { cursorRunner: false });
      expect(adapter.cursor).toBeUndefined();
      const rows = await commandCursor(adapter, 'shop', { find: 'orders', filter: {} }, { maxTimeMS: 1 });
      expect(rows).toHaveLength(4);
      expect(sent.map((s) => `${s.name}@${s.session}`)).toEqual(['find@1', 'getMore@2']);
    },
  );
});
