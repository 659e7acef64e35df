import { dataOf } from '../../src/core/collector';
import { formatNumber } from '../../src/core/format';
import { defineRule, type NoteFn, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, Recommendation, Snapshot } from '../../src/core/types';
import { codeSpan, type ShellCode, shellCall, shellCode, shellDbCall, shellRunCommand } from '../../src/lib/shell';
import { type ValidatorDryRun, validatorCollector } from './collect';
import { CONFIRM_MESSAGES, confirmValidator, MEASURED_FINDINGS } from './confirm';
import { type ValidatorOptions, validatorOptionsSchema } from './options';
import { censusDocuments, plainSchema, type Proposal, proposeSchema, schemaFingerprint, shellLiteral } from './propose';
import { versionAtLeast } from '../../src/lib/version';

export { validatorOptionsSchema, type ValidatorOptions } from './options';

/** A number and its noun, for notes (free text, not message templates). */
const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;
/** Paths in backticks; the proposal's '(document)' (the document's own keys, a map or too many) is said in words. */
const quoted = (paths: readonly string[]): string =>
  paths.map((p) => (p === '(document)' ? "the documents' own keys besides `_id`" : `${codeSpan(p)}`)).join(', ');

// Message parts, so the variants of one finding read alike. A variant says how the count was made (on the server, or
// in the sample only); what a random sample happened to contain (failing paths, gaps) goes to the recommendation, so
// a finding's id (its fingerprint in a baseline) does not change from one sample to the next.
const ON_SERVER = '{{failing}} of {{documents}} documents (counted on the server)';
const IN_SAMPLE = '{{failing}} of {{checked}} sampled documents';
const LEVEL_OFF = 'The validator is stored but validationLevel is "off": it checks no write.';
const STRICT = sentence(
  'fail the validator, which is "{{level}}" with action "{{action}}": any update to those documents is ',
  'rejected unless it makes them valid.',
);
const NOT_STRICT = 'fail the validator ("{{level}}", action "{{action}}").';
const READY = 'yet it runs with validationLevel "{{level}}" and validationAction "{{action}}".';
const NOT_CHECKED = 'The sample was not checked against the validator in-process: {{reason}}.';
const PARTIAL = 'The in-process check of the sample left out what it cannot evaluate: {{list}}.';
const SERVER_COUNT = 'On the server, {{failing}} of {{documents}} documents fail the whole validator.';
const NO_SERVER_COUNT = 'No server-side count either: {{serverReason}}.';
const NO_VALIDATOR = 'No validator: nothing stops a write from dropping a field or changing its type.';

const messages = {
  missing: sentence(
    `${NO_VALIDATOR} Proposed from a random sample of {{documents}} documents: {{required}} required, `,
    `{{fields}} field paths typed.`,
  ),
  missingComplete: sentence(
    `${NO_VALIDATOR} Proposed from all {{documents}} documents (every document was read): {{required}} `,
    `required, {{fields}} field paths typed.`,
  ),
  missingOrdered: sentence(
    `${NO_VALIDATOR} Proposed from {{documents}} documents that are not a random sample (the server has no `,
    `$sample: the first documents in natural order), so only \`_id\` is required; {{fields}} field paths `,
    `typed.`,
  ),
  levelOff: `${LEVEL_OFF} ${ON_SERVER} fail it.`,
  levelOffInSample: `${LEVEL_OFF} ${IN_SAMPLE} fail it.`,
  levelOffUncounted: `${LEVEL_OFF} How many documents fail it is unknown.`,
  violationsStrict: `${ON_SERVER} ${STRICT}`,
  violationsStrictInSample: `${IN_SAMPLE} ${STRICT}`,
  violations: `${ON_SERVER} ${NOT_STRICT}`,
  violationsInSample: `${IN_SAMPLE} ${NOT_STRICT}`,
  readyForError: `No document fails the validator (counted on the server), ${READY}`,
  readyForErrorInSample: `No document fails the validator (checked on {{checked}} sampled documents only), ${READY}`,
  violationsUnknown: 'The validator runs as {{level}}/{{action}}, and how many documents fail it is unknown.',
  notChecked: `${NOT_CHECKED} ${SERVER_COUNT}`,
  notCheckedNoServerCount: `${NOT_CHECKED} ${NO_SERVER_COUNT}`,
  partialCheck: `${PARTIAL} ${SERVER_COUNT}`,
  partialCheckNoServerCount: `${PARTIAL} ${NO_SERVER_COUNT}`,
  countsDisagree: sentence(
    'The in-process check finds {{failing}} of {{checked}} sampled documents failing the validator, but the ',
    'server counts only {{serverFailing}} of {{documents}} documents failing it in the whole collection: the ',
    "server and the advisor's reading of $jsonSchema (MongoDB's documented semantics) judge some values ",
    "differently, or the documents changed between the sample and the count. The advice follows the server's ",
    'count, since the server is what enforces the validator. Failing paths in the sample: {{paths}}.',
  ),
} as const;

type ValidatorReport = Report<typeof messages>;

const MANUAL = 'https://www.mongodb.com/docs/manual';
const SPECIFY_SCHEMA = `${MANUAL}/core/schema-validation/specify-json-schema/`;
const LEVEL = `${MANUAL}/core/schema-validation/specify-validation-level/`;
const ACTION = `${MANUAL}/core/schema-validation/handle-invalid-documents/`;
const INVALID_DOCS = `${MANUAL}/core/schema-validation/use-json-schema-query-conditions/`;
const JSON_SCHEMA = `${MANUAL}/reference/operator/query/jsonSchema/`;

function atLeast81(s: Snapshot): boolean {
  return s.server.flavor === 'mongodb' && versionAtLeast(s.server.versionArray, 8, 1);
}

function collMod(c: CollectionSnapshot, fields: Record<string, unknown>): string {
  return shellRunCommand(c.db, { collMod: c.name, ...fields });
}

/** Counts the documents failing the stored validator (read back from the collection's options). */
function countViolators(c: CollectionSnapshot): string {
  return shellCall(c.db, c.name, 'countDocuments', { $nor: [storedValidator(c)] });
}

/** The collection's stored validator, read back in the shell: `db.getSiblingDB(…).getCollectionInfos(…)[0]…`. */
function storedValidator(c: CollectionSnapshot): ShellCode {
  return shellCode(`${shellDbCall(c.db, 'getCollectionInfos', { name: c.name })}[0].options.validator`);
}

/** Lists the documents failing the stored validator by _id only (the user runs it; the report prints no values). */
function findViolators(c: CollectionSnapshot): string {
  return shellCall(c.db, c.name, 'find', { $nor: [storedValidator(c)] }, { _id: 1 });
}

function byPathText(byPath: Record<string, number>, max = 8): string {
  const entries = Object.entries(byPath).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return '';
  const shown = entries.slice(0, max).map(([p, n]) => `${codeSpan(p)} (${formatNumber(n)})`);
  return `${shown.join(', ')}${entries.length > max ? `, and ${entries.length - max} more` : ''}`;
}

/** The switches that tighten a validator: to "error" when it warns, to "strict" when it is moderate. */
function switchesOf(level: string, action: string): string[] {
  return [
    action === 'warn' ? 'validationAction "error"' : '',
    level === 'moderate' ? 'validationLevel "strict"' : '',
  ].filter(Boolean);
}

/** ", and 3 more" after a list cut at its first items; '' when nothing was cut. */
const andMore = (n: number): string => (n > 0 ? `, and ${formatNumber(n)} more` : '');

/** Why failing documents must be fixed before tightening a validator that is not both "strict" and rejecting. */
function nextStep(level: string, action: string): string {
  const warns = action === 'warn';
  if (level === 'moderate' && warns)
    return (
      'Today "warn" only logs invalid writes and "moderate" does not check updates to these documents at all; ' +
      'with "strict" and "error", any update to one of them is rejected unless it makes it valid.'
    );
  if (level === 'moderate')
    return (
      '"moderate" lets updates to these documents through without checking them; with "strict", any update to ' +
      'one of them is rejected unless it makes it valid.'
    );
  return (
    '"warn" only logs invalid writes; with "error", any update to one of these documents is rejected unless ' +
    'it makes it valid.'
  );
}

/** How many documents fail the validator, and how that is known: the server's count, else the sample's, else
 * unknown. */
type Count =
  | { kind: 'server'; failing: number; documents: number }
  | { kind: 'sample'; failing: number; checked: number }
  | { kind: 'unknown' };

/** The server's count, when the snapshot has it with the total it is out of. */
function serverCount(d: ValidatorDryRun | undefined): { failing: number; documents: number } | null {
  return d && d.serverViolators !== null && d.serverDocuments !== null
    ? { failing: d.serverViolators, documents: d.serverDocuments }
    : null;
}

function countOf(d: ValidatorDryRun | undefined): Count {
  const server = serverCount(d);
  if (server) return { kind: 'server', ...server };
  if (d && d.checked > 0) return { kind: 'sample', failing: d.violations, checked: d.checked };
  return { kind: 'unknown' };
}

/** What the findings on an existing validator read: its level and action, the collector's dry run, the count. */
interface Existing {
  level: string;
  action: string;
  d: ValidatorDryRun | undefined;
  target: { db: string; collection: string };
  count: Count;
  evidence: Record<string, string | number | boolean | null>;
  /** Failing documents per path in the sample, as text ('' without a dry run). */
  paths: string;
}

function existingOf(c: CollectionSnapshot): Existing {
  const v = c.validator;
  const level = v.validationLevel ?? 'strict';
  const action = v.validationAction ?? 'error';
  const d = dataOf(validatorCollector, c)?.dryRun;
  const target = { db: c.db, collection: c.name };
  const count = countOf(d);
  const evidence = {
    validationLevel: level,
    validationAction: action,
    jsonSchema: v.jsonSchema !== undefined,
    queryOperators: (v.queryOperators ?? []).join(', ') || null,
    sampleChecked: d?.checked ?? null,
    sampleViolations: d?.violations ?? null,
    serverViolators: d?.serverViolators ?? null,
    serverDocuments: d?.serverDocuments ?? null,
    unsupported: d ? d.unsupportedKeywords.length : null,
  };
  const paths = d ? byPathText(d.byPath) : '';
  return { level, action, d, target, count, evidence, paths };
}

/** What the dry run could not check (query operators, keywords), and a sample that disagrees with the server. */
function reportCheckLimits({ target, evidence, paths }: Existing, d: ValidatorDryRun, report: ValidatorReport): void {
  const server = serverCount(d);
  const serverReason = d.serverReason ?? 'none is recorded in the snapshot';
  const list = [...d.unsupportedKeywords, ...d.undecided].join('; ');
  if (d.skippedReason) {
    const reason = d.skippedReason;
    if (server) report({ messageId: 'notChecked', severity: 'info', target, data: { reason, ...server }, evidence });
    else
      report({
        messageId: 'notCheckedNoServerCount',
        severity: 'info',
        target,
        data: { reason, serverReason },
        evidence,
      });
  } else if (list) {
    if (server) report({ messageId: 'partialCheck', severity: 'info', target, data: { list, ...server }, evidence });
    else {
      report({
        messageId: 'partialCheckNoServerCount',
        severity: 'info',
        target,
        data: { list, serverReason },
        evidence,
      });
    }
  }
  if (server && d.violations > server.failing) {
    // the sample is part of the collection: more failing sampled documents than failing documents overall is a
    // disagreement
    report({
      messageId: 'countsDisagree',
      severity: 'info',
      target,
      data: {
        failing: d.violations,
        checked: d.checked,
        serverFailing: server.failing,
        documents: server.documents,
        paths,
      },
      evidence,
    });
  }
}

/** A validator turned off: turn it on, strict when nothing fails it. */
function reportLevelOff({ count, target, evidence }: Existing, c: CollectionSnapshot, report: ValidatorReport): void {
  const clean = count.kind !== 'unknown' && count.failing === 0;
  const off = {
    severity: 'warn' as const,
    target,
    evidence,
    recommendation: {
      action: clean ? 'turn it on (strict)' : 'turn it on for new and valid documents (moderate)',
      reason: clean
        ? 'No document fails it, so strict validation rejects nothing that exists today.'
        : '"moderate" checks inserts and updates to valid documents, and lets updates to the documents that ' +
          'already fail through until you fix them.',
      commands: [collMod(c, { validationLevel: clean ? 'strict' : 'moderate' })],
    },
  };
  if (count.kind === 'server') {
    report({ ...off, messageId: 'levelOff', data: { failing: count.failing, documents: count.documents } });
  } else if (count.kind === 'sample') {
    report({ ...off, messageId: 'levelOffInSample', data: { failing: count.failing, checked: count.checked } });
  } else report({ ...off, messageId: 'levelOffUncounted' });
}

/** Documents fail the validator: moderate while they are fixed (strict/error), or fix them before tightening. */
function reportViolations(e: Existing, c: CollectionSnapshot, report: ValidatorReport): void {
  const { level, action, count, target, evidence, paths } = e;
  if (count.kind === 'unknown') return;
  const onSample = count.kind === 'server' ? '' : ' The count is from the sample: count the whole collection first.';
  const strictError = level === 'strict' && (action === 'error' || action === 'errorAndLog');
  const inSample = paths ? ` Failing paths in the sample: ${paths}.` : '';
  const recommendation: Recommendation = strictError
    ? {
        action: 'moderate while you fix them',
        reason:
          `With validationLevel "strict", every update to one of these documents is rejected unless it makes ` +
          `the document valid. "moderate" keeps checking inserts and valid documents; switch back to "strict" ` +
          `once the count is 0.${onSample}${inSample}`,
        commands: [collMod(c, { validationLevel: 'moderate' }), findViolators(c)],
      }
    : {
        action: `fix the failing documents, then switch to ${switchesOf(level, action).join(' and ')}`,
        reason: `${nextStep(level, action)}${onSample}${inSample} List them by _id:`,
        commands: [findViolators(c)],
      };
  const found = { severity: strictError ? ('warn' as const) : ('info' as const), target, evidence, recommendation };
  if (count.kind === 'server') {
    const data = { failing: count.failing, documents: count.documents, level, action };
    if (strictError) report({ ...found, messageId: 'violationsStrict', data });
    else report({ ...found, messageId: 'violations', data });
  } else {
    const data = { failing: count.failing, checked: count.checked, level, action };
    if (strictError) report({ ...found, messageId: 'violationsStrictInSample', data });
    else report({ ...found, messageId: 'violationsInSample', data });
  }
}

/** Nothing fails a warn-only or moderate validator: ready for error and strict. */
function reportReady(e: Existing, snapshot: Snapshot, c: CollectionSnapshot, report: ValidatorReport): void {
  const { level, action, count, target, evidence } = e;
  if (count.kind === 'unknown') return;
  const warnOnly = action === 'warn';
  // nothing fails (count.failing is 0 here)
  const changes: Record<string, string> = {};
  if (warnOnly) changes.validationAction = 'error';
  if (level === 'moderate') changes.validationLevel = 'strict';
  const commands = [collMod(c, changes)];
  if (warnOnly && atLeast81(snapshot)) commands.push(collMod(c, { ...changes, validationAction: 'errorAndLog' }));
  const ready = {
    severity: 'info' as const,
    target,
    evidence,
    recommendation: {
      action: switchesOf(level, action).join(', '),
      reason: [
        warnOnly
          ? '"warn" only logs bad writes; "error" rejects them, and nothing that exists today would fail.'
          : '"moderate" skips updates to documents that are already invalid; there are none.',
        count.kind === 'server'
          ? ''
          : ' The count is from the sample only: count the whole collection before switching.',
        warnOnly && atLeast81(snapshot)
          ? ' On 8.1+, "errorAndLog" rejects like "error" and also logs each rejection, for teams that want the log ' +
            '(second command).'
          : '',
      ].join(''),
      commands: count.kind === 'server' ? commands : [countViolators(c), ...commands],
    },
  };
  if (count.kind === 'server') report({ ...ready, messageId: 'readyForError', data: { level, action } });
  else report({ ...ready, messageId: 'readyForErrorInSample', data: { checked: count.checked, level, action } });
}

/** A warn-only or moderate validator with no count at all: count before switching. */
function reportUncounted(e: Existing, c: CollectionSnapshot, report: ValidatorReport): void {
  const { level, action, target, evidence } = e;
  report({
    messageId: 'violationsUnknown',
    severity: 'info',
    target,
    data: { level, action },
    evidence,
    recommendation: {
      action: 'count the failing documents',
      reason:
        'Count before switching to validationAction "error" and validationLevel "strict": if the count is 0, ' +
        'nothing existing would be rejected.',
      commands: [countViolators(c)],
    },
  });
}

function analyzeExisting(snapshot: Snapshot, c: CollectionSnapshot, report: ValidatorReport): void {
  const e = existingOf(c);
  if (e.d) reportCheckLimits(e, e.d, report);
  if (e.level === 'off') return reportLevelOff(e, c, report);
  if (e.count.kind !== 'unknown' && e.count.failing > 0) return reportViolations(e, c, report);
  if (e.action !== 'warn' && e.level !== 'moderate') return;
  if (e.count.kind === 'unknown') reportUncounted(e, c, report);
  else reportReady(e, snapshot, c, report);
}

/** The published YCSB benchmark the cost claim rests on (README, "Why"). */
const COST =
  'For scale, a published YCSB benchmark (10M × 1 KB documents, 100 threads) measured 40.2k vs 40.9k ops/s ' +
  'without and with a validator at 95% reads, and 112k vs 120k at 90% inserts: within noise there; the ' +
  'confirmation measures it on a copy of this collection.';

const listed = (paths: readonly string[], max = 8): string =>
  `${quoted(paths.slice(0, max))}${paths.length > max ? `, and ${formatNumber(paths.length - max)} more` : ''}`;

/**
 * Whether the proposal may start as strict/error, and the count that says so: the server's count of documents failing
 * this very schema (the collector counted the proposal made with the options it was collected with: used only when
 * the fingerprint matches), else, on a read of every document, the in-process check of every one (or the census,
 * when the options changed the schema). Anything else is a sample: moderate/warn, with why.
 */
type Verdict =
  | { strict: true; how: string; violators: number; on: 'server' | 'every document' }
  | { strict: false; how: string; violators: number | null; on: 'server' | 'every document' | 'sample' | null };

function verdictOf(c: CollectionSnapshot, p: Proposal): Verdict {
  const stored = dataOf(validatorCollector, c)?.proposal;
  const same = stored !== undefined && stored.fingerprint === schemaFingerprint(plainSchema(p.schema));
  if (same && stored.serverViolators !== null && stored.serverDocuments !== null) {
    const { serverViolators: n, serverDocuments: total } = stored;
    if (n === 0)
      return {
        strict: true,
        violators: 0,
        on: 'server',
        how:
          `No existing document fails it: the server counted 0 of ${formatNumber(total)} documents matching ` +
          `{$nor: [{$jsonSchema: schema}]}, so "strict" and "error" reject only new bad writes.`,
      };
    return {
      strict: false,
      violators: n,
      on: 'server',
      how:
        `${formatNumber(n)} of ${formatNumber(total)} existing documents fail it (counted on the server): ` +
        `with "strict" and "error", every update to one of them would be rejected. Start with "moderate" and ` +
        `"warn": "warn" logs bad writes instead of rejecting them and "moderate" does not check updates to ` +
        `documents that already fail; list them by _id (last command), fix them, then switch to "strict" and ` +
        `"error".`,
    };
  }
  const otherOptions =
    'the collector counted the proposal made with the options the snapshot was collected with, and yours differ';
  const reason =
    stored === undefined
      ? 'the snapshot has no count of it'
      : !same
        ? otherOptions
        : (stored.serverReason ?? 'no reason was recorded');
  if (p.basis === 'complete') {
    const clean = same ? stored.violations === 0 && stored.checked >= p.documents : p.gaps.length === 0;
    const n = same ? stored.violations : null;
    if (clean)
      return {
        strict: true,
        violators: 0,
        on: 'every document',
        how:
          `No existing document fails it: every document was read ` +
          `and ${same ? 'checked against it' : 'each holds every required field (the census of every document)'}, ` +
          `so "strict" and "error" reject only new bad writes. (No server count: ${reason}.)`,
      };
    return {
      strict: false,
      violators: n,
      on: 'every document',
      how:
        `${n === null ? 'Some' : formatNumber(n)} of the ${formatNumber(p.documents)} documents (every one ` +
        `was read) fail it. Start with "moderate" and "warn", fix them, then switch to "strict" and "error".`,
    };
  }
  return {
    strict: false,
    violators: same ? stored.violations : null,
    on: same ? 'sample' : null,
    how:
      `Start with "moderate" and "warn": it was proposed from a sample and no server count says that no ` +
      `existing document fails it (${reason}). "warn" logs bad writes instead of rejecting them and "moderate" ` +
      `does not check updates to documents that already fail; run the count (second command), and switch to ` +
      `"strict" and "error" when it is 0.`,
  };
}

/**
 * A server that does not implement validators: the capability probe proved none, or FerretDB, whatever the probe
 * says (1.x accepts a validator and silently keeps none, so a probe that was answered proves nothing there).
 */
function lacksValidators(snapshot: Snapshot): boolean {
  return snapshot.server.capabilities.validators?.supported === false || snapshot.server.flavor === 'ferretdb';
}

/**
 * On a server without validators nothing is proposed for it: the schema alone, as what a MongoDB server would take
 * (a migration), with no collMod, no count (the server does not evaluate $jsonSchema) and no level or action.
 */
function forMongoDbOnly(schemaCommand: string, shown: string): { action: string; reason: string; commands: string[] } {
  return {
    action: 'none for this server; the schema is for a MongoDB server',
    reason:
      `This server does not implement validators (FerretDB 1.x has none), so no validator is proposed for it. ` +
      `The schema (the command) is what a MongoDB server would take as \`$jsonSchema\`, after a migration: ` +
      `count the documents failing it there before choosing a level and an action.${shown}`,
    commands: [schemaCommand],
  };
}

/** What the census showed besides the schema: said in the recommendation, so the finding stays one finding. */
function shownOf(p: Proposal, o: ValidatorOptions): string {
  const ofHolders =
    o.requiredShare >= 1
      ? 'every document (or object) holding them'
      : `at least ${Math.round(o.requiredShare * 1000) / 10}% of the documents (or objects) holding them`;
  const belowDepth = p.belowDepth.map((b) => `${codeSpan(b.path)} (${plural(b.paths, 'path')})`);
  // a map in a field can become an array of {k, v}; documents that are maps themselves cannot
  const fieldMaps = p.maps.filter((m) => m !== '(document)');
  return [
    p.basis === 'ordered'
      ? ''
      : ` Required: fields present and not \`null\` ` +
        `in ${ofHolders}${p.basis === 'random' ? ' in the sample' : ''}; the others are optional.`,
    p.gaps.length
      ? ` Required but missing from some ` +
        `documents: ${p.gaps.map((g) => `${codeSpan(g.path)} (${formatNumber(g.missing)})`).join(', ')}.`
      : '',
    p.blanksOptional.length
      ? ` Optional because their blank strings stand for no value, which the mixed-types rule proposes to remove ` +
        `with \`$unset\` (the schema accepts the strings until then; type these fields without \`string\` once ` +
        `they are gone): ${listed(p.blanksOptional)}.`
      : '',
    p.nullOnly.length ? ` Seen only as \`null\`, so left untyped (any type): ${listed(p.nullOnly)}.` : '',
    p.mixed.length ? ` Typed with every type seen (the mixed-types rule reports them): ${listed(p.mixed)}.` : '',
    p.maps.length ? ` Maps keyed by data, one schema for every value (additionalProperties): ${listed(p.maps)}.` : '',
    fieldMaps.length
      ? ` This schema rejects the rewrite of ${listed(fieldMaps)} into an array of {k, v} (the dynamic-keys ` +
        `rule's advice): before that rewrite, type the field as \`{ bsonType: "array" }\` in the validator (collMod).`
      : '',
    p.open.length ? ` Left open (more than ${formatNumber(o.maxProperties)} keys, a map): ${listed(p.open)}.` : '',
    belowDepth.length
      ? ` Left out below level ${formatNumber(o.maxDepth)} (maxDepth; they accept anything): ` +
        `${belowDepth.slice(0, 8).join(', ')}${andMore(belowDepth.length - 8)}.`
      : '',
    p.overCap.length
      ? ` Left out over the cap of ${formatNumber(o.maxFields)} field paths (maxFields; they accept ` +
        `anything): ${plural(p.overCap.length, 'path')}, ${listed(p.overCap)}.`
      : '',
    p.enums.length ? ` Enums read with distinct() when you run it: ${quoted(p.enums)}.` : '',
    p.enumsSkipped ? ` No enums: ${p.enumsSkipped}.` : '',
  ].join('');
}

/** The proposal's commands: the schema, the count of documents failing it, the collMod, and what the verdict adds. */
function proposalCommands(snapshot: Snapshot, c: CollectionSnapshot, p: Proposal, v: Verdict): string[] {
  const level = v.strict ? 'strict' : 'moderate';
  const action = v.strict ? 'error' : 'warn';
  const schema = { $jsonSchema: shellCode('schema') };
  const commands = [
    `var schema = ${shellLiteral(p.schema)}`,
    shellCall(c.db, c.name, 'countDocuments', { $nor: [schema] }),
    collMod(c, { validator: schema, validationLevel: level, validationAction: action }),
  ];
  if (v.strict && atLeast81(snapshot)) commands.push(collMod(c, { validationAction: 'errorAndLog' }));
  if (!v.strict) commands.push(shellCall(c.db, c.name, 'find', { $nor: [schema] }, { _id: 1 }));
  return commands;
}

/** The proposal's evidence: its figures, how it was read, and the verdict on the level and action. */
function proposalEvidence(
  c: CollectionSnapshot,
  p: Proposal,
  v: Verdict,
): Record<string, string | number | boolean | null> {
  return {
    sampleSize: p.documents,
    basis: p.basis,
    required: p.required.length,
    fields: p.fields,
    gaps: p.gaps.length,
    blanksOptional: p.blanksOptional.length,
    nullOnly: p.nullOnly.length,
    mixed: p.mixed.length,
    maps: p.maps.length,
    open: p.open.length,
    leftOutBelowDepth: p.belowDepth.reduce((n, b) => n + b.paths, 0),
    leftOutOverCap: p.overCap.length,
    enums: p.enums.length,
    sampleRandom: c.sample.random,
    proposedLevel: v.strict ? 'strict' : 'moderate',
    proposedAction: v.strict ? 'error' : 'warn',
    violators: v.violators,
    violatorsCountedOn: v.on,
  };
}

/** The recommendation: the validator to add (or, on a server without validators, the schema for a MongoDB one). */
function proposalRecommendation(snapshot: Snapshot, p: Proposal, v: Verdict, commands: string[], shown: string) {
  if (lacksValidators(snapshot)) return forMongoDbOnly(commands[0] ?? '', shown);
  const errorAndLog =
    v.strict && atLeast81(snapshot) ? ' On 8.1+, "errorAndLog" also logs each rejection (last command).' : '';
  return {
    action: v.strict ? 'add this validator (strict, error)' : 'add this validator (moderate, warn), then tighten it',
    reason: `${v.how}${shown} ${COST}${errorAndLog}`,
    commands,
  };
}

/** Too few documents to propose from is the data's size, not a limit of the check: a note only when none was read. */
function noteNoCensus(c: CollectionSnapshot, note: NoteFn): void {
  if (censusDocuments(c) !== 0) return;
  note(
    `no validator, and none proposed: the ${plural(c.sample.size, 'sampled document')} were too large ` +
      `to read whole and were measured on the server, so no field census exists`,
    { db: c.db, collection: c.name },
  );
}

function analyzeMissing(
  snapshot: Snapshot,
  c: CollectionSnapshot,
  o: ValidatorOptions,
  report: ValidatorReport,
  note: NoteFn,
): void {
  if (c.sample.size === 0) return;
  const p = proposeSchema(c, o, dataOf(validatorCollector, c)?.stringCardinality);
  if (!p) return noteNoCensus(c, note);
  const v = verdictOf(c, p);
  const commands = proposalCommands(snapshot, c, p, v);
  const finding = {
    severity: 'info' as const,
    target: { db: c.db, collection: c.name },
    evidence: proposalEvidence(c, p, v),
    recommendation: proposalRecommendation(snapshot, p, v, commands, shownOf(p, o)),
  };
  const fields = p.fields;
  if (p.basis === 'ordered')
    report({ ...finding, messageId: 'missingOrdered', data: { documents: p.documents, fields } });
  else {
    const data = { documents: p.documents, required: quoted(p.required), fields };
    if (p.basis === 'complete') report({ ...finding, messageId: 'missingComplete', data });
    else report({ ...finding, messageId: 'missing', data });
  }
}

export default defineRule({
  id: 'validator',
  needs: [validatorCollector],
  scope: 'collection',
  meta: {
    description:
      'Schema validation: presence, level and action, a dry run of $jsonSchema over the sample, and a ' +
      'proposal where there is none',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/schema-validation/',
    // each finding links to the page that explains it
    docsUrls: {
      missing: SPECIFY_SCHEMA,
      missingComplete: SPECIFY_SCHEMA,
      missingOrdered: SPECIFY_SCHEMA,
      levelOff: LEVEL,
      levelOffInSample: LEVEL,
      levelOffUncounted: LEVEL,
      violationsStrict: LEVEL,
      violationsStrictInSample: LEVEL,
      violations: INVALID_DOCS,
      violationsInSample: INVALID_DOCS,
      readyForError: ACTION,
      readyForErrorInSample: ACTION,
      violationsUnknown: INVALID_DOCS,
      notChecked: JSON_SCHEMA,
      notCheckedNoServerCount: JSON_SCHEMA,
      partialCheck: JSON_SCHEMA,
      partialCheckNoServerCount: JSON_SCHEMA,
      countsDisagree: INVALID_DOCS,
    },
    severity: 'info',
    messages,
    options: validatorOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection: c, options, report, note }) {
    if (!c) return;
    if (c.validator.present) analyzeExisting(snapshot, c, report);
    else analyzeMissing(snapshot, c, options, report, note);
  },
  confirm: {
    describe:
      'insert and update time on a scratch copy with vs without the validator (read back to prove the server kept it)',
    messages: CONFIRM_MESSAGES,
    appliesTo: (f) => MEASURED_FINDINGS.has(f.messageId),
    run: confirmValidator,
  },
});
