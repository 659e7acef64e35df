import * as fs from 'node:fs';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { UserError } from '../core/errors';
import { type EmbeddedKind, type RunningServer, startServer } from '../servers/embedded';
import { DEMO_DB, seedDemo } from './seed';

interface ServeIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

export interface ServeOptions {
  /** Seed the demo's blog (default true): a posts collection to try advisor.check("posts") on. */
  seed: boolean;
  /** One kind of embedded server; default: the first that starts, most faithful first (as the demo). */
  kind?: EmbeddedKind;
  io: ServeIo;
  /** Resolves when the server should stop (default: Ctrl-C, SIGTERM or SIGHUP). */
  until?: Promise<unknown>;
}

/**
 * dist/advisor.js as an absolute path, for a load() line that works from any directory: beside this bundle
 * (dist/demo.cjs), or from the sources (tests) at the repository's dist/.
 */
export function pluginPath(): string {
  const beside = path.join(__dirname, 'advisor.js');
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', '..', 'dist', 'advisor.js');
}

/** The CLI beside the plugin: a path that works from any directory, as the load() line's does. */
export function cliPath(): string {
  return path.join(path.dirname(pluginPath()), 'cli.cjs');
}

/** Resolves on Ctrl-C, SIGTERM or SIGHUP; until then it keeps the process up (the server's child does not). */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const keepAlive = setInterval(() => undefined, 60_000);
    const on = (sig: NodeJS.Signals): void => {
      clearInterval(keepAlive);
      for (const s of signals) process.off(s, on);
      resolve(sig);
    };
    for (const s of signals) process.on(s, on);
  });
}

/**
 * How to start mongosh from any directory: `mongosh` when it is on the PATH; else the checkout's own copy (a
 * devDependency: `npm ci` installs it as node_modules/.bin/mongosh, which no shell finds by name); else `npx mongosh`,
 * which fetches it. `--quiet` leaves out the banner, whose startup warnings the embedded servers fill with their own
 * log lines ("Unexpected log line format").
 */
export function mongoshCommand(env: NodeJS.ProcessEnv = process.env): string {
  // npm and npx put node_modules/.bin on the PATH of what they run, not on the user's next terminal's: not counted
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !dir.split(path.sep).includes('node_modules'))
    .some((dir) => fs.existsSync(path.join(dir, 'mongosh')));
  if (onPath) return 'mongosh --quiet';
  const local = path.resolve(path.dirname(pluginPath()), '..', 'node_modules', '.bin', 'mongosh');
  return fs.existsSync(local) ? `${JSON.stringify(local)} --quiet` : 'npx mongosh --quiet';
}

/** What to type next: the mongosh command, the load() line, a check, and the CLI's equivalent. */
function instructions(server: RunningServer, seeded: boolean): string {
  const base = server.uri.replace(/\/?(\?.*)?$/, '');
  const shellUri = seeded ? `${base}/${DEMO_DB}` : `${base}/test`;
  const lines = [
    `mongo-advisor server: ${server.description}`,
    `URI: ${server.uri}`,
    '',
    'In mongosh, from any directory:',
    `  ${mongoshCommand()} ${JSON.stringify(shellUri)}`,
    `  load(${JSON.stringify(pluginPath())})`,
    seeded ? '  advisor.check("posts")' : '  advisor.check()',
    '',
    'From the CLI, from any directory:',
    seeded
      ? `  node ${JSON.stringify(cliPath())} check ${JSON.stringify(server.uri)} --db ${DEMO_DB} -c posts`
      : `  node ${JSON.stringify(cliPath())} check ${JSON.stringify(server.uri)} --db <name>`,
    '',
    'Ctrl-C stops the server and deletes its data.',
  ];
  return lines.join('\n');
}

/**
 * `mongo-advisor server`: starts an embedded server (never MONGODB_URI's: that one is running already), seeds the
 * demo's blog unless asked not to, prints how to reach it from mongosh and the CLI, and keeps it until Ctrl-C.
 */
export async function serve(opts: ServeOptions): Promise<number> {
  const { io } = opts;
  let server: RunningServer;
  try {
    const order = opts.kind ? { order: [opts.kind] } : {};
    server = await startServer({ log: (l) => io.err(`  ${l}`), useEnv: false, ...order });
  } catch (err) {
    throw new UserError((err as Error).message.trim());
  }
  // Listening before anything slow: a Ctrl-C during the seed stops the server too.
  const until = opts.until ?? stopSignal();
  try {
    if (opts.seed) {
      io.err(`Seeding ${DEMO_DB} (the demo's blog: posts with up to 10,000 comments, sessions, events, …)…`);
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
      try {
        await seedDemo(client, DEMO_DB);
      } finally {
        await client.close().catch(() => undefined);
      }
    }
    io.out(instructions(server, opts.seed));
    await until;
    io.err('Stopping the server…');
  } finally {
    await server.stop();
  }
  io.err('Stopped; its data is deleted.');
  return 0;
}
