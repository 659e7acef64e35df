import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listScratchDatabases } from '../src/confirm/leftovers';
import { INTERRUPT_PHASES } from '../src/confirm/scratch';
import { DriverAdapter } from '../src/adapters/driver';
import { checksums, INTERRUPT_RULES, scratchDbs, TENANTS, useInterruptSource } from './support/scratch';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_interrupt';
/**
 * The configuration every run reads (--config): collection-count alone (INTERRUPT_RULES), whose one experiment reaches
 * every phase in a few seconds; a phase a run never reached would end it without the "Interrupted" line the tests
 * expect. The other rules' experiments on sessions took most of each run and proved nothing more about signals.
 */
const CONFIG_DIR = mkdtempSync(join(tmpdir(), 'ma-interrupt-'));
const CONFIG = join(CONFIG_DIR, 'interrupt.mongo-advisor.json');
writeFileSync(CONFIG, JSON.stringify({ rules: INTERRUPT_RULES }));
afterAll(() => rmSync(CONFIG_DIR, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  err: string;
  child: ChildProcess;
}

/**
 * Documents copied per experiment (--confirm-docs): a line of the run's announcement the tests read, and a bound on
 * every copy (the default, 5,000, is checked at after-marker, where nothing is copied yet).
 */
const COPY_DOCS = 100;

/**
 * The real CLI, confirming sessions with a short budget and COPY_DOCS (`docs` null: the default); `onErr` sees stderr
 * as it comes.
 */
function runCli(
  uri: string,
  env: Record<string, string>,
  onErr?: (all: string, child: ChildProcess) => void,
  docs: number | null = COPY_DOCS,
): Promise<Run> {
  // One collection, one rule's experiment that reaches every phase: collecting the whole database, and the other
  // rules' experiments, before each run cost most of the file's time.
  const args = ['check', uri, '--db', DB, '-c', 'sessions', '--config', CONFIG, '--confirm-budget', '2', '-f', 'json'];
  if (docs !== null) args.push('--confirm-docs', String(docs));
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.on('data', () => undefined);
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    onErr?.(err, child);
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err, child })));
}

const scratchOf = (err: string): string | undefined =>
  /scratch database (mongo_advisor_scratch_[0-9a-f]+)/.exec(err)?.[1];

describe('interrupting a confirmation (real CLI): every phase, every signal', () => {
  const uri = liveUri();
  const src = useInterruptSource(uri, DB);

  const expectClean = async (run: Run, exit: number): Promise<string> => {
    const name = scratchOf(run.err);
    expect(name, run.err).toBeDefined();
    expect(run.err).toContain(`Dropped the scratch database ${name as string} (listDatabases no longer lists it).`);
    expect(run.code, run.err).toBe(exit);
    expect(await scratchDbs(src.client), run.err).not.toContain(name);
    expect(await checksums(src.client, DB)).toEqual(src.before);
    return name as string;
  };

  it(
    'the seeded database has a finding whose experiment copies several documents per insert (mid-insert), on ' +
      'every server',
    async () => {
      // the run the interrupted ones make (sessions), without confirming: collection-count judges the whole database
      const args = ['check', uri, '--db', DB, '-c', 'sessions', '--config', CONFIG, '--no-confirm', '-f', 'json'];
      const child = spawn(process.execPath, [CLI, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', () => undefined);
      await new Promise((resolve) => child.on('close', resolve));
      const findings = (
        JSON.parse(out) as { findings: { ruleId: string; messageId: string; evidence?: { members?: number } }[] }
      ).findings;
      const tenants = findings.find(
        (f) => f.ruleId === 'collection-count' && f.messageId.startsWith('tenantCollections'),
      );
      expect(tenants?.evidence?.members, JSON.stringify(findings.map((f) => `${f.ruleId}/${f.messageId}`))).toBe(
        TENANTS,
      );
    },
    120_000,
  );

  for (const phase of INTERRUPT_PHASES) {
    it(
      `SIGINT at ${phase}: refuses new commands, drops, says "dropped", exits 130; the source is ` + `unchanged`,
      async () => {
        // after-marker stops before anything is copied: there, the defaults' line costs nothing
        const defaults = phase === 'after-marker';
        const run = await runCli(
          uri,
          { MONGO_ADVISOR_TEST_INTERRUPT_AT: phase },
          undefined,
          defaults ? null : COPY_DOCS,
        );
        // sizes in IEC units (formatBytes): the default 32 MiB, never "32 MB"
        const docs = defaults ? '5,000' : String(COPY_DOCS);
        expect(run.err).toMatch(
          joinRegex(
            new RegExp(`^Confirming \\d+ findings?: writes up to ${docs} copied documents \\(32 MiB\\) per `, 'm'),
            /experiment to the scratch database mongo_advisor_scratch_[0-9a-f]{8} on /m,
          ),
        );
        expect(run.err).toMatch(/^Interrupted: stopping, then dropping the scratch database/m);
        await expectClean(run, 130);
      },
      120_000,
    );
  }

  for (const [signal, exit] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} mid-insert: the same cleanup, exit ${exit}`, async () => {
      const run = await runCli(uri, { MONGO_ADVISOR_TEST_INTERRUPT_AT: `mid-insert:${signal}` });
      expect(run.err).toContain(
        signal === 'SIGTERM' ? 'Terminated (SIGTERM): stopping' : 'The terminal closed (SIGHUP): stopping',
      );
      await expectClean(run, exit);
    }, 120_000);
  }

  it('a closed terminal (stderr gone, then SIGHUP) still drops the scratch database', async () => {
    let closed = false;
    const run = await runCli(uri, { MONGO_ADVISOR_TEST_INTERRUPT_AT: 'mid-insert:SIGHUP' }, (all, child) => {
      // as soon as the scratch database is named, the "terminal" goes away: every later write fails with EPIPE
      if (!closed && scratchOf(all)) {
        closed = true;
        child.stderr?.destroy();
        child.stdout?.destroy();
      }
    });
    const name = scratchOf(run.err);
    expect(name).toBeDefined();
    expect(run.code).toBe(129);
    expect(await scratchDbs(src.client)).not.toContain(name);
    expect(await checksums(src.client, DB)).toEqual(src.before);
  }, 120_000);

  it(
    'a second Ctrl-C quits at once, names what may remain and how to drop it; the marker makes it stale for ' +
      'the next run',
    async () => {
      let sent = false;
      const run = await runCli(uri, { MONGO_ADVISOR_TEST_INTERRUPT_AT: 'mid-insert' }, (all, child) => {
        if (!sent && all.includes('Interrupted:')) {
          sent = true;
          child.kill('SIGINT');
        }
      });
      const name = scratchOf(run.err) as string;
      expect(run.code).toBe(130);
      if (run.err.includes('Dropped the scratch database')) {
        // the drop won the race against the second Ctrl-C
        expect(await scratchDbs(src.client)).not.toContain(name);
      } else {
        expect(run.err).toContain(`Quit before the drop was confirmed: the scratch database ${name} may remain`);
        expect(run.err).toContain(`db.getSiblingDB("${name}").dropDatabase()`);
        expect(run.err).toContain('mongo-advisor cleanup <uri> --yes');
        const adapter = await DriverAdapter.connect(uri);
        try {
          const left = (await listScratchDatabases(adapter)).find((d) => d.name === name);
          if (left) {
            expect(left.state, left.why).toBe('stale');
            expect(left.why).toContain('that process no longer runs');
            await src.client.db(name).dropDatabase();
          }
        } finally {
          await adapter.close();
        }
      }
      expect(await checksums(src.client, DB)).toEqual(src.before);
    },
    120_000,
  );
});
