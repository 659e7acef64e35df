import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../src/collect';
import { recordingAdapter } from './support/recording';
import { useLiveDb } from './support/live-db';

/**
 * Where collect's reads go (`--read-preference`): the sample's reads ask for secondaryPreferred by default, so a
 * replica set's secondaries carry them; `primary` sends every read to the primary; per-node statistics ($collStats)
 * always go to the primary. On a standalone test server every preference reaches the one node: what is checked is
 * the preference each command is sent with.
 */
describe('read preference of collect (live)', () => {
  const live = useLiveDb('mongo_advisor_test_read_preference', async (db) => {
    await db.collection('orders').insertMany(Array.from({ length: 50 }, (_, i) => ({ i, at: new Date(0) })));
  });

  const sampleReads = (sent: { name: string; cmd: Record<string, unknown>; readPreference?: unknown }[]) =>
    sent.filter(
      (c) =>
        c.cmd.find === 'orders' ||
        (c.cmd.aggregate === 'orders' && !JSON.stringify(c.cmd.pipeline).includes('$collStats')),
    );
  const statsReads = (sent: { name: string; cmd: Record<string, unknown>; readPreference?: unknown }[]) =>
    sent.filter((c) => c.cmd.aggregate === 'orders' && JSON.stringify(c.cmd.pipeline).includes('$collStats'));

  it('by default the data reads prefer secondaries and $collStats goes to the primary', async () => {
    const recording = recordingAdapter(live.adapter);
    await collectSnapshot(recording, { db: live.db.databaseName, collections: ['orders'] });
    const reads = sampleReads(recording.sent);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.readPreference, JSON.stringify(r.cmd)).toBe('secondaryPreferred');
    for (const r of statsReads(recording.sent)) expect(r.readPreference ?? 'primary').toBe('primary');
  });

  it('readPreference primary sends every read to the primary', async () => {
    const recording = recordingAdapter(live.adapter);
    await collectSnapshot(recording, { db: live.db.databaseName, collections: ['orders'], readPreference: 'primary' });
    const reads = sampleReads(recording.sent);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.readPreference ?? 'primary', JSON.stringify(r.cmd)).toBe('primary');
  });
});
