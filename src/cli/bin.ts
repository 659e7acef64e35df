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

/**
 * Node ends a process whose event loop has emptied with exit code 0, even while `main` is still awaiting: an
 * operation whose answer was lost (a connection dropped under load, say) would then end a run with no report and the
 * exit code of a clean one, which a CI gate reads as a pass. Such an end is an error (exit 2), said on stderr.
 * MONGO_ADVISOR_TEST_UNSETTLED=1 makes main a promise that never settles (the test: test/cli-output.test.ts).
 */
let answered = false;
process.on('exit', (code) => {
  if (answered || code !== 0) return;
  process.exitCode = 2;
  // Synchronous on Linux for files, pipes and terminals: written before the process ends.
  process.stderr.write(
    'mongo-advisor: the run stopped before it finished: an operation never answered and nothing was left to wait ' +
      'on, so no report was written. Run it again; if it happens again, run with -v and report it.\n',
  );
});

const run: Promise<number> =
  process.env.MONGO_ADVISOR_TEST_UNSETTLED === '1' ? new Promise(() => undefined) : main(process.argv.slice(2));

void run.then((code) => {
  answered = true;
  process.exitCode = code;
  // Unreferenced: a process with nothing left pending ends at once, as before; only a lingering one is cut off.
  setTimeout(() => {
    void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit(code));
  }, LINGER_MS).unref();
});
