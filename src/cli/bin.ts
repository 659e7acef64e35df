import { main } from './main';

/**
 * How long the process may outlive its last word. Node cannot cancel a host name lookup it has started (getaddrinfo
 * runs in libuv's thread pool, four at a time): after a failed connection to a long list of unresolvable hosts, the
 * driver's lookups kept the process alive for minutes after the error was printed. Once main has answered, nothing of
 * ours is left to run, so whatever still holds the event loop after this grace is cut off.
 */
const LINGER_MS = 500;

/** Resolves once everything written to the stream so far has been handed to the system. */
const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => stream.write('', () => resolve()));

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Unreferenced: a process with nothing left pending ends at once, as before; only a lingering one is cut off.
  setTimeout(() => {
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(code));
  }, LINGER_MS).unref();
});
