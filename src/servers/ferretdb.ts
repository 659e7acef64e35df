/**
 * FerretDB v1.24 with its SQLite backend, built once from `tools/ferretdb` (our small Go main around FerretDB's
 * embeddable package) with the local Go toolchain and cached on disk. A database people run in production: its
 * gaps (no `$sample`, validators, clustered collections, WiredTiger) are product behaviour to degrade on.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import {
  cacheDir,
  findPackageRoot,
  isExecutable,
  type Log,
  noLog,
  oneLine,
  run,
  type RunResult,
  type RunningServer,
  spawnServer,
  tail,
} from './child';

const FERRETDB_VERSION = 'v1.24.0';
export const FERRETDB_LABEL = 'FerretDB 1.24 (SQLite)';
const FERRET_READY_TIMEOUT_MS = 30_000;
const FERRET_BUILD_TIMEOUT_MS = 15 * 60_000;

let buildInFlight: Promise<string> | undefined;

/**
 * Returns the path of the cached FerretDB binary, building it with `go build` the first time. The file name carries
 * a hash of the Go sources, so editing them produces a new binary. Safe to call from several processes at once: each
 * builds into its own temporary name and renames it into place.
 */
export async function ensureFerretBinary(log?: Log): Promise<string> {
  buildInFlight ??= buildFerretBinary(log ?? noLog).finally(() => {
    buildInFlight = undefined;
  });
  return buildInFlight;
}

async function buildFerretBinary(log: Log): Promise<string> {
  const root = findPackageRoot();
  const srcDir = path.join(root, 'tools', 'ferretdb');
  let goSum: Buffer;
  let mainGo: Buffer;
  try {
    goSum = await fsp.readFile(path.join(srcDir, 'go.sum'));
    mainGo = await fsp.readFile(path.join(srcDir, 'main.go'));
  } catch (err) {
    throw new Error(`FerretDB sources missing in ${srcDir} (${oneLine(err)})`);
  }
  const hash = createHash('sha256').update(goSum).update(mainGo).digest('hex').slice(0, 12);
  const exe = process.platform === 'win32' ? '.exe' : '';
  const dir = cacheDir();
  const target = path.join(dir, `ferretdb-${FERRETDB_VERSION}-${hash}${exe}`);

  if (await isExecutable(target)) return target;

  await assertGoAvailable();
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(
    dir,
    `.ferretdb-${FERRETDB_VERSION}-${hash}.${process.pid}.${randomBytes(4).toString('hex')}.tmp${exe}`,
  );

  log(`building FerretDB ${FERRETDB_VERSION} with Go into ${target} (one time; 1-3 min on a cold Go module cache)`);
  const started = Date.now();
  try {
    const result = await run('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', tmp, '.'], {
      cwd: srcDir,
      // modernc.org/sqlite is pure Go: no C compiler needed.
      env: { ...process.env, CGO_ENABLED: '0' },
      timeoutMs: FERRET_BUILD_TIMEOUT_MS,
    });
    if (result.code !== 0) {
      throw new Error(
        `go build failed (${result.signal ?? `exit ${result.code}`}) ` +
          `in ${srcDir}: ${tail(result.output, 1_500).trim()}`,
      );
    }
    await fsp.chmod(tmp, 0o755);
    await fsp.rename(tmp, target); // atomic; a racing process renames an identical file
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
  log(`built FerretDB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return target;
}

async function assertGoAvailable(): Promise<void> {
  let result: RunResult;
  try {
    result = await run('go', ['version'], { timeoutMs: 60_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('`go` is not on PATH; install Go >= 1.22 (https://go.dev/dl/) to build the FerretDB fallback');
    }
    throw err;
  }
  if (result.code !== 0) throw new Error(`\`go version\` failed: ${tail(result.output, 500).trim()}`);
}

/** Builds (first time) and starts FerretDB on a free loopback port with a private SQLite folder. */
export async function startFerret(log: Log = noLog): Promise<RunningServer> {
  const binary = await ensureFerretBinary(log);
  const { uri, stop } = await spawnServer({
    name: 'FerretDB',
    command: binary,
    args: (port, dir) => ['-listen', `127.0.0.1:${port}`, '-dir', dir],
    // Our main prints "ready <uri>" once FerretDB listens.
    ready: (stdout) => /^ready (\S+)\s*$/m.exec(stdout)?.[1] ?? null,
    readyTimeoutMs: FERRET_READY_TIMEOUT_MS,
  });
  return { uri, kind: 'ferretdb', description: `${FERRETDB_LABEL} at ${uri}`, stop };
}
