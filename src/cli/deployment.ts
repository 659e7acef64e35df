import { readOnly, SCRATCH_PREFIX } from '../adapters/read-only';
import { type Adapter, describeServerError } from '../adapters/types';
import { COLLECT_DEFAULTS, collectDatabases, type CollectDatabasesOptions, listDatabaseNames } from '../collect';
import { isRefusal, UserError } from '../core/errors';
import type { Snapshot } from '../core/types';
import type { Progress } from './progress';

/** Databases the server keeps for itself, and the advisor's own scratch databases. */
export function isInternalDb(name: string): boolean {
  return ['admin', 'local', 'config'].includes(name) || name.startsWith(SCRATCH_PREFIX);
}

function userDatabases(names: readonly string[]): string[] {
  return names.filter((n) => !isInternalDb(n)).sort();
}

export interface DeploymentCollectOptions extends Omit<CollectDatabasesOptions, 'dbs'> {
  /** Databases to read; every user database when empty. */
  dbs: string[];
  progress?: Progress;
}

/**
 * Collects several databases (all user databases when none are named) into one snapshot: the server is probed once,
 * deployment-wide collectors run once, with at most `dbConcurrency` databases and `concurrency` collections in flight.
 * The progress bar advances per collection.
 */
export async function collectDeployment(source: Adapter, opts: DeploymentCollectOptions): Promise<Snapshot> {
  // Inspection only reads: the same gate collectDatabases puts in front of every collector.
  const adapter = readOnly(source, opts.readPreference ? { readPreference: opts.readPreference } : {});
  const maxTimeMS = opts.maxTimeMS ?? COLLECT_DEFAULTS.maxTimeMS;
  const start = adapter.roundTrips;
  // The names listDatabases gave go on to the collectors (the deployment inventory needs them too).
  const allNames =
    opts.dbs.length > 0
      ? null
      : await listDatabaseNames(adapter, maxTimeMS).catch((err: unknown) => {
          if (!isRefusal(err)) throw err;
          throw new UserError(
            `Could not list the databases of ${adapter.source}: the server refused listDatabases ` +
              `(${describeServerError(err)}), so there is no list to read. ` +
              'Name the databases to read with --db <name> (or grant listDatabases on the cluster).',
          );
        });
  const dbs = allNames ? userDatabases(allNames) : opts.dbs;
  if (dbs.length === 0)
    throw new UserError(
      `${adapter.source} holds no user databases to inspect (admin, local and config are the server's own).`,
    );
  const { progress, dbs: _dbs, ...rest } = opts;
  try {
    const snapshot = await collectDatabases(adapter, {
      ...rest,
      dbs,
      ...(allNames ? { databaseNames: allNames } : {}),
      // The bar's total comes from the listing collect does anyway (no listCollections of its own); the caller's
      // onListed is told too.
      onListed: (total) => {
        progress?.stage('collecting', total);
        rest.onListed?.(total);
      },
      onCollection: (c) => {
        if (c.type === 'collection') progress?.tick(`${c.db}.${c.name}`);
        rest.onCollection?.(c);
      },
    });
    snapshot.roundTrips = adapter.roundTrips - start;
    return snapshot;
  } finally {
    progress?.stop();
  }
}
