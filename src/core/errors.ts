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
