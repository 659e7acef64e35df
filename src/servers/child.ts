/**
 * Child processes for the embedded test servers: free loopback ports, readiness, a graceful stop, and a last-chance
 * kill when Node exits or is interrupted (so no server outlives the run that started it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export type Log = (line: string) => void;
export const noLog: Log = () => {};
/** After the port answers: how long the child must keep running to count as the one answering (not a port thief). */
const BIND_GRACE_MS = 250;

const STOP_GRACE_MS = 5_000;

/** A server the advisor's tests, demo or benchmarks can talk to. */
export interface RunningServer {
  uri: string;
  kind: ServerKind;
  /** One line: what it is and where, e.g. "SecantusDB 0.7.0b3 (WiredTiger) at mongodb://127.0.0.1:41234/". */
  description: string;
  stop(): Promise<void>;
}

export type ServerKind = 'MONGODB_URI' | 'mongodb-memory-server' | 'ferretdb' | 'secantusdb';

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

export async function freeLoopbackPort(): Promise<number> {
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

export interface ServerSpawn {
  name: string;
  command: string;
  args: (port: number, dir: string) => string[];
  /** Prepares the private folder (data directory, config) before the spawn. */
  prepare?: (dir: string) => Promise<void>;
  /** Resolves with the URI when ready. Default: the port accepts a TCP connection. */
  ready?: 'tcp' | ((stdout: string) => string | null);
  readyTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Spawns a server on a free loopback port in a private temporary folder (deleted at stop and at exit), waits until
 * it is ready and returns it. Retries with another port when the one picked was taken in the meantime.
 */
export async function spawnServer(
  spec: ServerSpawn,
  retries = 3,
): Promise<{ uri: string; stop: () => Promise<void>; pid: number | undefined }> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= retries; attempt++) {
    try {
      return await spawnOnce(spec);
    } catch (err) {
      lastError = err;
      if (!/address already in use|EADDRINUSE/i.test(String((err as Error).message))) break;
    }
  }
  throw lastError;
}

async function spawnOnce(
  spec: ServerSpawn,
): Promise<{ uri: string; stop: () => Promise<void>; pid: number | undefined }> {
  const port = await freeLoopbackPort();
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `mongo-advisor-${spec.name.toLowerCase()}-`));
  await spec.prepare?.(dir);
  const child = spawn(spec.command, spec.args(port, dir), {
    cwd: dir,
    env: spec.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const entry: LiveChild = { child, dir };
  live.add(entry);
  installHandlers();

  // Servers log every connection: always drain both pipes (a full pipe would block the server) and keep a tail.
  let stderrTail = '';
  let stdoutBuf = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail = tail(stderrTail + chunk, 4_000);
  });
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdoutBuf = tail(stdoutBuf + chunk, 8_000);
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
    uri = await waitForReady(
      spec,
      child,
      port,
      () => stdoutBuf,
      () => stderrTail,
    );
  } catch (err) {
    await terminate(child, exited);
    await cleanup();
    throw err;
  }

  // Neither the child nor its pipes should keep Node alive; the exit handler kills the child if nobody calls stop().
  child.unref();
  unrefStream(child.stdout);
  unrefStream(child.stderr);

  let stopping: Promise<void> | undefined;
  return {
    uri,
    pid: child.pid,
    stop: () =>
      (stopping ??= (async () => {
        await terminate(child, exited);
        await cleanup();
      })()),
  };
}

function waitForReady(
  spec: ServerSpawn,
  child: ChildProcess,
  port: number,
  stdout: () => string,
  stderr: () => string,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    let poll: NodeJS.Timeout | undefined;
    const detail = (): string => {
      const t = tail(stderr(), 1_500).trim();
      return t ? `; stderr: ${t}` : '';
    };
    const finish = (err: Error | undefined, uri?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(poll);
      child.off('error', onError);
      child.off('exit', onEarlyExit);
      child.stdout?.off('data', onStdout);
      if (err) reject(err);
      else resolve(uri as string);
    };
    const onError = (err: Error): void => finish(new Error(`cannot run ${spec.name}: ${err.message}`));
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      // Let the stderr pipe flush so the message explains the exit.
      setImmediate(() =>
        finish(new Error(`${spec.name} exited before it was ready (${signal ?? `exit ${code}`})${detail()}`)),
      );
    };
    const timer = setTimeout(
      () => finish(new Error(`${spec.name} was not ready within ${spec.readyTimeoutMs / 1000} s${detail()}`)),
      spec.readyTimeoutMs,
    );
    const onStdout = (): void => {
      if (typeof spec.ready !== 'function') return;
      const uri = spec.ready(stdout());
      if (uri) finish(undefined, uri);
    };
    child.once('error', onError);
    child.once('exit', onEarlyExit);
    child.stdout?.on('data', onStdout);
    if (typeof spec.ready !== 'function') {
      const tryConnect = (): void => {
        const sock = net.connect({ host: '127.0.0.1', port });
        sock.once('connect', () => {
          sock.destroy();
          // Someone answers on the port, but the port was free when picked and another process may have taken it
          // since: ours then fails to bind and exits. Where the system says who listens (Linux's /proc), ready only
          // when the listener is our child or one of its descendants; someone else's listener means ours could not
          // bind, whatever the time it takes to exit (a loaded machine). Elsewhere, ready if it is still running a
          // moment later (an early exit settles first, with its stderr).
          const owner = child.pid === undefined ? null : listenerOwnedBy(child.pid, port);
          if (owner === false) return finish(new Error(`${takenMessage(spec.name, port)}${detail()}`));
          poll = setTimeout(
            () => {
              if (child.exitCode === null && child.signalCode === null)
                finish(undefined, `mongodb://127.0.0.1:${port}/`);
            },
            owner === true ? 0 : BIND_GRACE_MS,
          );
        });
        sock.once('error', () => {
          sock.destroy();
          if (!settled) poll = setTimeout(tryConnect, 150);
        });
      };
      tryConnect();
    }
  });
}

function takenMessage(name: string, port: number): string {
  return `${name} could not listen on port ${port}: another process took it (address already in use)`;
}

/**
 * Whether the process listening on 127.0.0.1:`port` is `pid` or one of its descendants, read from Linux's /proc (the
 * listening socket's inode in /proc/net/tcp*, then the processes' open descriptors); null where /proc cannot tell
 * (another system, or the socket not yet listed).
 */
export function listenerOwnedBy(pid: number, port: number): boolean | null {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT, st 0A is LISTEN, the inode is the tenth column
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A' && cols[9] && cols[9] !== '0') inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return null;
  const seen = new Set<number>();
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift() as number;
    if (seen.has(p)) continue;
    seen.add(p);
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${p}/fd/${fd}`));
        if (m?.[1] && inodes.has(m[1])) return true;
      } catch {
        // closed meanwhile
      }
    }
    try {
      for (const tid of fs.readdirSync(`/proc/${p}/task`))
        for (const c of fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').trim().split(/\s+/))
          if (c) queue.push(Number(c));
    } catch {
      // no children list: the descendants cannot be read
    }
  }
  // the listener is someone else's only if we could read our own descriptors
  return seen.size > 0 && fs.existsSync(`/proc/${pid}/fd`) ? false : null;
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

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs a command, collecting stdout+stderr; rejects only if it cannot be spawned. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
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

export function tail(s: string, max: number): string {
  return s.length <= max ? s : s.slice(s.length - max);
}

/** One short line describing an error. */
export function oneLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  let msg = raw.replace(/\s+/g, ' ').trim();
  // mongodb-memory-server: 'Download failed for url "…/x.tgz", Details: getaddrinfo ENOTFOUND …'
  const dl = /^Download failed for url "([^"]*)", Details: (.*)$/.exec(msg);
  if (dl) msg = `${dl[2]} (downloading ${path.posix.basename(dl[1] ?? '')})`;
  // require(): keep the first sentence, not the require stack.
  msg = msg.replace(/ Require stack:.*$/, '');
  return msg.length > 200 ? `${msg.slice(0, 197)}...` : msg;
}

/** Where built or installed servers are kept between runs (`MONGO_ADVISOR_CACHE` overrides it). */
export function cacheDir(): string {
  return process.env.MONGO_ADVISOR_CACHE || path.join(os.homedir(), '.cache', 'mongo-advisor');
}

/** The directory of the package.json named `mongo-advisor`, from src/ or dist/. */
export function findPackageRoot(): string {
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

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await fsp.access(file, fs.constants.X_OK);
    return (await fsp.stat(file)).isFile();
  } catch {
    return false;
  }
}
