import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const quote = (a: string): string => `'${a.replace(/'/g, "'\\''")}'`;

/**
 * A program run on a pseudo-terminal through script(1), typed at as a user would: what is written goes to the
 * terminal's input, so Ctrl-C (`\x03`) is turned into SIGINT by the terminal while the program is not in raw mode
 * (mongosh leaves raw mode while it evaluates a line), and read as a key when it is (at mongosh's prompt).
 */
export class Terminal {
  readonly child: ChildProcess;
  private text = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(cmd: string, args: readonly string[], env: Record<string, string> = {}) {
    // `exec`: the program replaces script's shell, so the terminal's foreground process is the program itself.
    const line = `exec ${[cmd, ...args].map(quote).join(' ')}`;
    this.child = spawn('script', ['-qfec', line, '/dev/null'], {
      env: { ...process.env, TERM: 'xterm', COLUMNS: '120', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const take = (d: Buffer): void => {
      this.text += d.toString();
    };
    this.child.stdout?.on('data', take);
    this.child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
  }

  /** Everything the terminal showed so far, terminal escapes removed. */
  get output(): string {
    return this.text.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g, '');
  }

  /** Types `text` (a line ends with '\r', as the Enter key sends). */
  type(text: string): void {
    this.child.stdin?.write(text);
  }

  /** Waits for `re` in what the terminal shows from `from` on (an offset in `output`); null on timeout. */
  async waitFor(re: RegExp, ms: number, from = 0): Promise<RegExpExecArray | null> {
    const until = Date.now() + ms;
    for (;;) {
      const m = re.exec(this.output.slice(from));
      if (m) return m;
      if (Date.now() > until || this.child.exitCode !== null) return null;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Ends the session: the program's pid group is killed if it has not exited within `ms`. */
  async close(ms = 10_000): Promise<void> {
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Whether process `pid` descends from process `ancestor` (read from /proc: Linux only, as script(1) is). */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 20; hops++) {
    if (p === ancestor) return true;
    try {
      const ppid = /^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      p = Number(ppid ?? 0);
    } catch {
      return false;
    }
  }
  return false;
}
