import { UserError } from '../core/errors';
import { asServerError } from '../adapters/types';
import { redactText, redactUri } from '../lib/redact';
import type { AuthSettings } from './uri';

interface Cause {
  name: string;
  code?: number;
  codeName?: string;
  message: string;
}

/** The error and what it wraps: `cause`, and each server's error in a server selection failure. */
function causes(err: unknown, depth = 0, seen = new Set<unknown>()): Cause[] {
  if (!err || typeof err !== 'object' || depth > 4 || seen.has(err)) return [];
  seen.add(err);
  const e = asServerError(err);
  const out: Cause[] = [{ name: (err as { name?: string }).name ?? '', ...e }];
  out.push(...causes((err as { cause?: unknown }).cause, depth + 1, seen));
  const servers = (err as { reason?: { servers?: Map<string, { error?: unknown }> } }).reason?.servers;
  if (servers instanceof Map) for (const s of servers.values()) out.push(...causes(s.error, depth + 1, seen));
  return out;
}

const firstLine = (s: string): string => (s.split('\n')[0] ?? '').replace(/\.$/, '');

/**
 * Turns a connection failure into what happened, why and what to check: an authentication refusal (user, authSource,
 * mechanism, never the password), an unreachable host (refused, unknown name, no answer), a TLS failure. Every text
 * shown is redacted of the connection string's secrets (a driver message may echo it).
 */
export function connectionError(
  err: unknown,
  uri: string,
  auth: AuthSettings | null = null,
  label = 'connection string',
): UserError {
  const shown = redactUri(uri);
  // A second connection string (--scratch-uri) is named by its flag, so the user knows which of two servers failed.
  const flag = /^--[a-z-]+/.exec(label)?.[0];
  const where = flag ? `${shown} (${flag})` : shown;
  const all = causes(err);
  const safe = (s: string): string => redactText(s, [uri]);
  const first = safe(firstLine(all[0]?.message ?? String(err)));
  const find = (test: (c: Cause) => boolean): Cause | undefined => all.find(test);
  const authFailure = find(
    (c) =>
      c.code === 18 ||
      c.codeName === 'AuthenticationFailed' ||
      c.name === 'MongoAuthError' ||
      /Authentication failed|SASL|SCRAM|auth.*(fail|error)/i.test(c.message),
  );
  if (authFailure) return authError(where, auth, safe(firstLine(authFailure.message)));
  const at = (re: RegExp): Cause | undefined => find((c) => re.test(c.message));
  const tls = at(/SSL|TLS|certificate|EPROTO|wrong version number|self.signed/i);
  if (tls) {
    return new UserError(
      `Could not open a TLS connection to ${where}: ${safe(firstLine(tls.message))}. Check the ` +
        `tls/tlsCAFile/tlsCertificateKeyFile options against the server's TLS setup (tls=true where the server ` +
        `requires TLS, none where it has none).`,
    );
  }
  const file = at(/\b(ENOENT|EACCES|EISDIR)\b/);
  if (file)
    return new UserError(
      `Could not connect to ${where}: a file the connection string's options name could not be read ` +
        `(${safe(firstLine(file.message))}). Check the tlsCAFile and tlsCertificateKeyFile paths.`,
    );
  const network = networkError(
    at,
    find,
    flag ? `the ${flag} server at ${shown}` : `a MongoDB server at ${shown}`,
    uri,
    safe,
  );
  if (network) return network;
  const name = all[0]?.name ?? '';
  if (name === 'MongoParseError' || name === 'MongoAPIError' || name === 'MongoInvalidArgumentError') {
    return new UserError(
      `The ${label} ${JSON.stringify(shown)} is not usable: ${first}. Expected something like ` +
        `mongodb://host:27017/mydb or mongodb+srv://cluster.example.net/mydb.`,
    );
  }
  return new UserError(
    `Could not connect to ${where}: ${first}. Check that this machine may connect to the server and the ` +
      `connection string's options.`,
  );
}

/** The server refused the credentials: who tried, with which authSource and mechanism, and what to check. */
function authError(shown: string, auth: AuthSettings | null, why: string): UserError {
  const who = auth?.user ? `user "${auth.user}"` : 'no user name';
  const where = auth
    ? `authSource ${auth.source}, mechanism ${auth.mechanism}`
    : 'no credentials in the connection string';
  return new UserError(
    `Authentication failed at ${shown} for ${who} (${where}): ${why}. ` +
      `The server refused the credentials; the connection string itself is fine. ` +
      `Check the password (not shown here), that the user exists in the authSource database (a user ` +
      `created in admin needs ?authSource=admin when the path names another database), and that the server ` +
      `allows this mechanism.`,
  );
}

/**
 * No server answered: the connection refused, the host name unresolved, or no answer in time. `server` is what the
 * messages call it ("a MongoDB server at …", "the --scratch-uri server at …").
 */
function networkError(
  at: (re: RegExp) => Cause | undefined,
  find: (test: (c: Cause) => boolean) => Cause | undefined,
  server: string,
  uri: string,
  safe: (s: string) => string,
): UserError | undefined {
  const refused = at(/ECONNREFUSED/);
  if (refused)
    return new UserError(
      `Could not reach ${server}: the connection was refused ` +
        `(${safe(firstLine(refused.message))}). Nothing listens there: check that the server is running and ` +
        `the host and port are right.`,
    );
  const unknownHost = at(/ENOTFOUND|EAI_AGAIN|querySrv|queryTxt|getaddrinfo/);
  if (unknownHost)
    return new UserError(
      `Could not reach ${server}: the host name does not resolve ` +
        `(${safe(firstLine(unknownHost.message))}). Check the host ` +
        `name${/^mongodb\+srv:/i.test(uri.trim()) ? ' (mongodb+srv:// needs a DNS SRV record for it)' : ''} ` +
        `and this machine's DNS.`,
    );
  const unreachable =
    at(/EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|ECONNRESET|timed out|Server selection/i) ??
    find(
      (c) =>
        c.name === 'MongoServerSelectionError' ||
        c.name === 'MongoNetworkError' ||
        c.name === 'MongoNetworkTimeoutError',
    );
  if (unreachable)
    return new UserError(
      `Could not reach ${server}: ${safe(firstLine(unreachable.message))}. The host did ` +
        `not answer in time: check that the server is running, the host and port are right, and a firewall ` +
        `lets this machine through.`,
    );
  return undefined;
}
