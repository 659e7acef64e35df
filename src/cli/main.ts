import { Command, CommanderError } from 'commander';
import { UserError } from '../core/errors';
import { terminalLine } from '../core/format';
import { looksLikeConnectionString, redactText } from '../lib/redact';
import { OptionsError } from '../core/options';
import { VERSION } from '../version';
import { registerCheck } from './commands/check';
import { registerDemo } from './commands/demo';
import { registerCollect } from './commands/collect';
import { registerAnalyze } from './commands/analyze';
import { registerLint } from './commands/lint';
import { registerAudit } from './commands/audit';
import { registerCleanup } from './commands/cleanup';
import { registerServer } from './commands/server';
import { registerProfile } from './commands/profile';
import { defaultIo, EXIT, type Io } from './io';

export { EXIT } from './io';

/** Each command lives in commands/<name>.ts and registers itself here. */
const COMMANDS = [
  registerCheck,
  registerDemo,
  registerCollect,
  registerAnalyze,
  registerLint,
  registerAudit,
  registerCleanup,
  registerServer,
  registerProfile,
];

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('mongo-advisor')
    .description('MongoDB schema advice, each finding proved with a micro-benchmark on a scratch copy of your data')
    .version(VERSION)
    .showHelpAfterError('(run mongo-advisor --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  for (const register of COMMANDS) register(program, io, setExit);
  return program;
}
/** Runs the CLI; resolves to the exit code. Never throws: user errors become one message and exit 2. */
export async function main(argv: string[], given: Io = defaultIo): Promise<number> {
  const io = redactingIo(given, argv);
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    // A command's last words on stdout must have landed: a closed pipe or a full disk is exit 2, not a pass.
    await io.flush?.();
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help')
        return EXIT.ok;
      return EXIT.usage;
    }
    if (isUserError(err) || err instanceof OptionsError) {
      io.err(`mongo-advisor: ${terminalLine(err.message)}`);
      return isUserError(err) ? err.exitCode : EXIT.usage;
    }
    io.err(`mongo-advisor: unexpected error: ${terminalLine(err instanceof Error ? err.message : String(err))}`);
    if (process.env.MONGO_ADVISOR_DEBUG) io.err(String((err as Error).stack));
    else io.err('This is a bug in mongo-advisor; rerun with MONGO_ADVISOR_DEBUG=1 for details and report it.');
    return EXIT.usage;
  }
}

/**
 * Every line the CLI prints, on stdout and stderr, in every format, is redacted of the connection strings given on
 * the command line (and MONGODB_URI, which the demo reads): their secrets (password, secret options) wherever they
 * appear, and any `scheme://user:password@`. A driver message or a hint that echoes one cannot leak it.
 */
function redactingIo(io: Io, argv: readonly string[]): Io {
  const uris = argv
    .map((a) => (/^--[\w-]+=/.test(a) ? a.slice(a.indexOf('=') + 1) : a))
    .filter(looksLikeConnectionString);
  if (process.env.MONGODB_URI) uris.push(process.env.MONGODB_URI);
  return { ...io, out: (s) => io.out(redactText(s, uris)), err: (s) => io.err(redactText(s, uris)) };
}

/** By name as well as class: `demo` runs from its own bundle (dist/demo.cjs), whose UserError is another class. */
function isUserError(err: unknown): err is UserError {
  return (
    err instanceof UserError ||
    (err instanceof Error && err.name === 'UserError' && typeof (err as UserError).exitCode === 'number')
  );
}
