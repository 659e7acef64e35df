/**
 * The one connection-string redactor. Everything that echoes a connection string (a report's source, an error, a
 * hint) or a text that may hold one (a driver's message) goes through here. It parses nothing strictly: it must mask
 * the password of strings no parser accepts (`mongodb://admin:pa/ss@host/db`, `user:pw@host:1`,
 * `http://user:pw@host`, a password holding a raw `@`), so it reads them the way the driver's own grammar does and
 * always errs on the side of masking more.
 *
 * No dependency: the mongosh bundle carries it too.
 */

export const MASK = '****';

/** Options whose values are secrets (case-insensitive), and authMechanismProperties keys that are. */
const SECRET_OPTIONS = /^(password|pass|pwd|secret|.*password|.*secret|.*token|.*key|sslPEMKeyPassword)$/i;
const SECRET_PROPERTIES = /^(AWS_SESSION_TOKEN|.*TOKEN|.*SECRET|.*PASSWORD|.*KEY)$/i;

/** `scheme://` at the start: a URL-like scheme followed by two slashes (one, for the common typo). */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/?)/;

interface Parts {
  /** `mongodb://`, `http://`, or '' when there is none. */
  scheme: string;
  /** What comes before the last `@` of the authority, or null when there is no `@`. */
  userinfo: string | null;
  /** Hosts (and ports), up to the first `/` or `?` after the credentials. */
  hosts: string;
  /** `/db` (or '') */
  path: string;
  /** Everything from the `?` on (or ''). */
  query: string;
}

/**
 * Splits a (possibly malformed) connection string as the driver reads it: the credentials run to the LAST `@` (a
 * password may hold `/`, `?`, `:` and even a raw `@`), the hosts to the next `/` or `?`.
 */
function split(uri: string): Parts {
  const trimmed = uri.trim();
  const scheme = SCHEME.exec(trimmed)?.[1] ?? '';
  const rest = trimmed.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const userinfo = at >= 0 ? rest.slice(0, at) : null;
  const after = at >= 0 ? rest.slice(at + 1) : rest;
  const q = after.indexOf('?');
  const beforeQuery = q >= 0 ? after.slice(0, q) : after;
  const query = q >= 0 ? after.slice(q) : '';
  const slash = beforeQuery.indexOf('/');
  return {
    scheme,
    userinfo,
    hosts: slash >= 0 ? beforeQuery.slice(0, slash) : beforeQuery,
    path: slash >= 0 ? beforeQuery.slice(slash) : '',
    query,
  };
}

/** `user:****` for `user:anything`, `user` alone kept; a user part that holds a scheme-less `?`/`/` is masked whole. */
function maskUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(':');
  const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
  // A user name never holds `/`, `?` or `=`: when it seems to, the string is mangled and the "user" may be anything.
  if (/[/?=&]/.test(user)) return MASK;
  return colon >= 0 ? `${user}:${MASK}` : user;
}

/** A host list with any non-numeric "port" masked: `mongodb://admin:secret/db` (the `@` forgotten) shows
 * `admin:****`. */
function maskHosts(hosts: string): string {
  return hosts
    .split(',')
    .map((h) => {
      if (h.startsWith('[')) return h; // [::1]:27017
      const colon = h.indexOf(':');
      if (colon < 0) return h;
      const port = h.slice(colon + 1);
      return /^\d*$/.test(port) ? h : `${h.slice(0, colon)}:${MASK}`;
    })
    .join(',');
}

/**
 * A connection string for display: the password masked (whatever it holds), the query string dropped (options can
 * carry secrets: AWS session tokens, key file passwords). Works on malformed, scheme-less and non-mongodb strings.
 */
export function redactUri(uri: string): string {
  const p = split(uri);
  const cred = p.userinfo === null ? '' : `${maskUserinfo(p.userinfo)}@`;
  return `${p.scheme}${cred}${maskHosts(p.hosts)}${p.path}`;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The secret values a connection string holds (password, secret options), in the forms they may be echoed in. */
export function secretsOf(uri: string): string[] {
  const p = split(uri);
  const found: string[] = [];
  if (p.userinfo !== null) {
    const colon = p.userinfo.indexOf(':');
    if (colon >= 0) found.push(p.userinfo.slice(colon + 1));
    // A mangled user part (see maskUserinfo) is a secret as a whole.
    if (/[/?=&]/.test(colon >= 0 ? p.userinfo.slice(0, colon) : p.userinfo)) found.push(p.userinfo);
  }
  for (const h of p.hosts.split(',')) {
    const colon = h.indexOf(':');
    if (!h.startsWith('[') && colon >= 0 && !/^\d*$/.test(h.slice(colon + 1))) found.push(h.slice(colon + 1));
  }
  for (const pair of p.query.replace(/^\?/, '').split(/[&;]/)) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const key = decode(pair.slice(0, eq));
    const value = pair.slice(eq + 1);
    if (SECRET_OPTIONS.test(key)) found.push(value);
    if (/^authMechanismProperties$/i.test(key)) {
      for (const prop of decode(value).split(',')) {
        const c = prop.indexOf(':');
        if (c >= 0 && SECRET_PROPERTIES.test(prop.slice(0, c))) found.push(prop.slice(c + 1));
      }
    }
  }
  const forms = new Set<string>();
  for (const s of found) {
    if (!s) continue;
    forms.add(s);
    forms.add(decode(s));
    forms.add(encodeURIComponent(decode(s)));
  }
  return [...forms].filter(Boolean).sort((a, b) => b.length - a.length);
}

/** Something that may hold credentials: a `scheme://`, `user:password@host` or `host:port` without one. */
export function looksLikeConnectionString(s: string): boolean {
  const t = s.trim();
  return SCHEME.test(t) || /^[^\s/@:]+:[^\s]*@[^\s]/.test(t) || /^[\w.-]+:\d+(,[\w.-]+(:\d+)?)*(\/|$)/.test(t);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Secrets shorter than this are masked only where they sit in a `:secret@` position, not everywhere in a text. */
const MIN_FREE_SECRET = 3;

/**
 * Masks, in any text (an error message, a whole report): the connection strings given (raw), every
 * `scheme://user:password@` and every secret they hold, wherever it appears. Give it every connection string the
 * user passed; with none it still masks `scheme://user:password@` patterns.
 */
export function redactText(text: string, uris: readonly string[] = []): string {
  let out = text;
  const given = uris.filter((u) => u.length > 0);
  for (const uri of [...given].sort((a, b) => b.length - a.length)) {
    const trimmed = uri.trim();
    if (trimmed && out.includes(trimmed)) out = out.split(trimmed).join(redactUri(trimmed));
  }
  // Any URL with credentials, given or not (a driver's message may print a member's or a rewritten URL).
  // A placeholder (`<password>`, in an example) and what is already masked stay as they are.
  out = out.replace(
    /([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s:@/'"`]*):(\S*)@(?=[^\s@])/g,
    (whole, scheme: string, user: string, secret: string) =>
      /^<[\w -]*>$/.test(secret) || secret === MASK ? whole : `${scheme}${user}:${MASK}@`,
  );
  for (const uri of given) {
    for (const secret of secretsOf(uri)) {
      if (secret.length >= MIN_FREE_SECRET) out = out.split(secret).join(MASK);
      else out = out.replace(new RegExp(`:${escapeRegExp(secret)}@`, 'g'), `:${MASK}@`);
    }
  }
  return out;
}

/** What stands for a document value a server's error text held. */
export const VALUE_MASK = '<value>';

/**
 * Where servers' error texts put document values, each followed by the value:
 * - `dup key: { _id: "…" }` (E11000, code 11000), and the driver's `keyValue` of the same error;
 * - `failingDocumentId`, `consideredValue(s)` and `op` in a code-121 "Document failed validation" errInfo or a write
 *   error printed whole;
 * - `in element {…}` (code 28, "Cannot create field 'b' in element {a: …}");
 * - `altered to <field>: …` (code 66, "the (immutable) field '_id' was found to have been altered to _id: …");
 * - `with value …` (FerretDB prints its internal Go value: "… with value &{…}").
 */
const VALUE_BEFORE = new RegExp(
  [
    String.raw`\bdup key:\s*`,
    String.raw`\bkeyValue["']?\s*[:=]\s*`,
    String.raw`\bfailingDocumentId["']?\s*:\s*`,
    String.raw`\bconsideredValues?["']?\s*:\s*`,
    String.raw`["']?\bop["']?\s*:\s*(?=\{)`,
    String.raw`\bin element\s+(?=\{)`,
    String.raw`\baltered to\s+[^\s:]+:\s*`,
    String.raw`\bwith value\s+`,
  ].join('|'),
  'g',
);

const OPENS = '{[(';
const CLOSES = '}])';

/**
 * Where the value starting at `start` ends: a bracketed value (`{…}`, `[…]`, `ObjectId('…')`, `&{…}`) at its
 * closing bracket, a quoted one at its closing quote, a bare one at a comma, a closing bracket or a space
 * (`new Date(…)` read whole). Quotes and brackets inside quotes do not count. A value cut short runs to the end of
 * the text.
 */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (ch === quote) {
        quote = null;
        if (depth === 0) return i + 1;
      }
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (OPENS.includes(ch)) depth++;
    else if (CLOSES.includes(ch)) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (ch === ',' || (/\s/.test(ch) && text.slice(start, i) !== 'new'))) return i;
  }
  return text.length;
}

/**
 * A server's error text with the document values it may hold replaced by VALUE_MASK (see VALUE_BEFORE): what a
 * report, a note or a log line may show. Everything that turns a server error into text goes through here
 * (`describeServerError`); the rest of the text (codes, names, namespaces, index names) stays.
 */
export function redactServerText(text: string): string {
  let out = '';
  let from = 0;
  VALUE_BEFORE.lastIndex = 0;
  for (let m = VALUE_BEFORE.exec(text); m !== null; m = VALUE_BEFORE.exec(text)) {
    const start = m.index + m[0].length;
    if (start < from) continue;
    const end = valueEnd(text, start);
    out += `${text.slice(from, start)}${VALUE_MASK}`;
    from = end;
    VALUE_BEFORE.lastIndex = Math.max(end, start + 1);
  }
  return out + text.slice(from);
}
