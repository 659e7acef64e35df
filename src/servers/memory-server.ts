/** A real `mongod` through mongodb-memory-server (a devDependency, loaded lazily; it downloads mongod on first use). */
import { oneLine, type RunningServer } from './child';

const MEMORY_SERVER_TIMEOUT_MS = 90_000;

interface MemoryServerInstance {
  getUri(): string;
  stop(opts?: { doCleanup?: boolean; force?: boolean }): Promise<boolean>;
}
interface MemoryServerModule {
  MongoMemoryServer: { create(): Promise<MemoryServerInstance> };
}

export async function startMemoryServer(): Promise<RunningServer> {
  let mod: MemoryServerModule;
  try {
    // A devDependency: absent in production installs, so load it lazily.
    mod = require('mongodb-memory-server') as MemoryServerModule;
  } catch (err) {
    throw new Error(`not installed (${oneLine(err)})`);
  }

  // On failure mongodb-memory-server prints a multi-line console.warn with the whole stack; we report the reason
  // ourselves, so drop just that message while this attempt is pending.
  const originalWarn = console.warn;
  const filteredWarn = (...args: unknown[]): void => {
    if (typeof args[0] === 'string' && args[0].startsWith('Starting the MongoMemoryServer Instance failed')) return;
    originalWarn.apply(console, args);
  };
  console.warn = filteredWarn;
  const restoreWarn = (): void => {
    if (console.warn === filteredWarn) console.warn = originalWarn;
  };

  let creating: Promise<MemoryServerInstance>;
  try {
    creating = mod.MongoMemoryServer.create();
  } catch (err) {
    restoreWarn();
    throw err;
  }
  creating.then(restoreWarn, restoreWarn);

  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const server = await Promise.race([
      creating,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new Error(`did not start within ${MEMORY_SERVER_TIMEOUT_MS / 1000} s`));
        }, MEMORY_SERVER_TIMEOUT_MS);
      }),
    ]);
    const uri = server.getUri();
    let stopping: Promise<void> | undefined;
    return {
      uri,
      kind: 'mongodb-memory-server',
      description: `mongod (mongodb-memory-server) at ${uri}`,
      stop: () => (stopping ??= server.stop({ doCleanup: true, force: true }).then(() => undefined)),
    };
  } catch (err) {
    if (timedOut) {
      // It may still come up later (a slow download); do not leave it running.
      creating.then((late) => late.stop({ doCleanup: true, force: true })).catch(() => {});
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
