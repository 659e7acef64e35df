import { redactServerText } from './redact';

/** A server error as both hosts surface it. */
export interface ServerError {
  code?: number;
  codeName?: string;
  message: string;
}

export function asServerError(err: unknown): ServerError {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; codeName?: unknown; message?: unknown; errmsg?: unknown };
    return {
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
      message:
        typeof e.message === 'string' ? e.message : typeof e.errmsg === 'string' ? e.errmsg : JSON.stringify(err),
    };
  }
  return { message: typeof err === 'string' ? err : (JSON.stringify(err) ?? 'unknown error') };
}

/**
 * Short description of a server error for reports: "CommandNotFound (59): no such command". Document values the
 * server's text holds (a duplicate key's `_id`, a failed validation's document) are masked (src/lib/redact.ts).
 */
export function describeServerError(err: unknown): string {
  const e = asServerError(err);
  const head = e.codeName
    ? `${e.codeName}${e.code !== undefined ? ` (${e.code})` : ''}`
    : e.code !== undefined
      ? `error ${e.code}`
      : 'error';
  const plain = e.code !== undefined ? PLAIN_REASONS[e.code] : undefined;
  return `${head}: ${plain ?? redactServerText(e.message.split('\n')[0] ?? '')}`.slice(0, 240);
}

/**
 * What a few common refusals mean, said instead of the server's own text, which for these names the executor, the
 * namespace and a chain of "caused by" (MongoDB's error_codes.yml gives the codes).
 */
const PLAIN_REASONS: Readonly<Record<number, string>> = {
  50: 'the server stopped the command at its time limit (maxTimeMS)',
  292: 'a stage needed more memory than the server allows without spilling to disk',
};
