import { type ChildProcess, spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/**
 * Runs a real program (the CLI, mongosh, npm) and collects its output. Asynchronous on purpose: a spawnSync blocks
 * the test worker's event loop for the whole run (tens of seconds with a confirmation), and vitest's calls between
 * the worker and the main process time out meanwhile ("Timeout calling onTaskUpdate", an error that fails the run).
 */
export async function runProcess(
  cmd: string,
  args: readonly string[],
  opts: {
    env?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
    input?: string;
    onErr?: (chunk: string) => void;
    onOut?: (chunk: string, child: ChildProcess) => void;
  } = {},
): Promise<ProcessResult> {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    timeout: opts.timeoutMs ?? 240_000,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    opts.onOut?.(d.toString(), child);
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
    opts.onErr?.(d.toString());
  });
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  return await new Promise<ProcessResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}
