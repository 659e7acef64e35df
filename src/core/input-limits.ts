import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/*
 * Files we read whole (snapshots, specs) are checked for size before they are read and for nesting once parsed, so a
 * huge or hostile file gets a clear error in milliseconds instead of gigabytes of memory or a stack overflow.
 */

/**
 * Largest snapshot file read. Parsed JSON takes several times its text in memory (a 256 MiB snapshot needs one to two
 * GB of heap), and V8 cannot hold a string over 512 MiB at all. A snapshot of 100 collections sampled 10,000
 * documents each is about 200 MB; one past this limit is better collected in parts (`--db`, `--sample-size`).
 */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/**
 * Largest spec file read. A spec is written by hand: collections, options, validators and indexes. 64 MiB is four
 * times the largest document MongoDB stores (16 MiB), so it holds any validator a server would accept, many times.
 */
export const MAX_SPEC_BYTES = 64 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays read from a snapshot or a spec. MongoDB refuses BSON documents nested deeper
 * than 100 levels (the manual, "MongoDB Limits and Thresholds", Nested Depth for BSON Documents), so no validator or
 * option a server holds is deeper; the file's own wrapping (databases, collections, options) adds under a dozen. Every
 * reader past this check (the $jsonSchema checks, drift's canonical form, the rules) may then recurse safely.
 */
export const MAX_NESTING = 128;

/**
 * Largest baseline file read. A baseline holds one fingerprint and a severity per accepted finding, about 150 bytes
 * each: 64 MiB is over 400,000 findings, far past what any deployment's report holds (a few per collection).
 */
export const MAX_BASELINE_BYTES = 64 * 1024 * 1024;

const CHUNK = 1024 * 1024;

/** A file is larger than the limit: nothing past the limit was read. */
export class TooLarge extends Error {
  constructor(readonly bytes: number) {
    super(`the file holds at least ${bytes} bytes`);
  }
}

/**
 * Reads a file as UTF-8, never more than `maxBytes` (plus one chunk): its size is checked first, then counted as it is
 * read (a file that grows meanwhile, or a pipe, is caught too). Throws TooLarge, or the file system's error.
 */
export function readTextBounded(file: string, maxBytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR' });
    }
    if (st.size > maxBytes) throw new TooLarge(st.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(st.size - total, 0) + 1));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new TooLarge(total);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | null;
  key: string;
}

function pathOf(v: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | null = v; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/**
 * The path of the first object or array nested deeper than `limit` levels (the top value is level 1), or null. An
 * explicit stack, not recursion: a value 100,000 levels deep is walked like a flat one. A value met again (a JavaScript
 * spec may share or loop its objects) is walked again only from a greater depth, so a loop ends past the limit and a
 * shared object is not walked once per path.
 */
export function tooDeep(value: unknown, limit = MAX_NESTING): string | null {
  const deepest = new WeakMap<object, number>();
  const stack: Visit[] = [{ value, depth: 1, parent: null, key: '' }];
  for (let v = stack.pop(); v; v = stack.pop()) {
    if (v.value === null || typeof v.value !== 'object') continue;
    if (v.depth > limit) return pathOf(v) || '(top level)';
    if ((deepest.get(v.value) ?? 0) >= v.depth) continue;
    deepest.set(v.value, v.depth);
    for (const [key, child] of Object.entries(v.value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: v.depth + 1, parent: v, key });
    }
  }
  return null;
}

/** A path shortened for a message: its first segments and its last, e.g. `databases.0.collections…properties.a`. */
export function shortPath(path: string, keep = 6): string {
  const parts = path.split('.');
  return parts.length <= keep + 1 ? path : `${parts.slice(0, keep).join('.')}…${parts[parts.length - 1] ?? ''}`;
}
