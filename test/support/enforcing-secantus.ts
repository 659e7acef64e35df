import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { startSecantus } from '../../src/servers/secantusdb';

export interface EnforcingServer {
  /** The server's address without credentials. */
  uri: string;
  /** A connection string signed in as `user` (authSource=admin). */
  as: (user: string, password: string) => string;
  stop: () => Promise<void>;
}

/**
 * A SecantusDB that enforces roles: the test suite's own server runs without access control, so this one is started
 * for the file. SecantusDB takes users only without auth ("connect once without auth and run createUser, then restart
 * with --auth", its --help), so it starts on a folder of ours, `provision` creates data, roles and users, and it is
 * restarted on the same folder with --auth. About two server starts (a few seconds each).
 */
export async function startEnforcingSecantus(
  provision: (client: MongoClient) => Promise<void>,
): Promise<EnforcingServer> {
  const storage = await mkdtemp(join(tmpdir(), 'mongo-advisor-auth-'));
  const open = await startSecantus(undefined, { storagePath: storage });
  try {
    const client = await MongoClient.connect(open.uri);
    try {
      await provision(client);
    } finally {
      await client.close();
    }
  } finally {
    await open.stop();
  }
  const server = await startSecantus(undefined, { storagePath: storage, auth: true });
  const base = new URL(server.uri);
  return {
    uri: server.uri,
    as: (user, password) => {
      const u = new URL(base.href);
      u.username = encodeURIComponent(user);
      u.password = encodeURIComponent(password);
      u.searchParams.set('authSource', 'admin');
      return u.href;
    },
    stop: async () => {
      await server.stop();
      await rm(storage, { recursive: true, force: true });
    },
  };
}
