import type { MongoClient } from 'mongodb';
import { expect } from 'vitest';
import { SCRATCH_PREFIX } from '../../src/confirm/scratch';

/**
 * Asserts that the scratch database a run names in its `where` ("scratch database <name> on …") is gone.
 * Only that one: other test files may have their own scratch databases at the same moment.
 */
export async function expectScratchDropped(client: MongoClient, where: string | null | undefined): Promise<void> {
  const name = /scratch database (\S+)/.exec(where ?? '')?.[1];
  expect(name, `no scratch database named in ${JSON.stringify(where)}`).toMatch(new RegExp(`^${SCRATCH_PREFIX}`));
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  expect((r.databases as { name: string }[]).map((d) => d.name)).not.toContain(name);
}
