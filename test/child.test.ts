/**
 * Starting a server child (src/servers/child.ts), with plain Node children standing in for a server: readiness by
 * TCP is the child's own port, not another process that took the port between the pick and the bind.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { spawnServer } from '../src/servers/child';

let thief: Server | null = null;
afterEach(() => {
  thief?.close();
  thief = null;
});

it('a port taken by another process after the pick: the child that could not bind is not reported ready', async () => {
  const spec = {
    name: 'Stand-in',
    command: process.execPath,
    // another process takes the port first; the child, like a server that failed to bind, exits once the readiness
    // probe has reached the thief (the thief drops a file in the child's folder): the order is fixed, not timed
    args: (port: number, dir: string): string[] => {
      thief = createServer(() => writeFileSync(join(dir, 'probed'), '')).listen(port, '127.0.0.1');
      return [
        '-e',
        `setInterval(() => { if (require('node:fs').existsSync(${JSON.stringify(join(dir, 'probed'))})) ` +
          `process.exit(48); }, 5)`,
      ];
    },
    ready: 'tcp' as const,
    readyTimeoutMs: 5_000,
  };
  // Linux's /proc names the listener: the thief is this test's process, not the child, so the pick fails at once,
  // however long the loaded machine takes the child to exit; elsewhere the child's exit decides
  await expect(spawnServer(spec, 1)).rejects.toThrow(
    existsSync('/proc/net/tcp')
      ? /Stand-in could not listen on port \d+: another process took it \(address already in use\)/
      : /Stand-in exited before it was ready \(exit 48\)/,
  );
});

it('a child that listens on its port is ready, and stops', async () => {
  const server = await spawnServer({
    name: 'Listener',
    command: process.execPath,
    args: (port: number): string[] => ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1')`],
    ready: 'tcp',
    readyTimeoutMs: 5_000,
  });
  expect(server.uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
  await server.stop();
});
