import { MongoClient } from 'mongodb';
import { UserError } from '../core/errors';
import { looksLikeConnectionString, redactText, redactUri } from '../lib/redact';

const EXAMPLE =
  'Expected something like mongodb://host:27017/mydb, ' +
  'mongodb://<user>:<password>@host:27017/mydb?authSource=admin or mongodb+srv://cluster.example.net/mydb.';
const ENCODE =
  'Characters @ / : ? # [ ] % in the user name or password must be percent-encoded (@ is %40, / is %2F, : ' +
  'is %3A, ? is %3F, % is %25).';

/**
 * Most hosts a connection string may list. A replica set has at most 50 members and the driver finds them all from
 * any one it reaches, so a seed list needs a few; past this the list is a mistake, and every host costs a name lookup
 * before the first error can be told.
 */
export const MAX_HOSTS = 100;

/** What the driver made of a connection string's credentials: for an authentication error (never the password). */
export interface AuthSettings {
  user: string;
  source: string;
  mechanism: string;
}

/** A connection string that passed: what the driver parsed, and the credentials part of it. */
export interface CheckedUri {
  uri: string;
  shown: string;
  auth: AuthSettings | null;
  /** serverSelectionTimeoutMS when the string sets it (else the CLI's own default applies). */
  serverSelectionTimeoutMS?: number;
}

function fail(label: string, uri: string, problem: string, fix = ''): never {
  throw new UserError(`The ${label} ${JSON.stringify(redactUri(uri))} ${problem}${fix ? ` ${fix}` : ''} ${EXAMPLE}`);
}

/** The host list as written: between the scheme (and any credentials, up to the last `@`) and the first `/` or `?`. */
function hostsOf(uri: string): string[] {
  const rest = uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
  const at = rest.lastIndexOf('@');
  const after = at >= 0 ? rest.slice(at + 1) : rest;
  return (after.split(/[/?]/)[0] ?? '').split(',');
}

/**
 * Checks a connection string before anything connects, with the driver's own parser, and says what is wrong in
 * words: the scheme, the host, the port, characters the password must encode, an option the driver refuses. Every
 * message shows the string redacted and an example.
 */
export function checkConnectionString(uri: string, label = 'connection string'): CheckedUri {
  const given = uri.trim();
  if (!given) throw new UserError(`The ${label} is empty. ${EXAMPLE}`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/?)?/.exec(given);
  const hasScheme = scheme !== null && scheme[2] !== undefined;
  if (!hasScheme && /^mongodb(\+srv)?$/i.test(scheme?.[1] ?? ''))
    fail(label, given, `needs // after ${scheme?.[1] ?? ''}: (${(scheme?.[1] ?? '').toLowerCase()}://host).`);
  // "mongodb//host": the scheme with its colon left out, not a host called mongodb.
  const noColon = /^(mongodb(?:\+srv)?)\/+(.*)$/i.exec(given);
  if (!hasScheme && noColon) {
    const fixed = `${(noColon[1] ?? '').toLowerCase()}://${noColon[2] ?? ''}`;
    fail(label, given, `lacks the colon after ${noColon[1] ?? ''}.`, `Write ${redactUri(fixed)} instead.`);
  }
  if (!hasScheme) {
    fail(
      label,
      given,
      'has no scheme: a connection string starts with mongodb:// (or mongodb+srv:// for a DNS seed list).',
      `Write mongodb://${redactUri(given)} if that is the host.`,
    );
  }
  const name = (scheme?.[1] ?? '').toLowerCase();
  if (name !== 'mongodb' && name !== 'mongodb+srv') {
    fail(
      label,
      given,
      `starts with ${scheme?.[1] ?? ''}://, not mongodb:// or mongodb+srv://: mongo-advisor talks to ` +
        `MongoDB servers only (not HTTP, not a driver's other URLs).`,
    );
  }
  if (scheme?.[1] !== name)
    fail(label, given, `starts with ${scheme?.[1] ?? ''}://: the driver wants the scheme in lower case, ${name}://.`);
  if (scheme?.[2] !== '//') fail(label, given, `has one slash after ${name}:, it needs two (${name}://).`);
  const rest = given.slice(name.length + 3);
  if ((rest.split(/[?]/)[0] ?? '').split('@').length > 2)
    fail(label, given, 'holds more than one @ before the host: a password with @ must write it %40.', ENCODE);
  const hosts = hostsOf(given);
  if (hosts.every((h) => h === '')) fail(label, given, 'names no host.');
  if (hosts.length > MAX_HOSTS) {
    const count = hosts.length.toLocaleString('en-US');
    throw new UserError(
      `The ${label} lists ${count} hosts; mongo-advisor takes at most ${MAX_HOSTS}. A replica set has at most 50 ` +
        'members and the driver discovers the others from any one it reaches: list two or three members (or use ' +
        `mongodb+srv://). The string begins ${JSON.stringify(redactUri(given).slice(0, 80))}.`,
    );
  }
  for (const h of hosts) checkHost(label, given, h);
  let client: MongoClient;
  try {
    client = new MongoClient(given);
  } catch (err) {
    const message = redactText((err as Error).message ?? String(err), [given]).replace(/\.$/, '');
    if (/unescaped|Invalid connection string/i.test(message))
      fail(label, given, `could not be read: ${message}.`, ENCODE);
    if (/host list|hostname|host/i.test(message) && !/option/i.test(message))
      fail(label, given, `has a bad host list: ${message}.`);
    fail(label, given, `has an option the driver refuses: ${message}.`, 'Check the options after the ?.');
  }
  const cred = client.options.credentials;
  const auth =
    cred && (cred.username || cred.mechanism !== 'DEFAULT')
      ? {
          user: cred.username,
          source: cred.source,
          mechanism: cred.mechanism === 'DEFAULT' ? 'SCRAM-SHA-256 or SCRAM-SHA-1 (the server picks)' : cred.mechanism,
        }
      : null;
  const timeout = /[?&]serverSelectionTimeoutMS=/i.test(given) ? client.options.serverSelectionTimeoutMS : undefined;
  return { uri: given, shown: redactUri(given), auth, ...(timeout ? { serverSelectionTimeoutMS: timeout } : {}) };
}

/** One host of the host list: not empty, and its port (when given) a number from 1 to 65535. */
function checkHost(label: string, given: string, h: string): void {
  if (h === '') fail(label, given, 'has an empty host in its host list (two commas, or a trailing one).');
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(h);
  const port = m?.[2];
  if (port === undefined) return;
  if (!/^\d+$/.test(port))
    fail(
      label,
      given,
      `gives host ${JSON.stringify(redactUri(h))} a port that is not a number (or the @ before the host is missing).`,
      ENCODE,
    );
  const n = Number(port);
  if (n < 1 || n > 65535)
    fail(
      label,
      given,
      `gives host ${m?.[1] ?? ''} the port ${port}: a port is a number from 1 to 65535 (MongoDB's default is 27017).`,
    );
}

/** For `lint <target>` and `analyze <file>`: a target that is no file but reads like `user:password@host`. */
export function isSchemelessUri(s: string): boolean {
  return looksLikeConnectionString(s) && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(s.trim());
}
