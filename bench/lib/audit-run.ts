/**
 * Runs the built CLI (`node dist/cli.cjs <args>`) as a child process: wall time and its peak RSS, read from
 * /proc/<pid>/status (VmHWM, the kernel's high-water mark of the resident set) while it runs.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface CliRun {
  code: number | null;
  wallS: number;
  peakRssMB: number | null;
  /** CPU seconds (user + system) of the CLI process, as last read from /proc before it exited (50 ms steps). */
  cpuS: number | null;
  stderr: string;
}

/** utime + stime of a process in seconds (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function hwmKB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export async function runCli(args: readonly string[]): Promise<CliRun> {
  const cli = path.join(__dirname, '..', '..', 'dist', 'cli.cjs');
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => void (stderr = (stderr + b.toString()).slice(-4000)));
  let peak: number | null = null;
  let cpu: number | null = null;
  const timer = setInterval(() => {
    const kb = child.pid ? hwmKB(child.pid) : null;
    if (kb !== null) peak = Math.max(peak ?? 0, kb);
    const s = child.pid ? cpuSeconds(child.pid) : null;
    if (s !== null) cpu = s;
  }, 50);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(timer);
  const wallS = (performance.now() - t0) / 1000;
  return { code, wallS, peakRssMB: peak === null ? null : peak / 1024, cpuS: cpu, stderr };
}
