import type { CommandStartedEvent, CommandSucceededEvent, Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCursor, readCursor } from '../src/adapters/cursor';
import { DriverAdapter } from '../src/adapters/driver';
import { readOnly } from '../src/adapters/read-only';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_adapter_cursor';
const DOCS = 40;

const idOf = (v: unknown): string => (v === undefined || v === null ? '?' : (v as { toString(): string }).toString());
const lsidOf = (cmd: Document): string | undefined =>
  (cmd.lsid as { id?: { toString(enc: string): string } } | undefined)?.id?.toString('hex');

/**
 * The driver adapter's cursors, watched through the driver's command monitoring: every getMore and killCursors must
 * carry the session (lsid) of the command that opened its cursor and go to the same server. Several cursors are read
 * at once, as collect does across collections, so implicit sessions are in use side by side: a getMore sent as a
 * command of its own takes whichever session the pool hands out.
 */
describe('driver adapter cursors (live): getMore and killCursors keep the cursor’s session and server', () => {
  const uri = liveUri();
  let adapter: DriverAdapter;
  const started: CommandStartedEvent[] = [];
  const succeeded: CommandSucceededEvent[] = [];

  beforeAll(async () => {
    adapter = await DriverAdapter.connect(uri, { monitorCommands: true });
    adapter.client.on('commandStarted', (e) => started.push(e));
    adapter.client.on('commandSucceeded', (e) => succeeded.push(e));
    const db = adapter.client.db(DB);
    await db.dropDatabase();
    for (const c of ['a', 'b', 'c', 'd'])
      await db.collection(c).insertMany(Array.from({ length: DOCS }, (_, i) => ({ i, pad: 'x'.repeat(50) })));
    started.length = 0;
    succeeded.length = 0;
  });
  afterAll(async () => {
    await adapter?.client.db(DB).dropDatabase();
    await adapter?.close();
  });

  it(
    'reads four multi-batch cursors at once: every getMore and killCursors carries its opener’s lsid, on its ' +
      'server',
    async () => {
      const gate = readOnly(adapter);
      const before = adapter.roundTrips;
      const from = started.length;
      const [a, b, c, limited] = await Promise.all([
        commandCursor(gate, DB, { find: 'a', filter: {}, batchSize: 3, maxTimeMS: 5000 }, { maxTimeMS: 5000 }),
        commandCursor(
          gate,
          DB,
          { aggregate: 'b', pipeline: [{ $match: {} }], cursor: { batchSize: 4 }, maxTimeMS: 5000 },
          { maxTimeMS: 5000 },
        ),
        commandCursor(
          gate,
          DB,
          { find: 'c', filter: { i: { $gte: 0 } }, batchSize: 2, maxTimeMS: 5000 },
          { maxTimeMS: 5000 },
        ),
        commandCursor(
          gate,
          DB,
          { find: 'd', filter: {}, batchSize: 5, maxTimeMS: 5000 },
          { limit: 3, maxTimeMS: 5000 },
        ),
      ]);
      expect([a.length, b.length, c.length, limited.length]).toEqual([DOCS, DOCS, DOCS, 3]);

      const sent = started
        .slice(from)
        .filter((e) => ['find', 'aggregate', 'getMore', 'killCursors'].includes(e.commandName));
      // Who opened which cursor: the opening command's reply names the cursor id.
      const opener = new Map<string, CommandStartedEvent>();
      for (const s of succeeded) {
        const id = idOf((s.reply as { cursor?: { id?: unknown } }).cursor?.id);
        const open = sent.find(
          (e) => e.requestId === s.requestId && (e.commandName === 'find' || e.commandName === 'aggregate'),
        );
        if (open && id !== '0' && id !== '?') opener.set(id, open);
      }
      const follows = sent.filter((e) => e.commandName === 'getMore' || e.commandName === 'killCursors');
      // a getMore carries no batchSize: the rest comes in one more reply
      expect(follows.filter((e) => e.commandName === 'getMore').length).toBeGreaterThanOrEqual(3);
      expect(follows.filter((e) => e.commandName === 'killCursors')).toHaveLength(1); // the limited read, stopped early
      for (const e of sent)
        expect(lsidOf(e.command), `${e.commandName} carries a session id`).toMatch(/^[0-9a-f]{32}$/);
      const mismatched: string[] = [];
      for (const e of follows) {
        const id = e.commandName === 'getMore' ? idOf(e.command.getMore) : idOf((e.command.cursors as unknown[])[0]);
        const open = opener.get(id);
        expect(open, `the cursor ${id} of ${e.commandName} was opened by this test`).toBeDefined();
        if (lsidOf(e.command) !== lsidOf(open!.command) || e.address !== open!.address)
          mismatched.push(
            `${e.commandName} ${id}: lsid ${lsidOf(e.command)} on ${e.address}, opened ` +
              `with ${lsidOf(open!.command)} on ${open!.address}`,
          );
        // the exact command: the cursor's own collection, and no maxTimeMS (the server refuses it on a getMore of a
        // non-awaitData cursor)
        if (e.commandName === 'getMore') {
          expect(e.command.collection).toBe(open!.command.find ?? open!.command.aggregate);
          expect(e.command.maxTimeMS).toBeUndefined();
        }
      }
      expect(mismatched).toEqual([]);
      // Each reply and the killCursors is one round trip, as counted by the adapter.
      expect(adapter.roundTrips - before).toBe(sent.length);
    },
  );

  it('reads the first batch only (batches: 1) and says whether the server had more', async () => {
    const gate = readOnly(adapter);
    const from = started.length;
    const open = await readCursor(gate, DB, { find: 'a', filter: {}, batchSize: 5, maxTimeMS: 5000 }, { batches: 1 });
    const whole = await readCursor(
      gate,
      DB,
      { find: 'a', filter: {}, batchSize: DOCS + 1, maxTimeMS: 5000 },
      { batches: 1 },
    );
    expect([open.docs.length, open.exhausted, whole.docs.length, whole.exhausted]).toEqual([5, false, DOCS, true]);
    expect(
      started
        .slice(from)
        .map((e) => e.commandName)
        .filter((n) => n !== 'endSessions'),
    ).toEqual(['find', 'killCursors', 'find']);
  });

  it('refuses through the gate before anything is sent: a write, and a getMore as an opening command', async () => {
    const gate = readOnly(adapter);
    const from = started.length;
    await expect(readCursor(gate, DB, { aggregate: 'a', pipeline: [{ $out: 'x' }], cursor: {} })).rejects.toThrow(
      /\$out stage/,
    );
    await expect(readCursor(gate, DB, { getMore: 1, collection: 'a' })).rejects.toThrow(
      /sent by the host's cursor itself/,
    );
    await expect(readCursor(gate, DB, { count: 'a' })).rejects.toThrow(/does not open a cursor/);
    expect(started.slice(from)).toEqual([]);
  });
});
