import { join } from 'node:path';
import { type ProcessResult, runProcess } from './run';

const ROOT = join(__dirname, '..', '..');
/** The real mongosh the project installs (a devDependency). */
export const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
/** The built plugin (`npm run build`): the file a user `load()`s. */
export const PLUGIN = join(ROOT, 'dist', 'advisor.js');
/** mongosh's own update check off: no network, no notice in the output. */
export const MONGOSH_ENV = { MONGOSH_NO_UPDATE_CHECK: '1' } as const;

/** `uri` with its path and options replaced by `/<db>`: the shell's current database. */
export const shellUri = (uri: string, db: string): string => `${uri.replace(/\/?(\?.*)?$/, '')}/${db}`;

/**
 * Runs the real mongosh once on `db` of the server at `uri` (`--quiet --norc`), the plugin loaded first unless `load`
 * is false, then `script` (one `--eval`); `json` adds `--json=relaxed` (the last value printed as Extended JSON).
 * A start costs seconds of CPU on a small machine: a test that checks several things puts them in one script where
 * they do not interfere. Asynchronous (see runProcess).
 */
export async function mongosh(
  uri: string,
  db: string,
  script: string,
  opts: { json?: boolean; load?: boolean; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  const code = opts.load === false ? script : `load(${JSON.stringify(PLUGIN)}); ${script}`;
  const args = [shellUri(uri, db), '--quiet', '--norc', ...(opts.json ? ['--json=relaxed'] : []), '--eval', code];
  return await runProcess(MONGOSH, args, {
    env: { ...MONGOSH_ENV, ...opts.env },
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
}
