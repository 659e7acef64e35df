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
  workloadComplete?: boolean;
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

/**
 * `--workload-complete`: the given log or queries file holds every operation, so an index no shape of it uses can be
 * called unused (index-usage). A slow-query log cannot say so itself: mongod logs an operation that runs longer than
 * slowms (db.setProfilingLevel in MongoDB's manual: "Operations that run for longer than this threshold are
 * considered slow"), so slowms -1 logs every one, and at profiling level 2 "full logging is enabled on the profiler
 * and the diagnostic log" (the profile command's page); sampleRate below 1 logs a sample either way.
 */
export function workloadCompleteOption(): Option {
  return new Option(
    '--workload-complete',
    'the given log/queries file holds every operation: mongod wrote the log with slowms -1 (or at profiling ' +
      'level 2) and sampleRate 1, or the queries file lists every query the application sends; only then does ' +
      'index-usage call an index that no query of it uses unused',
  );
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The workload the flags name, read and counted on stderr; undefined without either flag. */
export async function readWorkload(flags: WorkloadFlags, io: Io): Promise<GivenWorkload | undefined> {
  if (flags.workloadComplete && flags.log === undefined && flags.queries === undefined)
    throw new UserError(
      '--workload-complete vouches for a --log or --queries file, and none was given (the profiler says its own ' +
        'level: at level 2 it records every operation).',
    );
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
  if (!from.length) return undefined;
  return { from: from.join(' and '), records, ...(flags.workloadComplete ? { complete: true } : {}) };
}
