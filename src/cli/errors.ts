import { redactUri } from '../core/format';
import { UserError } from '../core/errors';
import { asServerError } from '../adapters/types';

/** Turns a connection failure into what happened, why, and what to do. */
export function connectionError(err: unknown, uri: string): UserError {
  const shown = redactUri(uri);
  const name = (err as { name?: string }).name ?? '';
  const e = asServerError(err);
  if (name === 'MongoParseError' || name === 'MongoAPIError' || /Invalid scheme|URI/i.test(e.message)) {
    return new UserError(`"${shown}" is not a MongoDB connection string: ${e.message}. Expected something like mongodb://host:27017 or mongodb+srv://cluster.example.net.`);
  }
  if (e.code === 18 || /Authentication failed/i.test(e.message)) {
    return new UserError(`Authentication failed for ${shown}. Check the user name, password and authSource (the password is not shown here).`);
  }
  if (name === 'MongoServerSelectionError' || /ECONNREFUSED|ENOTFOUND|timed out|Server selection/i.test(e.message)) {
    return new UserError(`Could not reach a MongoDB server at ${shown}: ${e.message.split('\n')[0] ?? ''}. Check that the server is running and the host and port are right.`);
  }
  return new UserError(`Could not connect to ${shown}: ${e.message.split('\n')[0] ?? ''}. Check the connection string's options (TLS, authSource, replicaSet) and that this machine may connect to the server.`);
}
