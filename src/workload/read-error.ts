/**
 * Why a workload file (a log, a queries file) could not be opened or read, in words: the system's error code named,
 * never the path twice (the caller names the file) and never a stack trace.
 */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENAMETOOLONG: 'the path is longer than the system allows',
  ELOOP: 'its path has a loop of symbolic links',
  ENOTDIR: 'a part of its path is not a directory',
  EMFILE: 'too many files are open',
  EIO: 'the device reported an input/output error',
};

/** The reason for a Node system error (`code` like ENOENT), or null when `err` is not one. */
export function fileErrorReason(err: unknown): string | null {
  const e = err as NodeJS.ErrnoException | null;
  if (e === null || typeof e !== 'object' || typeof e.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return null;
  return WORDS[e.code] ?? `the system refused it (${e.code})`;
}
