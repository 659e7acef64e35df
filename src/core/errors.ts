/**
 * An error a user can meet and fix: bad input, an unknown database, a server that cannot be reached.
 * The message says what happened, why, and what to do next; the CLI prints it without a stack trace.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(
    message: string,
    /** CLI exit code: 2 for usage and connection problems. */
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

/** A collection named for checking that its database does not hold (the message lists what it holds). */
export class NoSuchCollection extends UserError {
  override name = 'NoSuchCollection';
}

/** A database named for checking that the server does not hold; `what` is the message without the CLI's hint. */
export class NoSuchDatabase extends UserError {
  override name = 'NoSuchDatabase';
  constructor(
    message: string,
    readonly what: string,
    /** Every database the server listed (admin, local and config included). */
    readonly databases: readonly string[],
  ) {
    super(message);
  }
}

/**
 * Whether an error is an authorization refusal: MongoDB's Unauthorized (13, also what the privilege gate throws for a
 * command it did not send), Atlas' "not allowed to do action" (8000), or a command that needs a signed-in user.
 */
export function isRefusal(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (e.code === 13 || e.code === 8000 || e.codeName === 'Unauthorized') return true;
  const refused = /\bnot (authorized|allowed to do action)\b|requires authentication/i;
  return typeof e.message === 'string' && refused.test(e.message);
}
