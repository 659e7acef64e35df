/**
 * `--log <file|->` and `--queries <file>` of check, collect and audit: the workload a run is given instead of the
 * profiler. The readers' counts are said on stderr (lines, slow queries, what was skipped), never a value: the
 * records' commands are user data and stay in memory (src/workload/record.ts).
 */
import { Option } from 'commander';
import type { GivenWorkload } from '../core/collector';
import { terminalSafe } from '../core/format';
import { UserError } from '../core/errors';
import { readSlowQueryLog, unusableLog } from '../workload/log-reader';
import { readQueriesFile } from '../workload/queries-file';
import type { WorkloadRecord } from '../workload/record';
import type { Io } from './io';

export interface WorkloadFlags {
  log?: string;
  queries?: string;
}

/** `--log <file|->`: the slow queries of the server's JSON log as the workload. */
export function logOption(): Option {
  return new Option(
    '--log <file>',
    "the server's JSON log (4.4+, plain or gzip; - for stdin): its slow queries replace the profiler as the " +
      'workload the query-indexes rule judges',
  );
}

/** `--queries <file>`: the queries the application sends as the workload. */
export function queriesOption(): Option {
  return new Option(
    '--queries <file>',
    'the queries the application sends (Extended JSON): the workload the query-indexes rule judges',
  );
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The workload the flags name, read and counted on stderr; undefined without either flag. */
export async function readWorkload(flags: WorkloadFlags, io: Io): Promise<GivenWorkload | undefined> {
  const records: WorkloadRecord[] = [];
  const from: string[] = [];
  if (flags.log !== undefined) {
    const name = flags.log === '-' ? 'the log on stdin' : `the log ${terminalSafe(flags.log)}`;
    const read = await readSlowQueryLog(flags.log === '-' ? process.stdin : flags.log);
    const c = read.counts;
    const skipped = c.malformed + c.truncated + c.tooLong;
    io.err(
      `${name}: ${plural(c.lines, 'line')} read, ` +
        `${plural(c.slowQueries, 'slow query', 'slow queries')}, ${plural(c.records, 'operation')} kept, ` +
        `${skipped} malformed, truncated or too long skipped, ${c.own + c.scratch} of the advisor's own left out.`,
    );
    const unusable = unusableLog(read);
    if (unusable) throw new UserError(`The log ${flags.log === '-' ? 'on stdin' : flags.log} ${unusable}`);
    for (const n of read.notes) io.err(n);
    records.push(...read.records);
    from.push(name);
  }
  if (flags.queries !== undefined) {
    const read = readQueriesFile(flags.queries);
    const name = `the queries file ${terminalSafe(flags.queries)}`;
    io.err(`${name}: ${plural(read.length, 'query', 'queries')} read.`);
    records.push(...read);
    from.push(name);
  }
  return from.length ? { from: from.join(' and '), records } : undefined;
}
