import { rules } from '../../../rules';
import { loadConfig } from '../../core/config';
import { collectPlan } from '../../core/runner';
import { Command, Option } from 'commander';
import { formatBytes } from '../../core/format';
import { UserError } from '../../core/errors';
import { serializeSnapshot } from '../../core/snapshot-file';
import { collectDeployment } from '../deployment';
import { informing, type Io } from '../io';
import { createProgress } from '../progress';
import { collectOptionsOf, connect, emit, outputOf, outputOption, sayLeftovers, readPreferenceOption } from '../shared';
import { checkTimeField } from '../time-field';
import { checkConnectionString } from '../uri';
import { dbFromUri, positiveInt } from './check';
import { alongsideWorkload, type WorkloadFlags, workloadOptions } from '../workload';
import { killedProfileLines } from '../profile-marker';

interface CollectFlags extends WorkloadFlags {
  readPreference?: 'primary' | 'secondaryPreferred';
  db?: string[];
  collection?: string[];
  out?: string;
  output?: string;
  sampleSize?: number;
  maxTimeMs: number;
  timeField?: string;
  concurrency: number;
  quiet?: boolean;
  config?: string;
}

/** `mongo-advisor collect <uri>`: read-only, redacted snapshot for `analyze` and `lint` to read anywhere. */
export function registerCollect(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('collect')
    .description(
      'read a deployment (read-only) into a redacted snapshot file: paths, types, sizes, counts, never document values',
    )
    .argument('<uri>', 'connection string, e.g. mongodb://localhost:27017')
    .option('--db <name...>', 'databases to read (default: the one in the connection string, else every user database)')
    .option(
      '-c, --collection <name...>',
      'collections to read (one database only; default: all non-system collections)',
    )
    .option('-o, --output <file>', 'write the snapshot to a file instead of stdout')
    .addOption(
      new Option('-f, --format <format>', 'snapshot format: a snapshot is JSON, read by analyze and lint')
        .choices(['json'])
        .default('json'),
    )
    .addOption(outputOption())
    .option(
      '--sample-size <n>',
      'documents to sample per collection (default min(max(20, 4% of count), 10000))',
      positiveInt,
    )
    .option('--max-time-ms <ms>', 'maxTimeMS for every inspection command', positiveInt, 10000)
    .addOption(readPreferenceOption())
    .option('--time-field <field>', "field holding each document's creation date (default: detected)")
    .option('--concurrency <n>', 'collections (and databases) read at once', positiveInt, 4);
  // --log, --queries and their caps: the same seven options, in the same order, on check, collect and audit
  for (const option of workloadOptions()) cmd.addOption(option);
  cmd
    .option('-q, --quiet', 'no progress bar on stderr')
    .option(
      '--config <file>',
      'configuration file for sampleSize and maps (default: nearest .mongo-advisor.json or package.json ' +
        '"mongoAdvisor")',
    )
    .action((uri: string, flags: CollectFlags) => runCollect(uri, flags, io, setExit));
}

/** One collect: connect, read every planned collector's data, write the snapshot, say where it went. */
async function runCollect(uri: string, flags: CollectFlags, io: Io, setExit: (code: number) => void): Promise<void> {
  checkConnectionString(uri);
  const { config, resolved } = loadConfig(flags.config ? { file: flags.config, rules } : { rules });
  const output = outputOf(flags, io);
  const dbs = flags.db ?? (dbFromUri(uri) ? [dbFromUri(uri) as string] : []);
  if (flags.collection?.length && dbs.length !== 1)
    throw new UserError(
      '--collection needs exactly one database: pass --db <name> (or put it in the connection string).',
    );
  // The log is read while the server work runs; a bad log is still reported as when it was read first.
  await alongsideWorkload(flags, io, async (run) => {
    const adapter = run.own(await connect(uri));
    try {
      await sayLeftovers(adapter, run.io);
      for (const line of killedProfileLines(adapter.source, dbs)) run.io.err(line);
      const snapshot = await collectDeployment(adapter, {
        dbs,
        ...collectOptionsOf(flags, config),
        dbConcurrency: Math.min(2, flags.concurrency),
        progress: run.progress(createProgress({ enabled: !flags.quiet })),
        // Every built-in rule's data: the snapshot is for analysis later, with whatever configuration then.
        collectors: collectPlan(rules),
        // The configured options of the enabled rules: their collectors read them, and the snapshot records them.
        resolved,
        ...(run.workload ? { workload: run.workload } : {}),
      });
      checkTimeField(snapshot, flags.timeField);
      const text = serializeSnapshot(snapshot, collectPlan(rules));
      await emit(informing(io, flags.quiet), text, output, 'snapshot');
      const n = snapshot.databases.reduce((k, d) => k + d.collections.length, 0);
      if (output && output !== '-') {
        const dbs = snapshot.databases.length;
        io.err(
          `${n} collection${n === 1 ? '' : 's'} in ${dbs} database${dbs === 1 ? '' : 's'}, ` +
            `${formatBytes(Buffer.byteLength(text))}, ${snapshot.roundTrips} round trips. ` +
            `It holds paths, types, sizes and counts, no document values. Next: mongo-advisor analyze ${output}`,
        );
      }
      setExit(0);
    } finally {
      await adapter.close().catch(() => undefined);
    }
  });
}
