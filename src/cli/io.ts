/** Where the CLI writes; tests pass their own. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

export const defaultIo: Io = {
  out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
  isTTY: process.stdout.isTTY === true,
};

/** 0: nothing at or above the failing severity; 1: findings; 2: usage, input or connection errors. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;
