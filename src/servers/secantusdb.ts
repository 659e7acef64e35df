/**
 * SecantusDB, a MongoDB wire-protocol server written in Python over the WiredTiger library mongod ships. It is
 * GPL-2.0-only: the advisor never bundles or links it; it is installed with pip (pinned version) into a virtual
 * environment in the cache folder and run as a separate process, for tests, the demo and benchmarks only.
 *
 * It has what FerretDB lacks ($sample, $bsonSize, $size, validators, collMod, clustered collections, explain with
 * stages and index names), so it runs the advisor's MongoDB-only paths live. It is an imitation: where it differs
 * from mongod, the product follows MongoDB's documentation (docs/test-servers.md lists the divergences).
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { cacheDir, isExecutable, type Log, noLog, oneLine, run, type RunningServer, spawnServer, tail } from './child';

export const SECANTUS_VERSION = '0.7.0b3';
export const SECANTUS_LABEL = `SecantusDB ${SECANTUS_VERSION} (WiredTiger)`;
const MIN_PYTHON: [number, number] = [3, 10];
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const READY_TIMEOUT_MS = 60_000;
const LOCK_STALE_MS = INSTALL_TIMEOUT_MS + 60_000;
const COMPLETE_MARKER = '.mongo-advisor-complete';

const bin = (venv: string, name: string): string =>
  process.platform === 'win32' ? path.join(venv, 'Scripts', `${name}.exe`) : path.join(venv, 'bin', name);

let installInFlight: Promise<string> | undefined;

/**
 * Returns the path of `secantusd-py` in the cached virtual environment, creating it with `python3 -m venv` and
 * `pip install SecantusDB==<pinned>` the first time. Several processes may call this at once: one installs under a
 * lock folder, the others wait for its completion marker.
 */
export async function ensureSecantus(log?: Log): Promise<string> {
  installInFlight ??= install(log ?? noLog).finally(() => {
    installInFlight = undefined;
  });
  return installInFlight;
}

async function install(log: Log): Promise<string> {
  const venv = path.join(cacheDir(), `secantusdb-${SECANTUS_VERSION}`);
  const server = bin(venv, 'secantusd-py');
  const marker = path.join(venv, COMPLETE_MARKER);
  if (fs.existsSync(marker) && (await isExecutable(server))) return server;

  await fsp.mkdir(cacheDir(), { recursive: true });
  const lock = `${venv}.lock`;
  for (const started = Date.now(); ; ) {
    try {
      await fsp.mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (fs.existsSync(marker) && (await isExecutable(server))) return server;
      const age =
        Date.now() -
        (await fsp.stat(lock).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        ));
      if (age > LOCK_STALE_MS) await fsp.rm(lock, { recursive: true, force: true });
      else if (Date.now() - started > LOCK_STALE_MS)
        throw new Error(
          `another process has been installing SecantusDB for over ${LOCK_STALE_MS / 60_000} min ` +
            `(lock ${lock}); if no install is running, delete that folder and run again`,
        );
      else await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  try {
    if (fs.existsSync(marker) && (await isExecutable(server))) return server;
    const python = await findPython();
    await fsp.rm(venv, { recursive: true, force: true });
    log(`installing SecantusDB ${SECANTUS_VERSION} with pip into ${venv} (one time; about a minute)`);
    const started = Date.now();
    const mk = await run(python, ['-m', 'venv', venv], { timeoutMs: 120_000 });
    if (mk.code !== 0)
      throw new Error(
        `\`${python} -m venv\` failed: ${tail(mk.output, 800).trim()} (on Debian/Ubuntu: apt-get install python3-venv)`,
      );
    const pip = await run(
      bin(venv, 'python'),
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', `SecantusDB==${SECANTUS_VERSION}`],
      {
        timeoutMs: INSTALL_TIMEOUT_MS,
        env: { ...process.env, PIP_NO_INPUT: '1' },
      },
    );
    if (pip.code !== 0)
      throw new Error(
        `pip install SecantusDB==${SECANTUS_VERSION} failed ` +
          `(${pip.signal ?? `exit ${pip.code}`}): ${tail(pip.output, 1_200).trim()}`,
      );
    if (!(await isExecutable(server))) throw new Error(`pip installed SecantusDB but ${server} is missing`);
    await fsp.writeFile(marker, `SecantusDB==${SECANTUS_VERSION}\n`);
    log(`installed SecantusDB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return server;
  } catch (err) {
    await fsp.rm(venv, { recursive: true, force: true }).catch(() => {});
    throw err;
  } finally {
    await fsp.rm(lock, { recursive: true, force: true }).catch(() => {});
  }
}

/** `MONGO_ADVISOR_PYTHON`, else the first of python3 / python that is 3.10 or newer. */
async function findPython(): Promise<string> {
  const candidates = process.env.MONGO_ADVISOR_PYTHON ? [process.env.MONGO_ADVISOR_PYTHON] : ['python3', 'python'];
  const seen: string[] = [];
  for (const py of candidates) {
    try {
      const r = await run(py, ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { timeoutMs: 30_000 });
      const version = /(\d+)\.(\d+)/.exec(r.output);
      if (r.code !== 0 || !version) {
        seen.push(`${py}: ${r.code !== 0 ? 'no venv module' : 'no version'}`);
        continue;
      }
      const [major, minor] = [Number(version[1]), Number(version[2])];
      if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) return py;
      seen.push(`${py} is ${major}.${minor}`);
    } catch (err) {
      seen.push(`${py}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not on PATH' : oneLine(err)}`);
    }
  }
  throw new Error(
    `SecantusDB needs Python ${MIN_PYTHON.join('.')}+ with venv (${seen.join('; ')}); set MONGO_ADVISOR_PYTHON to one`,
  );
}

/**
 * Installs (first time) and starts SecantusDB on a free loopback port with a private WiredTiger folder.
 * `testCommands` turns on mongod's test-only commands (`configureFailPoint`), for the test suite's fault injection.
 * `auth` turns on access control (SCRAM-SHA-256; users and roles enforced), and `storagePath` keeps the data in a
 * folder of the caller's, which outlives the server: users are created without auth, then the server restarted with it.
 */
export async function startSecantus(
  log: Log = noLog,
  opts: { testCommands?: boolean; auth?: boolean; storagePath?: string } = {},
): Promise<RunningServer> {
  const server = await ensureSecantus(log);
  const { uri, stop } = await spawnServer({
    name: 'SecantusDB',
    command: server,
    prepare: async (dir) => {
      // An explicit (empty) config file turns off its discovery of ./, ~/.secantus/ and /etc/secantus/ configs.
      await fsp.writeFile(path.join(dir, 'secantusd.toml'), '# mongo-advisor: defaults only\n');
    },
    args: (port, dir) => [
      ...['--config', path.join(dir, 'secantusd.toml'), '--host', '127.0.0.1', '--port', String(port)],
      ...['--storage-path', opts.storagePath ?? path.join(dir, 'data'), '--log-level', 'WARNING'],
      ...(opts.testCommands ? ['--enable-test-commands'] : []),
      ...(opts.auth ? ['--auth'] : []),
    ],
    ready: 'tcp',
    readyTimeoutMs: READY_TIMEOUT_MS,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { uri, kind: 'secantusdb', description: `${SECANTUS_LABEL} at ${uri}`, stop };
}
