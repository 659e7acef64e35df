import { describe, expect, it } from 'vitest';
import { readWorkload } from '../src/cli/workload';
import type { WorkloadTally } from '../src/workload/tally';
import { UserError } from '../src/core/errors';

const io = () => {
  const err: string[] = [];
  return { io: { out: () => undefined, err: (s: string) => void err.push(s), isTTY: false }, err };
};

describe('--workload-complete', () => {
  it('vouches for a --log or --queries file: alone it is a clear error, not a silent no-op', async () => {
    const run = readWorkload({ workloadComplete: true }, io().io);
    await expect(run).rejects.toBeInstanceOf(UserError);
    await expect(readWorkload({ workloadComplete: true }, io().io)).rejects.toThrow(
      /--workload-complete vouches for a --log or --queries file, and none was given/,
    );
  });

  it('marks the given log complete, and only when passed', async () => {
    const log = 'test/fixtures/workload/mongod.log';
    const vouched = await readWorkload({ log, workloadComplete: true }, io().io);
    expect(vouched?.complete).toBe(true);
    const plain = await readWorkload({ log }, io().io);
    expect(plain?.complete).toBeUndefined();
    const records = (w: typeof plain): number | undefined => (w?.folded as WorkloadTally | undefined)?.records;
    expect(records(plain)).toBeGreaterThan(0);
    expect(records(plain)).toBe(records(vouched));
  });
});
