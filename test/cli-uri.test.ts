/**
 * Hostile and malformed connection strings, through every command of the real CLI (dist/cli.cjs): the password and
 * every secret option never appear on stdout or stderr, whatever the format, and the message names the cause (the
 * scheme, the host, the port, the encoding, an unreachable host) instead of "Which database?" or a TLS guess.
 * No server: every string fails before one would be needed (parse, refused port 9, unresolvable names).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { redactText, redactUri, secretsOf } from '../src/lib/redact';
import { runProcess } from './support/run';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
// A refused port answers at once; the timeout only bounds a loaded machine's delay in seeing the refusal (at 400 ms a
// suite beside this one made the proxy case time out instead: "Socket 'connect' timed out after 460ms").
const FAST = 'serverSelectionTimeoutMS=3000';

interface Case {
  uri: string;
  /** Strings that must never be printed. */
  secrets: string[];
  /** What the message must say (the cause), for the commands that take a connection string. */
  cause: RegExp;
}

const CASES: Case[] = [
  // The three of the issue.
  {
    uri: 'mongodb://admin:pa/ss@host/db',
    secrets: ['pa/ss', 'pa%2Fss'],
    cause: /Password contains unescaped characters.*percent-encoded.*\/ is %2F/,
  },
  {
    uri: 'http://user:pw@host',
    secrets: ['user:pw', ':pw@'],
    cause: /starts with http:\/\/, not mongodb:\/\/ or mongodb\+srv:\/\//,
  },
  {
    uri: 'user:pw@host:1',
    secrets: ['user:pw', ':pw@'],
    cause: /has no scheme.*Write mongodb:\/\/user:\*\*\*\*@host:1/,
  },
  // `@`, `%40` and `:` in passwords.
  {
    uri: 'mongodb://bob:p@ssW0rd@127.0.0.1:9/db',
    secrets: ['p@ssW0rd', 'ssW0rd', 'p%40ssW0rd'],
    cause: /more than one @ .* %40/,
  },
  {
    uri: `mongodb://bob:p%40ssEnc0ded@127.0.0.1:9/db?${FAST}`,
    secrets: ['p%40ssEnc0ded', 'p@ssEnc0ded', 'ssEnc0ded'],
    cause: /the connection was refused \(connect ECONNREFUSED 127\.0\.0\.1:9\)/,
  },
  {
    uri: 'mongodb://bob:Colon:Secret1@127.0.0.1:9/db',
    secrets: ['Colon:Secret1', 'Secret1'],
    cause: /unescaped characters.*: is %3A/,
  },
  // SRV, secret options.
  { uri: 'mongodb+srv://u:SrvSecret1@host', secrets: ['SrvSecret1'], cause: /does not resolve .*querySrv.*SRV record/ },
  {
    uri:
      'mongodb://127.0.0.1:9/db?authMechanism=MONGODB-AWS' +
      `&authMechanismProperties=AWS_SESSION_TOKEN:FwoGZXIvYXdzTokenSecret&${FAST}`,
    secrets: ['FwoGZXIvYXdzTokenSecret'],
    cause: /AWS_SESSION_TOKEN/,
  },
  {
    uri:
      'mongodb://u:KeyUser1@127.0.0.1:9/db?tls=true&tlsCertificateKeyFile=/nonexistent/client.pem' +
      `&tlsCertificateKeyFilePassword=PemSecret9&${FAST}`,
    secrets: ['KeyUser1', 'PemSecret9'],
    cause: /file the connection string's options name could not be read .*client\.pem/,
  },
  {
    uri: `mongodb://127.0.0.1:9/db?password=QuerySecret7&${FAST}`,
    secrets: ['QuerySecret7'],
    cause: /option password is not supported/,
  },
  {
    uri:
      'mongodb://u:ProxyPw1@127.0.0.1:9/db?proxyHost=127.0.0.1&proxyPort=9' +
      `&proxyUsername=pu&proxyPassword=ProxySecret1&${FAST}`,
    secrets: ['ProxyPw1', 'ProxySecret1'],
    cause: /refused/,
  },
  // Hosts and ports.
  {
    uri: 'mongodb://u:PortSecret1@host:99999/db',
    secrets: ['PortSecret1'],
    cause: /port 99999: a port is a number from 1 to 65535/,
  },
  { uri: 'mongodb://u:EmptyHost1@/db', secrets: ['EmptyHost1'], cause: /names no host/ },
  {
    uri: 'mongodb://admin:NoAtSecret/db',
    secrets: ['NoAtSecret'],
    cause: /port that is not a number \(or the @ before the host is missing\)/,
  },
  {
    uri: `mongodb://u:Refused1@127.0.0.1:9/db?${FAST}`,
    secrets: ['Refused1'],
    cause: /Could not reach a MongoDB server at mongodb:\/\/u:\*\*\*\*@127\.0\.0\.1:9\/db: the connection was refused/,
  },
  // Scheme typos and unicode.
  { uri: 'MONGODB://u:UpperSecret1@h/db', secrets: ['UpperSecret1'], cause: /lower case, mongodb:\/\// },
  { uri: 'mongodb:/u:OneSlash1@h/db', secrets: ['OneSlash1'], cause: /one slash after mongodb:, it needs two/ },
  {
    uri: `mongodb://ü:pässwörd9@høst.invalid/db?${FAST}`,
    secrets: ['pässwörd9', encodeURIComponent('pässwörd9')],
    cause: /host name does not resolve/,
  },
  { uri: 'localhost:27017', secrets: [], cause: /has no scheme.*Write mongodb:\/\/localhost:27017/ },
  // The colon left out: a valid relative path, which lint and analyze took for a snapshot file ("does not exist").
  {
    uri: 'mongodb//u:NoColon1@127.0.0.1:38431/',
    secrets: ['NoColon1'],
    cause: /lacks the colon after mongodb\. Write mongodb:\/\/u:\*\*\*\*@127\.0\.0\.1:38431\/ instead/,
  },
];

/** The commands that take a connection string, each with its formats; case i runs with format i mod n. */
const COMMANDS: {
  name: string;
  formats: readonly string[];
  args: (uri: string, format: string, dir: string) => string[];
}[] = [
  {
    name: 'check',
    formats: ['text', 'json', 'sarif', 'junit', 'markdown'],
    args: (u, f) => ['check', u, '--no-confirm', '--format', f],
  },
  { name: 'collect', formats: ['json'], args: (u, _f, dir) => ['collect', u, '--output', join(dir, 'snap.json')] },
  { name: 'lint', formats: ['text', 'json', 'sarif', 'junit', 'markdown'], args: (u, f) => ['lint', u, '--format', f] },
  {
    name: 'audit',
    formats: ['html', 'text', 'json', 'sarif', 'junit', 'markdown'],
    args: (u, f, dir) => ['audit', u, '--no-confirm', '--format', f, '--output', join(dir, 'audit.out')],
  },
  {
    name: 'analyze',
    formats: ['text', 'json', 'sarif', 'junit', 'markdown'],
    args: (u, f) => ['analyze', u, '--format', f],
  },
  { name: 'profile', formats: ['text'], args: (u) => ['profile', u, '--db', 'shop', '--for', '2s', '--yes'] },
];

const noStack = (s: string): void => expect(s).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

/** Runs `jobs` with at most `n` at once (the machine is shared: two cores). */
async function pool<T>(jobs: (() => Promise<T>)[], n = 3): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await (jobs[i] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

describe('the redactor (pure)', () => {
  it('masks the password of malformed, scheme-less and non-mongodb strings, and drops the options', () => {
    expect(redactUri('mongodb://admin:pa/ss@host/db')).toBe('mongodb://admin:****@host/db');
    expect(redactUri('http://user:pw@host')).toBe('http://user:****@host');
    expect(redactUri('user:pw@host:1')).toBe('user:****@host:1');
    expect(redactUri('mongodb://bob:p@ss@h:27017/app?x=1')).toBe('mongodb://bob:****@h:27017/app');
    expect(redactUri('mongodb://admin:secret/db')).toBe('mongodb://admin:****/db');
    expect(redactUri('mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:tok')).toBe('mongodb://h/');
    expect(redactUri('mongodb+srv://cluster.example.net/')).toBe('mongodb+srv://cluster.example.net/');
    expect(redactUri('mongodb://h/db?appName=me@corp')).toBe('mongodb://****@corp');
  });

  it('finds every secret in its raw, decoded and encoded forms, and masks them in any text', () => {
    expect(
      secretsOf(
        'mongodb://u:p%40ss@h/?tlsCertificateKeyFilePassword=kfp&authMechanismProperties=AWS_SESSION_TOKEN:tok1',
      ),
    ).toEqual(expect.arrayContaining(['p%40ss', 'p@ss', 'kfp', 'tok1']));
    const uri = 'mongodb://u:hunter2@h/db';
    expect(redactText(`failed: ${uri} (password hunter2), also mongodb://x:yy@z and http://a:b@c`, [uri])).toBe(
      'failed: mongodb://u:****@h/db (password ****), also mongodb://x:****@z and http://a:****@c',
    );
    // Short secrets only where they sit as one; placeholders of examples stay.
    expect(redactText('mongodb://u:ab@h shows ab in "tab"', ['mongodb://u:ab@h'])).toBe(
      'mongodb://u:****@h shows ab in "tab"',
    );
    expect(redactText('e.g. mongodb://<user>:<password>@host')).toBe('e.g. mongodb://<user>:<password>@host');
  });
});

describe(`${CASES.length} hostile connection strings through every command (real CLI)`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-uri-'));
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
    writeFileSync(join(dir, 'keep.txt'), 'the user file');
  });

  it('never prints a secret, on stdout or stderr, in any command or format; names the cause', async () => {
    // Every case through check (a format each, in turn) and through one other command, in turn: every command and
    // format meets several shapes of string (the whole product, 120 runs, took minutes for the same redactor).
    const [check, ...others] = COMMANDS as [(typeof COMMANDS)[number], ...typeof COMMANDS];
    const jobs = CASES.flatMap((c, i) =>
      [check, others[i % others.length] as (typeof COMMANDS)[number]].map((cmd) => async () => {
        // the other commands come round every others.length cases: step their formats once a round
        const turn = cmd === check ? i : Math.floor(i / others.length);
        const format = cmd.formats[turn % cmd.formats.length] as string;
        const args = cmd.args(c.uri, format, dir);
        const r = await runProcess(process.execPath, [CLI, ...args], {
          cwd: dir,
          timeoutMs: 60_000,
          env: { MONGODB_URI: '' },
        });
        return { c, cmd: cmd.name, args, r };
      }),
    );
    const runs = await pool(jobs);
    const problems: string[] = [];
    for (const { c, cmd, args, r } of runs) {
      const all = r.out + r.err;
      const where = `${cmd} ${args.slice(2).join(' ')} (${c.uri})`;
      for (const s of c.secrets)
        if (all.includes(s)) problems.push(`${where}: printed the secret ${JSON.stringify(s)}: ${all}`);
      if (r.code !== 2) problems.push(`${where}: exit ${String(r.code)}, expected 2: ${all}`);
      const cause =
        cmd !== 'analyze'
          ? c.cause
          : c.uri.startsWith('mongodb//')
            ? /\(with the colon after mongodb that it lacks\): run mongo-advisor check mongodb:\/\//
            : /analyze reads a snapshot file, not a server/;
      if (!cause.test(r.err))
        problems.push(`${where}: the message does not name the cause (${String(cause)}): ${r.err}`);
      if (/Which database\?|TLS/.test(r.err) && !/tls/i.test(c.uri))
        problems.push(`${where}: a wrong diagnosis: ${r.err}`);
      noStack(r.err);
    }
    expect(problems).toEqual([]);
  }, 600_000);
});
