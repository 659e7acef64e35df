import { terminalSafe } from '../core/format';
import { redactText } from '../lib/redact';
import { rules } from '../../rules';
import Ajv from 'ajv';
import { inspect } from 'node:util';
import { type ShellGlobals, ShellAdapter } from '../adapters/shell';
import { check } from '../check';
import { NoSuchCollection, NoSuchDatabase, UserError } from '../core/errors';
import { COLLECT_DEFAULTS, listDatabaseNames } from '../collect';
import { type AnalyzeSettings, OptionsError, type ResolvedRule, resolveRules, RuleOptionsError } from '../core/options';
import { type CheckResult, SEVERITIES, type Severity } from '../core/types';
import { closest, didYouMean } from '../lib/suggest';
import { SPEC_RULES } from '../core/spec-rules';
import { formatText } from '../report/text';
import { type FoldOptions, MAPS_JSON_SCHEMA } from '../core/fold';
import { VERSION } from '../version';
import {
  dropScratchDatabases,
  formatSize,
  leftoverLines,
  listScratchDatabases,
  stateLabel,
} from '../confirm/leftovers';
import type { Scratch } from '../confirm/scratch';
import { heartbeat } from '../lib/heartbeat';

export interface PluginCheckOptions {
  /** Run the scratch experiments (default true). */
  confirm?: boolean;
  sampleSize?: number;
  /** Database to check instead of the shell's current one. */
  db?: string;
  /** Seconds each confirmation may take (default 30). */
  confirmBudget?: number;
  maxTimeMS?: number;
  /** Rule settings as in .mongo-advisor.json: { 'array-growth': { options: { warnLength: 500 } }, 'id-pattern': 'off'
   * }. */
  rules?: AnalyzeSettings['rules'];
  /** Load limits, as the CLI's --max-load (src/confirm/load.ts). */
  maxLoad?: string;
  /** When an object counts as a map, as the configuration file's `maps` (src/collect/fold.ts). */
  maps?: Partial<FoldOptions>;
}

/** The exit status of a process a signal ended: 128 + the signal's number. */
const EXIT_FOR = { SIGTERM: 143, SIGHUP: 129 } as const;

/** The line Ctrl-C gets while advisor.check confirms. */
function sayInterrupted(say: (line: string) => void, scratch: Scratch | null): void {
  try {
    say(
      scratch
        ? `mongo-advisor: interrupted: no further experiment starts; the scratch database ${scratch.db} is ` +
            'dropped as soon as mongosh takes commands again, then the partial report follows.'
        : 'mongo-advisor: interrupted: no further experiment starts (no scratch database was written).',
    );
  } catch {
    // a closed terminal
  }
}

/**
 * While advisor.check confirms: SIGTERM and SIGHUP (a closed terminal) stop the experiments, drop the scratch
 * database (the handle refuses new commands, waits for those in flight, drops, checks with listDatabases), say so,
 * and exit.
 *
 * Ctrl-C (SIGINT) is mongosh's: at the prompt it sets the shell's interrupt flag, rejects the shell calls in flight
 * and refuses new ones ("execution was interrupted"), closes and reopens its connections, resets the flag, and shows
 * the prompt again without waiting for the evaluation (@mongosh/cli-repl lib/mongosh-repl.js, `onAsyncSigint`). The
 * plugin hears the same SIGINT (its own listener) and the shell's refusal (the adapter's `onInterrupt`): no further
 * experiment starts, the run's own cleanup drops the scratch database once the shell takes commands again
 * (`ShellAdapter.ready`), and the partial report is printed when the run ends (`interrupted()`). In a script
 * (--eval, --file) mongosh ends the process on SIGINT; what an ended process leaves carries its marker (host, pid,
 * start time): the next advisor.check or advisor.cleanup reports it as stale.
 */
function onShellSignals(
  say: (line: string) => void,
  adapter: ShellAdapter,
): {
  signal: AbortSignal;
  track: (s: Scratch) => void;
  interrupted: () => boolean;
  dispose: () => void;
} {
  const controller = new AbortController();
  let scratch: Scratch | null = null;
  let fired = false;
  let interrupted = false;
  const onInterrupt = (): void => {
    adapter.interruptedByUser();
    if (interrupted) return;
    interrupted = true;
    controller.abort();
    sayInterrupted(say, scratch);
  };
  adapter.onInterrupt = onInterrupt;
  const handler = (sig: keyof typeof EXIT_FOR): void => {
    if (fired) process.exit(EXIT_FOR[sig]);
    fired = true;
    const safe = (line: string): void => {
      try {
        say(line);
      } catch {
        // a closed terminal
      }
    };
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
    controller.abort();
    const s = scratch;
    safe(
      s
        ? `mongo-advisor: ${sig}: stopping, then dropping the scratch database ${s.db}…`
        : `mongo-advisor: ${sig} (no scratch database was written).`,
    );
    void (s ? s.cleanup() : Promise.resolve(null)).then(
      (problem) => {
        if (s)
          safe(
            problem
              ? `mongo-advisor: NOT dropped: ${problem}`
              : `mongo-advisor: dropped the scratch database ${s.db} (listDatabases no longer lists it).`,
          );
        process.exit(EXIT_FOR[sig]);
      },
      () => process.exit(EXIT_FOR[sig]),
    );
  };
  const handlers: (readonly [NodeJS.Signals, () => void])[] = [
    ...(Object.keys(EXIT_FOR) as (keyof typeof EXIT_FOR)[]).map((sig) => [sig, () => handler(sig)] as const),
    ['SIGINT', onInterrupt],
  ];
  // Not while mongosh still runs the typed line synchronously: its vm runs it with breakOnSigint, and Node's watchdog
  // for that puts back the SIGINT handler it found when the line ends, so a SIGINT listener added meanwhile (the first
  // one: mongosh removes its own while it evaluates) would be left without a handler, and Ctrl-C would kill mongosh.
  const listen = setImmediate(() => {
    for (const [sig, h] of handlers) process.on(sig, h);
  });
  return {
    signal: controller.signal,
    track: (s) => {
      scratch = s;
    },
    interrupted: () => interrupted,
    dispose: () => {
      clearImmediate(listen);
      adapter.onInterrupt = null;
      for (const [sig, h] of handlers) process.off(sig, h);
    },
  };
}

/** What advisor.cleanup() says and does: the scratch databases there, and (with drop) the stale ones dropped. */
async function cleanupText(adapter: ShellAdapter, drop: boolean): Promise<string> {
  const found = await listScratchDatabases(adapter);
  if (found.length === 0) return 'No scratch databases (mongo_advisor_scratch_…) on this server.';
  const lines = found.map((d) => `  ${d.name}  ${formatSize(d.bytes)}  ${stateLabel(d)}: ${d.why}`);
  const stale = found.filter((d) => d.state === 'stale');
  if (!drop) {
    lines.unshift(`${found.length} scratch database${found.length === 1 ? '' : 's'}:`);
    lines.push(
      stale.length
        ? `Drop the ${stale.length} stale one${stale.length === 1 ? '' : 's'} with advisor.cleanup({ drop: ` +
            `true }); those in use belong to runs going on now and are never dropped.`
        : 'None is stale: nothing to drop.',
    );
    return lines.join('\n');
  }
  const out = await dropScratchDatabases(
    adapter,
    stale.map((d) => d.name),
  );
  return [
    ...out.map((o) =>
      o.problem ? `NOT dropped ${o.name}: ${o.problem}` : `dropped ${o.name} (listDatabases no longer lists it)`,
    ),
    ...found.filter((d) => d.state !== 'stale').map((d) => `kept ${d.name}: ${d.why}`),
  ].join('\n');
}

const OPTIONS_LINE =
  'Options: confirm (true or false), sampleSize, db, confirmBudget (seconds), maxTimeMS, maxLoad, maps, rules; ' +
  'checked before anything runs.';

const HELP = `mongo-advisor ${VERSION} — schema advice, each finding proved on a scratch copy

  advisor.check("posts")                         check one collection of the current database
  advisor.check("posts", { confirm: false })     skip the scratch experiments (read-only)
  advisor.check("posts", { sampleSize: 2000 })   sample size (default min(max(20, 4% of count), 10000))
  advisor.check()                                check every collection of the current database
  advisor.check("posts", { rules: { "array-growth": { options: { warnLength: 500 } } } })
  advisor.check("posts", { db: "blog" })         another database
  advisor.check("blog")                          a database, when no collection here has that name
  advisor.cleanup()                              list scratch databases left by interrupted runs
  advisor.cleanup({ drop: true })                drop the stale ones listed
  advisor.help()                                 this text

${OPTIONS_LINE}

The value printed is the report; with mongosh --json you get its fields.
Confirmation writes only to a scratch database named mongo_advisor_scratch_<random>, dropped afterwards.`;

/**
 * A check result that prints as the readable report at the prompt and as its fields with --json. `printed`: the
 * report was written out already (an interrupted run's, after the prompt came back), so the value prints one line.
 */
function asPrintable(result: CheckResult, printed = false): CheckResult {
  const proto = {
    [inspect.custom](_depth: number, options: { colors?: boolean }): string {
      if (printed) return "(the interrupted run's report is printed above)";
      return formatText(this as unknown as CheckResult, { color: options.colors === true });
    },
    toString(): string {
      return formatText(this as unknown as CheckResult, { color: false });
    },
  };
  return Object.assign(Object.create(proto) as object, result);
}

function printableText(text: string): { [k: symbol]: () => string } {
  return { [inspect.custom]: () => text };
}

/**
 * The options of advisor.check, checked with ajv before anything connects or writes. `description` says what a
 * value must be and `x-hint` what to write instead; both go into the one-line error.
 */
const OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    confirm: {
      type: 'boolean',
      description: 'true or false',
      'x-hint':
        'Write { confirm: false } to skip the scratch experiments (read-only), or leave confirm out to run them.',
    },
    sampleSize: {
      type: 'integer',
      minimum: 1,
      description: 'a positive whole number of documents',
      'x-hint': 'For example { sampleSize: 2000 }; leave it out for min(max(20, 4% of count), 10000).',
    },
    db: {
      type: 'string',
      minLength: 1,
      description: 'a database name',
      'x-hint': 'For example { db: "blog" }; leave it out for the current database.',
    },
    confirmBudget: {
      type: 'integer',
      minimum: 1,
      description: 'a positive whole number of seconds',
      'x-hint': 'For example { confirmBudget: 60 }; leave it out for 30.',
    },
    maxTimeMS: {
      type: 'integer',
      minimum: 1,
      description: 'a positive whole number of milliseconds',
      'x-hint': 'For example { maxTimeMS: 20000 }; leave it out for 10000.',
    },
    maxLoad: {
      type: 'string',
      minLength: 1,
      description: "load limits as in the CLI's --max-load",
      'x-hint': 'For example { maxLoad: "active=25,queued=10,dirty=0.05,lag=1" }; leave it out for those defaults.',
    },
    maps: {
      ...MAPS_JSON_SCHEMA,
      description: "an object of map thresholds as in the configuration file's maps",
      'x-hint':
        `For example { maps: { minWordKeys: 40 } }; its ` +
        `keys: ${Object.keys(MAPS_JSON_SCHEMA.properties).join(', ')}.`,
    },
    rules: {
      type: 'object',
      description: 'an object of rule settings by rule id',
      'x-hint': 'For example { rules: { "id-pattern": "off", "array-growth": { options: { warnLength: 500 } } } }.',
    },
  },
} as const;

type OptionKey = keyof typeof OPTIONS_SCHEMA.properties;
const OPTION_KEYS = Object.keys(OPTIONS_SCHEMA.properties) as OptionKey[];
const SETTING_KEYS = ['severity', 'enabled', 'options'];
const SETTING_WORDS = ['off', ...SEVERITIES];

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addKeyword('x-hint');
const validateOptions = ajv.compile(OPTIONS_SCHEMA);

/** `"a", "b" or "c"`. */
const quoteOr = (xs: readonly string[]): string =>
  xs
    .map((x) => JSON.stringify(x))
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value as the error shows it: strings quoted and called strings (`"no" (a string)`), objects by kind only. */
function show(v: unknown): string {
  if (typeof v === 'string') return `${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)} (a string)`;
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
    return String(v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    const bson = (v as { _bsontype?: unknown })._bsontype;
    return typeof bson === 'string' ? `a BSON ${bson}` : 'an object';
  }
  return `a ${typeof v}`;
}

/** Where argument checks leave the run's rules, resolved once when every setting is good. */
interface Checked {
  resolved?: ResolvedRule[];
}

/**
 * What is wrong with a `rules` option (rule ids, setting shapes, each rule's options), one sentence each. The options
 * of the rules whose settings have a good shape are resolved in one `resolveRules` call: with no problem, its list is
 * the run's (`out.resolved`).
 */
function ruleSettingProblems(settings: Record<string, unknown>, out: Checked): string[] {
  const ids = rules.map((r) => r.id);
  const problems: string[] = [];
  const good: Record<string, unknown> = {};
  for (const [id, setting] of Object.entries(settings)) {
    const rule = rules.find((r) => r.id === id);
    const where = `rules[${JSON.stringify(id)}]`;
    if (!rule) {
      if (SPEC_RULES.some((s) => s.id === id))
        problems.push(
          `The rules name "${id}", a check of a declared spec that only the CLI's lint and audit run: ` +
            `remove it, advisor.check never runs it.`,
        );
      else problems.push(`Unknown rule "${id}" in rules.${didYouMean(id, ids)} Rules: ${ids.join(', ')}.`);
      continue;
    }
    const before = problems.length;
    if (typeof setting === 'string') {
      if (SETTING_WORDS.includes(setting)) good[id] = setting;
      else {
        const must = `${quoteOr(SETTING_WORDS)}, or an object { severity, enabled, options }`;
        problems.push(`${where} is ${show(setting)}, but it must be ${must}.${didYouMean(setting, SETTING_WORDS)}`);
      }
      continue;
    }
    if (!isPlainObject(setting)) {
      problems.push(
        `${where} is ${show(setting)}, but it must be ${quoteOr(SETTING_WORDS)}, or an object { severity, ` +
          `enabled, options }.`,
      );
      continue;
    }
    for (const k of Object.keys(setting).filter((k) => !SETTING_KEYS.includes(k))) {
      problems.push(`Unknown key "${k}" in ${where}.${didYouMean(k, SETTING_KEYS)} Keys: ${SETTING_KEYS.join(', ')}.`);
    }
    if (setting.severity !== undefined && !SEVERITIES.includes(setting.severity as Severity)) {
      const hint = typeof setting.severity === 'string' ? didYouMean(setting.severity, SEVERITIES) : '';
      problems.push(`${where}.severity is ${show(setting.severity)}, but it must be ${quoteOr(SEVERITIES)}.${hint}`);
    }
    if (setting.enabled !== undefined && typeof setting.enabled !== 'boolean')
      problems.push(`${where}.enabled is ${show(setting.enabled)}, but it must be true or false.`);
    if (setting.options !== undefined) {
      const names = Object.keys(rule.meta.options.properties);
      if (!isPlainObject(setting.options)) {
        problems.push(
          `${where}.options is ${show(setting.options)}, but it must be an object of the rule's options ` +
            `(${names.join(', ') || 'it has none'}).`,
        );
      } else {
        for (const k of Object.keys(setting.options).filter((k) => !names.includes(k))) {
          problems.push(
            names.length
              ? `Unknown option "${k}" for rule ${id}.${didYouMean(k, names)} Options of ${id}: ${names.join(', ')}.`
              : `Unknown option "${k}" for rule ${id}, which has no options.`,
          );
        }
      }
    }
    if (problems.length === before) good[id] = setting;
  }
  try {
    // The values against each rule's own option schema, as the CLI checks .mongo-advisor.json.
    const resolved = resolveRules(rules, { rules: good as AnalyzeSettings['rules'] });
    if (problems.length === 0) out.resolved = resolved;
  } catch (err) {
    if (!(err instanceof RuleOptionsError)) throw err;
    problems.push(...err.problems.map((p) => `In rules: ${p.message}`));
  }
  return problems;
}

/** NumberInt(5), NumberLong(5) and Double(5) as the plain numbers they hold, so numeric options accept them. */
function plainNumbers(opts: Record<string, unknown>): Record<string, unknown> {
  const out = { ...opts };
  for (const [k, v] of Object.entries(out)) {
    const bson = isPlainObject(v) ? (v as { _bsontype?: unknown })._bsontype : undefined;
    if (bson === 'Int32' || bson === 'Double') out[k] = Number((v as { valueOf(): unknown }).valueOf());
    else if (bson === 'Long') out[k] = (v as { toNumber(): number }).toNumber();
  }
  return out;
}

/** What is wrong with advisor.check's arguments, one sentence or two each; none when they are good. */
function argumentProblems(
  name: unknown,
  opts: Record<string, unknown> | undefined,
  given: unknown,
  out: Checked,
): string[] {
  if (name !== undefined && typeof name !== 'string') {
    const hint =
      isPlainObject(name) && given === undefined
        ? ' To check every collection with options, write advisor.check(undefined, { confirm: false }).'
        : '';
    return [
      `The first argument must be a collection name (a string), not ${show(name)}. Example: ` +
        `advisor.check("posts").${hint}`,
    ];
  }
  if (given === undefined) return [];
  if (!opts) return [`The options are ${show(given)}, but they must be an object, e.g. { confirm: false }.`];
  if (validateOptions(opts)) return isPlainObject(opts.rules) ? ruleSettingProblems(opts.rules, out) : [];
  const unknown: string[] = [];
  const problems = new Map<string, string>();
  for (const e of validateOptions.errors ?? []) {
    if (e.keyword === 'additionalProperties' && e.instancePath === '/maps') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const keys = Object.keys(MAPS_JSON_SCHEMA.properties);
      problems.set(
        'maps',
        `Unknown key "maps.${extra}".${didYouMean(extra, keys)} ${OPTIONS_SCHEMA.properties.maps['x-hint']}`,
      );
      continue;
    }
    if (e.instancePath.startsWith('/maps/')) {
      const sub = e.instancePath.slice('/maps/'.length) as keyof typeof MAPS_JSON_SCHEMA.properties;
      const what = MAPS_JSON_SCHEMA.properties[sub];
      const given = (opts as Record<string, unknown>).maps;
      const value = isPlainObject(given) ? given[sub] : undefined;
      if (what && !problems.has('maps'))
        problems.set(
          'maps',
          `Option maps.${sub} is ${show(value)}, but it ${e.message ?? 'is not valid'}: ${what.description}`,
        );
      continue;
    }
    if (e.keyword === 'additionalProperties') {
      unknown.push((e.params as { additionalProperty: string }).additionalProperty);
      continue;
    }
    const key = e.instancePath.slice(1).split('/')[0] as OptionKey;
    const prop = OPTIONS_SCHEMA.properties[key];
    if (!prop || problems.has(key)) continue;
    problems.set(key, `Option ${key} is ${show(opts[key])}, but it must be ${prop.description}. ${prop['x-hint']}`);
  }
  const keys = `Options: ${OPTION_KEYS.join(', ')}.`;
  if (unknown.length === 1) {
    const [key] = unknown as [string];
    return [`Unknown option "${key}".${didYouMean(key, OPTION_KEYS)} ${keys}`, ...problems.values()];
  }
  if (unknown.length > 1) {
    const each = unknown.map((key) => {
      const match = closest(key, OPTION_KEYS);
      return match === undefined ? `"${key}"` : `"${key}" (did you mean "${match}"?)`;
    });
    return [`Unknown options ${each.join(', ')}. ${keys}`, ...problems.values()];
  }
  return [...problems.values()];
}

/**
 * The arguments of advisor.check and the run's rules resolved under them, or a UserError naming every problem (nothing
 * has connected or written yet).
 */
function validate(name: unknown, given: unknown): { o: PluginCheckOptions; resolved: ResolvedRule[] } {
  const opts = isPlainObject(given) ? plainNumbers(given) : undefined;
  const out: Checked = {};
  const problems = argumentProblems(name, opts, given, out);
  if (problems.length) throw new UserError(`advisor.check did not run: ${problems.join(' ')}`);
  return { o: opts ?? {}, resolved: out.resolved ?? resolveRules(rules) };
}

/** The shell's connection string, for redaction only ('' when the shell does not say). */
function shellUri(shell: ShellGlobals): string {
  try {
    const m = shell.db.getMongo();
    return (typeof m.getURI === 'function' ? m.getURI() : m._uri) ?? '';
  } catch {
    return '';
  }
}

/**
 * A user error as mongosh shows it: one line, `mongo-advisor: <message>`, no stack. Any error's message is redacted of
 * the shell's connection string secrets (a driver message may echo it).
 */
function forShell(err: unknown, uri: string): unknown {
  if (err instanceof UserError || err instanceof OptionsError) {
    // The message may name databases and collections the server listed: escaped before mongosh prints it.
    const e = new Error(redactText(terminalSafe(err.message), [uri]));
    e.name = 'mongo-advisor';
    e.stack = `${e.name}: ${e.message}`;
    return e;
  }
  if (err instanceof Error) {
    const message = redactText(err.message, [uri]);
    if (message !== err.message) {
      err.message = message;
      err.stack = undefined;
    }
  }
  return err;
}

/**
 * advisor.check("blog") that failed because no collection of the shell's database is called blog, or because the
 * shell's database (often `test`) does not exist: the database to check instead, when the server has one of that name,
 * with why; null otherwise (a refused listDatabases too). Only when the call named no `db`.
 */
async function databaseInstead(
  err: unknown,
  adapter: ShellAdapter,
  name: string | undefined,
  db: string,
  o: { db?: string; maxTimeMS?: number },
): Promise<{ db: string; why: string } | null> {
  if (o.db || !name) return null;
  if (err instanceof NoSuchDatabase)
    return err.databases.includes(name)
      ? { db: name, why: `the shell's database "${db}" does not exist, and "${name}" is a database` }
      : null;
  if (!(err instanceof NoSuchCollection)) return null;
  const names = await listDatabaseNames(adapter, o.maxTimeMS ?? COLLECT_DEFAULTS.maxTimeMS).catch((): string[] => []);
  return names.includes(name)
    ? { db: name, why: `"${name}" is no collection of database "${db}" but a database of its own` }
    : null;
}

/**
 * `advisor.check(name, opts)`: a collection (or, when no collection has that name, a database) checked and confirmed
 * unless told not to, with a line per step on stderr and Ctrl-C cleaning the scratch database up.
 */
async function shellCheck(shell: ShellGlobals, name?: string, opts?: PluginCheckOptions): Promise<CheckResult> {
  const { o, resolved } = validate(name, opts);
  const adapter = new ShellAdapter(shell);
  const db = o.db ?? shell.db.getName();
  const confirm = o.confirm !== false;
  const say = (line: string): void => void process.stderr.write(`${line}\n`);
  const signals = confirm ? onShellSignals(say, adapter) : null;
  // mongosh prints nothing while a promise runs: a line per step on stderr (one per experiment, with its
  // budget) and a beat while one runs long. Names are escaped; stdout (the report, --json) is left alone.
  const lines = heartbeat((line) => say(redactText(terminalSafe(line), [shellUri(shell)])));
  const run = (target: { db: string; collection?: string }): Promise<CheckResult> =>
    check(adapter, {
      db: target.db,
      rules,
      ...(target.collection ? { collections: [target.collection] } : {}),
      ...(o.sampleSize ? { sampleSize: o.sampleSize } : {}),
      ...(o.maxTimeMS ? { maxTimeMS: o.maxTimeMS } : {}),
      ...(o.confirmBudget ? { budgetMs: o.confirmBudget * 1000 } : {}),
      confirm,
      resolved,
      ...(o.maxLoad ? { maxLoad: o.maxLoad } : {}),
      ...(o.maps ? { maps: o.maps } : {}),
      via: 'mongosh',
      log: (line: string) => lines.say(line),
      cleanupHint: 'advisor.cleanup()',
      ...(signals ? { signal: signals.signal, onScratch: signals.track } : {}),
    });
  const result = await run({ db, ...(name ? { collection: name } : {}) })
    .catch(async (err: unknown) => {
      const other = await databaseInstead(err, adapter, name, db, o);
      if (other) {
        const r = await run({ db: other.db });
        r.notes.unshift({
          level: 'info',
          message:
            `${other.why}: every collection of "${other.db}" was checked (advisor.check(undefined, { ` +
            `db: "${other.db}" }) asks for that directly).`,
        });
        return r;
      }
      if (err instanceof NoSuchDatabase)
        throw new UserError(
          `${err.what} Check the name (it is case-sensitive), switch with use("<name>"), or pass { ` +
            `db: "<name>" }.`,
        );
      throw err;
    })
    .finally(() => {
      lines.stop();
      signals?.dispose();
    });
  // A read-only run reports leftovers too (a confirming one did, through confirm).
  if (!confirm)
    for (const message of leftoverLines(await listScratchDatabases(adapter).catch(() => []), 'advisor.cleanup()'))
      result.notes.push({ level: 'error', message });
  if (signals?.interrupted()) return printInterrupted(result, say);
  return asPrintable(result);
}

/**
 * An interrupted run's end: mongosh showed the prompt again when Ctrl-C was handled and no longer waits for this
 * evaluation, so the partial report (experiments not run say so) is written here, after a line saying what became of
 * the scratch database.
 */
function printInterrupted(result: CheckResult, say: (line: string) => void): CheckResult {
  const { where, cleanedUp } = result.confirm;
  const db = /scratch database (\S+)/.exec(where ?? '')?.[1];
  const notRun = result.findings.filter((f) => f.confirmation?.status === 'not-run').length;
  try {
    say(
      `\nmongo-advisor: interrupted. ` +
        (db === undefined
          ? 'No scratch database was written. '
          : cleanedUp
            ? `Dropped the scratch database ${db} (listDatabases no longer lists it). `
            : `The scratch database ${db} was NOT dropped: see the report's notes; advisor.cleanup({ drop: true }) ` +
              'drops it. ') +
        `${notRun} experiment${notRun === 1 ? '' : 's'} not run; the partial report follows.`,
    );
    process.stdout.write(`${formatText(result, { color: process.stdout.isTTY === true })}\n`);
  } catch {
    // a closed terminal
  }
  return asPrintable(result, true);
}

/**
 * `p`, marked as mongosh's own asynchronous shell methods mark theirs (a hidden `@@mongosh.syntheticPromise`
 * property): the shell's async rewriter then awaits it wherever code uses the value, so a script's
 * `const r = advisor.check("posts")` holds the result, as `db.posts.find().toArray()` does, instead of a Promise the
 * script ends without waiting for (the run was cut off mid-way, the shell's client closed under it).
 */
function awaitedByShell<T>(p: Promise<T>): Promise<T> {
  return Object.defineProperty(p, Symbol.for('@@mongosh.syntheticPromise'), { value: true, enumerable: false });
}

/** `advisor.cleanup(opts)`: its argument checked, then the scratch databases listed (and the stale ones dropped). */
async function shellCleanup(shell: ShellGlobals, opts?: { drop?: boolean }): Promise<{ [k: symbol]: () => string }> {
  try {
    if (
      opts !== undefined &&
      (!isPlainObject(opts) ||
        Object.keys(opts).some((k) => k !== 'drop') ||
        (opts.drop !== undefined && typeof opts.drop !== 'boolean'))
    ) {
      throw new UserError(
        'advisor.cleanup takes no argument (list) or { drop: true } (drop the stale scratch databases listed).',
      );
    }
    return printableText(await cleanupText(new ShellAdapter(shell), opts?.drop === true));
  } catch (err) {
    throw forShell(err, shellUri(shell));
  }
}

/** Defines `advisor` on mongosh's global scope. Called by dist/advisor.js after load(). */
export function install(g: Record<string, unknown>): void {
  const shell = g as unknown as ShellGlobals;
  const advisor = {
    version: VERSION,
    help: () => printableText(HELP),
    check(name?: string, opts?: PluginCheckOptions): Promise<CheckResult> {
      return awaitedByShell(
        shellCheck(shell, name, opts).catch((err: unknown) => {
          throw forShell(err, shellUri(shell));
        }),
      );
    },
  };
  Object.assign(advisor, {
    /** Lists scratch databases; `{ drop: true }` drops the stale ones (never one a run in progress uses). */
    cleanup(opts?: { drop?: boolean }): Promise<{ [k: symbol]: () => string }> {
      return awaitedByShell(shellCleanup(shell, opts));
    },
  });
  Object.defineProperty(advisor, inspect.custom, { value: () => HELP, enumerable: false });
  g.advisor = advisor;
}
