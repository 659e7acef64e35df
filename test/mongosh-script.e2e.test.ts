/**
 * advisor.check and advisor.cleanup in a mongosh script (--eval, --file, .mongoshrc.js): the shell's async rewriter
 * awaits their results where the script uses them, as it does the shell's own methods, so `const r =
 * advisor.check(…)` holds the result, a try/catch catches a refusal, and the script never ends while a confirmation
 * still writes to the scratch database (before, the shell closed its client under the run: a stack trace, scratch data
 * left behind).
 */
import { existsSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mongosh, PLUGIN } from './support/mongosh';
import { rulesOff } from './support/rules-off';
import type { ProcessResult } from './support/run';
import { dropDb } from './support/seed';
import { expectScratchDropped } from './support/scratch';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_mongosh_script';
/** The rules of the confirming check: dynamic-keys alone, whose experiment on prices writes to scratch. */
const DYNAMIC_KEYS_ONLY = JSON.stringify(rulesOff('dynamic-keys'));
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

describe('advisor.check in a mongosh script (real mongosh, real server)', () => {
  const uri = liveUri();

  beforeAll(async () => {
    if (!existsSync(PLUGIN))
      throw new Error('dist/advisor.js is missing: run `npm run build` first (npm test does it)');
    const client = await MongoClient.connect(uri);
    try {
      // a map keyed by data: dynamic-keys reports it and confirms on a scratch copy (a write the script must wait for)
      const docs = Array.from({ length: 300 }, (_, i) => ({
        sku: `S${i}`,
        byUser: Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`u${(i * 7 + k * 13) % 900}x`, k])),
      }));
      await client.db(DB).collection('prices').insertMany(docs);
    } finally {
      await client.close();
    }
  });
  afterAll(async () => {
    await dropDb(uri, DB);
  });

  /**
   * One script for both tests (a mongosh start costs seconds): the refused check inside a try/catch first, then the
   * confirming check whose result the script reads. Each test reads its own lines; both need the script to end well.
   */
  let script: Promise<ProcessResult> | undefined;
  const run = (): Promise<ProcessResult> =>
    (script ??= mongosh(
      uri,
      DB,
      'try { const r = advisor.check("prices", { confirm: 3 }); print("NOT REFUSED"); } ' +
        'catch (e) { print("CAUGHT " + e.message); } ' +
        // one confirming rule, with a short budget, is enough to show the script waits for a write to scratch
        `const r = advisor.check("prices", { confirmBudget: 2, rules: ${DYNAMIC_KEYS_ONLY} }); ` +
        'print("RESULT " + JSON.stringify({ findings: r.findings.length, ' +
        'confirmed: r.findings.filter((f) => f.confirmation).map((f) => f.confirmation.status), ' +
        'where: r.confirm.where, cleanedUp: r.confirm.cleanedUp })); ' +
        'const c = advisor.cleanup(); print("CLEANUP " + typeof c);',
    ));

  it('const r = advisor.check(…) holds the result; its confirmations ran to their end; no scratch left', async () => {
    const r = await run();
    expect(r.err + r.out).not.toMatch(STACK_LINE);
    expect(r.code, r.err).toBe(0);
    const line = /^RESULT (.+)$/m.exec(r.out)?.[1];
    expect(line, r.out).toBeDefined();
    const result = JSON.parse(line as string) as {
      findings: number;
      confirmed: string[];
      where: string | null;
      cleanedUp: boolean;
    };
    expect(result.findings).toBeGreaterThan(0);
    // every confirmation ended with a status of its own, none cut off by the script's end
    expect(result.confirmed.length).toBeGreaterThan(0);
    for (const s of result.confirmed) expect(['supported', 'refuted', 'inconclusive', 'not-run']).toContain(s);
    expect(r.out).toMatch(/^CLEANUP object$/m);
    // this run's own scratch database, by the name it reported: other test files on the same server may hold theirs
    expect(result.cleanedUp, result.where ?? '').toBe(true);
    const client = await MongoClient.connect(uri);
    try {
      await expectScratchDropped(client, result.where);
    } finally {
      await client.close();
    }
  });

  it('a refused check is caught by the script: try/catch sees the message, nothing is thrown past it', async () => {
    const r = await run();
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^CAUGHT advisor\.check did not run: Option confirm is 3/m);
    expect(r.out).not.toContain('NOT REFUSED');
  });
});
