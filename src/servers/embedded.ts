/**
 * Finds a MongoDB-compatible server to run against, in this order:
 *
 *   1. `MONGODB_URI` from the environment (used as is, never stopped by us);
 *   2. `mongodb-memory-server` (a devDependency, loaded lazily; downloads mongod);
 *   3. FerretDB v1.24 with its SQLite backend, built once from `tools/ferretdb`
 *      with the local Go toolchain and cached on disk.
 *
 * Every attempt that fails leaves a one-line reason, which ends up in the
 * chosen server's `description` or, when nothing works, in the thrown error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RunningServer {
  uri: string;
  kind: 'MONGODB_URI' | 'mongodb-memory-server' | 'ferretdb';
  description: string;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Progress messages for slow steps (a cold FerretDB build, for example). */
  log?: (line: string) => void;
  /** Try FerretDB before mongodb-memory-server. `MONGODB_URI` still wins. */
  preferFerret?: boolean;
}

const FERRETDB_VERSION = 'v1.24.0';
const FERRETDB_LABEL = 'FerretDB 1.24 (SQLite)';
const MEMORY_SERVER_TIMEOUT_MS = 90_000;
const FERRET_READY_TIMEOUT_MS = 30_000;
const FERRET_BUILD_TIMEOUT_MS = 15 * 60_000;
const STOP_GRACE_MS = 5_000;
const PORT_RETRIES = 3;
const STDERR_TAIL_CHARS = 4_000;

type Log = (line: string) => void;
const noLog: Log = () => {};

/* ------------------------------------------------------------------------ */
/* startServer                                                              */
/* ------------------------------------------------------------------------ */

export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? noLog;

  const envUri = process.env.MONGODB_URI?.trim();
  if (envUri) {
    return {
      uri: envUri,
      kind: 'MONGODB_URI',
      description: `MONGODB_URI at ${redactUri(envUri)}`,
      stop: async () => {},
    };
  }

  type Attempt = { name: string; run: () => Promise<RunningServer> };
  const memory: Attempt = { name: 'mongodb-memory-server', run: () => startMemoryServer() };
  const ferret: Attempt = { name: 'FerretDB', run: () => startFerret(log) };
  const attempts = opts.preferFerret ? [ferret, memory] : [memory, ferret];

  const skipped: string[] = [];
  for (const attempt of attempts) {
    try {
      const server = await attempt.run();
      if (skipped.length > 0) server.description += ` — ${skipped.join('; ')}`;
      return server;
    } catch (err) {
      skipped.push(`${attempt.name} unavailable: ${oneLine(err)}`);
    }
  }

  throw new Error(
    'mongo-advisor could not start a MongoDB-compatible server:\n' +
      skipped.map((s) => `  - ${s}\n`).join('') +
      'To fix this, either set MONGODB_URI to a server you can use (e.g. MONGODB_URI=mongodb://127.0.0.1:27017/), ' +
      'or install Go >= 1.22 (https://go.dev/dl/) and put `go` on PATH so the FerretDB fallback can be built, ' +
      'or give mongodb-memory-server network access to download mongod.',
  );
}

/* ------------------------------------------------------------------------ */
/* mongodb-memory-server                                                    */
/* ------------------------------------------------------------------------ */

interface MemoryServerInstance {
  getUri(): string;
  stop(opts?: { doCleanup?: boolean; force?: boolean }): Promise<boolean>;
}
interface MemoryServerModule {
  MongoMemoryServer: { create(): Promise<MemoryServerInstance> };
}

async function startMemoryServer(): Promise<RunningServer> {
  let mod: MemoryServerModule;
  try {
    // A devDependency: absent in production installs, so load it lazily.
     
    mod = require('mongodb-memory-server') as MemoryServerModule;
  } catch (err) {
    throw new Error(`not installed (${oneLine(err)})`);
  }

  // On failure mongodb-memory-server prints a multi-line console.warn with the
  // whole stack; we report the reason ourselves, so drop just that message
  // while this attempt is pending.
  const originalWarn = console.warn;
  const filteredWarn = (...args: unknown[]): void => {
    if (typeof args[0] === 'string' && args[0].startsWith('Starting the MongoMemoryServer Instance failed')) return;
    originalWarn.apply(console, args);
  };
  console.warn = filteredWarn;
  const restoreWarn = (): void => {
    if (console.warn === filteredWarn) console.warn = originalWarn;
  };

  let creating: Promise<MemoryServerInstance>;
  try {
    creating = mod.MongoMemoryServer.create();
  } catch (err) {
    restoreWarn();
    throw err;
  }
  creating.then(restoreWarn, restoreWarn);

  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const server = await Promise.race([
      creating,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new Error(`did not start within ${MEMORY_SERVER_TIMEOUT_MS / 1000} s`));
        }, MEMORY_SERVER_TIMEOUT_MS);
      }),
    ]);
    const uri = server.getUri();
    let stopping: Promise<void> | undefined;
    return {
      uri,
      kind: 'mongodb-memory-server',
      description: `mongodb-memory-server at ${uri}`,
      stop: () => (stopping ??= server.stop({ doCleanup: true, force: true }).then(() => undefined)),
    };
  } catch (err) {
    if (timedOut) {
      // It may still come up later (a slow download); do not leave it running.
      creating.then((late) => late.stop({ doCleanup: true, force: true })).catch(() => {});
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/* ------------------------------------------------------------------------ */
/* FerretDB binary                                                          */
/* ------------------------------------------------------------------------ */

let buildInFlight: Promise<string> | undefined;

/**
 * Returns the path of the cached FerretDB binary, building it with `go build`
 * the first time. The file name carries a hash of the Go sources, so editing
 * them produces a new binary. Safe to call from several processes at once:
 * each builds into its own temporary name and renames it into place.
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
  const cacheDir = process.env.MONGO_ADVISOR_CACHE || path.join(os.homedir(), '.cache', 'mongo-advisor');
  const target = path.join(cacheDir, `ferretdb-${FERRETDB_VERSION}-${hash}${exe}`);

  if (await isExecutable(target)) return target;

  await assertGoAvailable();
  await fsp.mkdir(cacheDir, { recursive: true });
  const tmp = path.join(cacheDir, `.ferretdb-${FERRETDB_VERSION}-${hash}.${process.pid}.${randomBytes(4).toString('hex')}.tmp${exe}`);

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
        `go build failed (${result.signal ?? `exit ${result.code}`}) in ${srcDir}: ${tail(result.output, 1_500).trim()}`,
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

/** The directory of the package.json named `mongo-advisor`, from src/ or dist/. */
function findPackageRoot(): string {
  for (const start of [__dirname, process.cwd()]) {
    let dir = path.resolve(start);
    for (;;) {
      const pkgPath = path.join(dir, 'package.json');
      try {
        const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { name?: unknown };
        if (pkg.name === 'mongo-advisor') return dir;
      } catch {
        // not there or not JSON: keep walking up
      }
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error(`cannot find the mongo-advisor package root above ${__dirname}`);
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fsp.access(file, fs.constants.X_OK);
    return (await fsp.stat(file)).isFile();
  } catch {
    return false;
  }
}

/* ------------------------------------------------------------------------ */
/* FerretDB process                                                         */
/* ------------------------------------------------------------------------ */

interface LiveChild {
  child: ChildProcess;
  dir: string;
}

const live = new Set<LiveChild>();
let handlersInstalled = false;

function onExit(): void {
  for (const entry of live) killNow(entry);
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  onExit();
  uninstallHandlers();
  // We replaced Node's default action by listening; if nobody else listens,
  // restore the default and re-raise so the process still dies of the signal.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', onExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function uninstallHandlers(): void {
  if (!handlersInstalled) return;
  handlersInstalled = false;
  process.off('exit', onExit);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

function killNow(entry: LiveChild): void {
  if (entry.child.exitCode === null && entry.child.signalCode === null) {
    try {
      entry.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  try {
    fs.rmSync(entry.dir, { recursive: true, force: true });
  } catch {
    // best effort during exit
  }
}

async function startFerret(log: Log): Promise<RunningServer> {
  const binary = await ensureFerretBinary(log);
  let lastError: unknown;
  for (let attempt = 1; attempt <= PORT_RETRIES; attempt++) {
    try {
      return await spawnFerret(binary);
    } catch (err) {
      lastError = err;
      // Another process can grab the port between our probe and FerretDB's bind.
      if (!/address already in use/i.test(String((err as Error).message))) break;
    }
  }
  throw lastError;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read a free port'))));
    });
  });
}

async function spawnFerret(binary: string): Promise<RunningServer> {
  const port = await freeLoopbackPort();
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'mongo-advisor-ferretdb-'));
  const child = spawn(binary, ['-listen', `127.0.0.1:${port}`, '-dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const entry: LiveChild = { child, dir };
  live.add(entry);
  installHandlers();

  // FerretDB logs every connection to stderr: always drain both pipes (a full
  // pipe would block it) and keep only a tail for error messages.
  let stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = tail(stderrTail + chunk, STDERR_TAIL_CHARS);
  });

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const cleanup = async (): Promise<void> => {
    live.delete(entry);
    if (live.size === 0) uninstallHandlers();
    await fsp.rm(dir, { recursive: true, force: true }).catch(() => {});
  };

  let uri: string;
  try {
    uri = await waitForReady(child, () => stderrTail);
  } catch (err) {
    await terminate(child, exited);
    await cleanup();
    throw err;
  }

  // Neither the child nor its pipes should keep Node alive; the exit handler
  // kills the child if the caller never calls stop().
  child.unref();
  unrefStream(child.stdout);
  unrefStream(child.stderr);

  let stopping: Promise<void> | undefined;
  return {
    uri,
    kind: 'ferretdb',
    description: `${FERRETDB_LABEL} at ${uri}`,
    stop: () =>
      (stopping ??= (async () => {
        await terminate(child, exited);
        await cleanup();
      })()),
  };
}

function waitForReady(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stdoutBuf = '';
    let settled = false;
    const detail = (): string => {
      const t = tail(stderr(), 1_500).trim();
      return t ? `; stderr: ${t}` : '';
    };
    const finish = (err: Error | undefined, uri?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('error', onError);
      child.off('exit', onEarlyExit);
      if (err) reject(err);
      else resolve(uri as string);
    };
    const onError = (err: Error): void => finish(new Error(`cannot run FerretDB binary: ${err.message}`));
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      // Let the stderr pipe flush so the message explains the exit.
      setImmediate(() =>
        finish(new Error(`FerretDB exited before it was ready (${signal ?? `exit ${code}`})${detail()}`)),
      );
    };
    const timer = setTimeout(
      () => finish(new Error(`FerretDB was not ready within ${FERRET_READY_TIMEOUT_MS / 1000} s${detail()}`)),
      FERRET_READY_TIMEOUT_MS,
    );
    child.once('error', onError);
    child.once('exit', onEarlyExit);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (settled) return; // keep draining, nothing else to read
      stdoutBuf = tail(stdoutBuf + chunk, 8_000);
      const m = /^ready (\S+)\s*$/m.exec(stdoutBuf);
      if (m?.[1]) finish(undefined, m[1]);
    });
  });
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.ref(); // keep Node alive until it is really gone
  try {
    child.kill('SIGTERM');
    if (await settlesWithin(exited, STOP_GRACE_MS)) return;
    child.kill('SIGKILL');
    await settlesWithin(exited, STOP_GRACE_MS);
  } finally {
    child.unref();
  }
}

async function settlesWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function unrefStream(stream: NodeJS.ReadableStream | null | undefined): void {
  const s = stream as unknown as { unref?: () => void } | null | undefined;
  s?.unref?.();
}

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs a command, collecting stdout+stderr; rejects only if it cannot be spawned. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = tail(output + chunk.toString('utf8'), 20_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      output += `\n(killed after ${opts.timeoutMs / 1000} s)`;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

function tail(s: string, max: number): string {
  return s.length <= max ? s : s.slice(s.length - max);
}

/** One short line describing an error. */
function oneLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  let msg = raw.replace(/\s+/g, ' ').trim();
  // mongodb-memory-server: 'Download failed for url "…/x.tgz", Details: getaddrinfo ENOTFOUND …'
  const dl = /^Download failed for url "([^"]*)", Details: (.*)$/.exec(msg);
  if (dl) msg = `${dl[2]} (downloading ${path.posix.basename(dl[1] ?? '')})`;
  // require(): keep the first sentence, not the require stack.
  msg = msg.replace(/ Require stack:.*$/, '');
  return msg.length > 200 ? `${msg.slice(0, 197)}...` : msg;
}

/** Hides the password in a connection string, for descriptions and logs. */
function redactUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^:@/]+):[^@/]*@/, '$1:***@');
}
