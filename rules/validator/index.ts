import { dataOf } from '../../src/core/collector';
import { formatNumber } from '../../src/core/format';
import { defineRule, type NoteFn, type OptionsOf, type OptionsSchema, type Report } from '../../src/core/rule';
import type { CollectionSnapshot, Recommendation, Snapshot } from '../../src/core/types';
import { shellCollection } from '../../src/lib/shell';
import { type ValidatorDryRun, validatorCollector } from './collect';
import { confirmValidator, MEASURED_FINDINGS } from './confirm';
import { censusDocuments, proposeSchema, shellLiteral } from './propose';

export const validatorOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requiredShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.99,
      description: 'Share of sampled documents a field must appear in to be proposed as required (99%: present in all but the odd stray document). Fields below it are typed but optional.',
    },
    minSample: {
      type: 'integer',
      minimum: 1,
      default: 20,
      description: "Fewest sampled documents to propose a validator from: mongosh's analyze-schema snippet never samples fewer than 20.",
    },
    proposeEnums: {
      type: 'boolean',
      default: false,
      description:
        'Opt-in: give low-cardinality string fields an enum. Off by default because an enum freezes today\'s values (a new status would be rejected) and because the values are document data, which reports never print: the proposal reads them on your server with distinct() when you run it.',
    },
    enumMaxDistinct: { type: 'integer', minimum: 1, maximum: 64, default: 10, description: 'With proposeEnums: most distinct strings in the sample for a field to get an enum (the collector counts up to 64).' },
    enumMinOccurrences: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description: 'With proposeEnums: each distinct value must be seen this many times on average, so a field with few documents is not mistaken for a closed list.',
    },
    maxProperties: {
      type: 'integer',
      minimum: 1,
      default: 100,
      description: 'Objects with more keys than this look like maps keyed by data (ids, dates): the proposal leaves them open instead of listing every key.',
    },
    noiseRatio: {
      type: 'number',
      minimum: 1,
      default: 1.1,
      description:
        'Confirmation: a validator costing at most this ratio of the time without it counts as negligible. The YCSB field report (the validator field report) saw runs differ by up to 7% either way with and without a validator (r10/i90: 112k vs 120k ops/s).',
    },
  },
} as const satisfies OptionsSchema;

export type ValidatorOptions = OptionsOf<typeof validatorOptionsSchema>;


/** A number and its noun, for notes (free text, not message templates). */
const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;
const quoted = (paths: readonly string[]): string => paths.map((p) => `\`${p}\``).join(', ');

// Message parts, so the variants of one finding read alike. A variant says how the count was made (on the server, or
// in the sample only); what a random sample happened to contain (failing paths, gaps) goes to the recommendation, so
// a finding's id (its fingerprint in a baseline) does not change from one sample to the next.
const ON_SERVER = '{{failing}} of {{documents}} documents (counted on the server)';
const IN_SAMPLE = '{{failing}} of {{checked}} sampled documents';
const LEVEL_OFF = 'The validator is stored but validationLevel is "off": it checks no write.';
const STRICT = 'fail the validator, which is "{{level}}" with action "{{action}}": any update to those documents is rejected unless it makes them valid.';
const NOT_STRICT = 'fail the validator ("{{level}}", action "{{action}}").';
const READY = 'yet it runs with validationLevel "{{level}}" and validationAction "{{action}}".';
const NOT_CHECKED = 'The sample was not checked against the validator in-process: {{reason}}.';
const PARTIAL = 'The in-process check of the sample left out what it cannot evaluate: {{list}}.';
const SERVER_COUNT = 'On the server, {{failing}} of {{documents}} documents fail the whole validator.';
const NO_SERVER_COUNT = 'No server-side count either: {{serverReason}}.';

const messages = {
  missing: 'No validator: nothing stops a write from dropping a field or changing its type. Proposed from {{documents}} sampled documents: {{required}} required, {{fields}} field paths typed.',
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
  countsDisagree:
    "The in-process check finds {{failing}} of {{checked}} sampled documents failing the validator, but the server counts only {{serverFailing}} of {{documents}} documents failing it in the whole collection: the server and the advisor's reading of $jsonSchema (MongoDB's documented semantics) judge some values differently, or the documents changed between the sample and the count. The advice follows the server's count, since the server is what enforces the validator. Failing paths in the sample: {{paths}}.",
} as const;

type ValidatorReport = Report<typeof messages>;

function atLeast81(s: Snapshot): boolean {
  const [a = 0, b = 0] = s.server.versionArray;
  return s.server.flavor === 'mongodb' && (a > 8 || (a === 8 && b >= 1));
}

function collMod(c: CollectionSnapshot, fields: Record<string, string>): string {
  const parts = Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  return `db.runCommand({ collMod: ${JSON.stringify(c.name)}, ${parts.join(', ')} })`;
}

/** Lists the documents failing the stored validator by _id only (the user runs it; the report prints no values). */
function findViolators(c: CollectionSnapshot): string {
  return `${shellCollection(c.name)}.find({ $nor: [db.getCollectionInfos({ name: ${JSON.stringify(c.name)} })[0].options.validator] }, { _id: 1 })`;
}

function byPathText(byPath: Record<string, number>, max = 8): string {
  const entries = Object.entries(byPath).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return '';
  const shown = entries.slice(0, max).map(([p, n]) => `\`${p}\` (${formatNumber(n)})`);
  return `${shown.join(', ')}${entries.length > max ? `, and ${entries.length - max} more` : ''}`;
}

/** Why failing documents must be fixed before tightening a validator that is not both "strict" and rejecting. */
function nextStep(level: string, action: string): string {
  const warns = action === 'warn';
  if (level === 'moderate' && warns) return 'Today "warn" only logs invalid writes and "moderate" does not check updates to these documents at all; with "strict" and "error", any update to one of them is rejected unless it makes it valid.';
  if (level === 'moderate') return '"moderate" lets updates to these documents through without checking them; with "strict", any update to one of them is rejected unless it makes it valid.';
  return '"warn" only logs invalid writes; with "error", any update to one of these documents is rejected unless it makes it valid.';
}

/** How many documents fail the validator, and how that is known: the server's count, else the sample's, else unknown. */
type Count = { kind: 'server'; failing: number; documents: number } | { kind: 'sample'; failing: number; checked: number } | { kind: 'unknown' };

/** The server's count, when the snapshot has it with the total it is out of. */
function serverCount(d: ValidatorDryRun | undefined): { failing: number; documents: number } | null {
  return d && d.serverViolators !== null && d.serverDocuments !== null ? { failing: d.serverViolators, documents: d.serverDocuments } : null;
}

function countOf(d: ValidatorDryRun | undefined): Count {
  const server = serverCount(d);
  if (server) return { kind: 'server', ...server };
  if (d && d.checked > 0) return { kind: 'sample', failing: d.violations, checked: d.checked };
  return { kind: 'unknown' };
}

function analyzeExisting(snapshot: Snapshot, c: CollectionSnapshot, report: ValidatorReport): void {
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

  if (d) {
    const server = serverCount(d);
    const serverReason = d.serverReason ?? 'none is recorded in the snapshot';
    const list = [...d.unsupportedKeywords, ...d.undecided].join('; ');
    if (d.skippedReason) {
      if (server) report({ messageId: 'notChecked', severity: 'info', target, data: { reason: d.skippedReason, ...server }, evidence });
      else report({ messageId: 'notCheckedNoServerCount', severity: 'info', target, data: { reason: d.skippedReason, serverReason }, evidence });
    } else if (list) {
      if (server) report({ messageId: 'partialCheck', severity: 'info', target, data: { list, ...server }, evidence });
      else report({ messageId: 'partialCheckNoServerCount', severity: 'info', target, data: { list, serverReason }, evidence });
    }
    if (server && d.violations > server.failing) {
      // the sample is part of the collection: more failing sampled documents than failing documents overall is a disagreement
      report({
        messageId: 'countsDisagree',
        severity: 'info',
        target,
        data: { failing: d.violations, checked: d.checked, serverFailing: server.failing, documents: server.documents, paths },
        evidence,
      });
    }
  }

  const onSample = count.kind === 'server' ? '' : ' The count is from the sample: count the whole collection first.';
  if (level === 'off') {
    const clean = count.kind !== 'unknown' && count.failing === 0;
    const off = {
      severity: 'warn' as const,
      target,
      evidence,
      recommendation: {
        action: clean ? 'turn it on (strict)' : 'turn it on for new and valid documents (moderate)',
        reason: clean
          ? 'No document fails it, so strict validation rejects nothing that exists today.'
          : '"moderate" checks inserts and updates to valid documents, and lets updates to the documents that already fail through until you fix them.',
        commands: [collMod(c, { validationLevel: clean ? 'strict' : 'moderate' })],
      },
    };
    if (count.kind === 'server') report({ ...off, messageId: 'levelOff', data: { failing: count.failing, documents: count.documents } });
    else if (count.kind === 'sample') report({ ...off, messageId: 'levelOffInSample', data: { failing: count.failing, checked: count.checked } });
    else report({ ...off, messageId: 'levelOffUncounted' });
    return;
  }

  if (count.kind !== 'unknown' && count.failing > 0) {
    const strictError = level === 'strict' && (action === 'error' || action === 'errorAndLog');
    const inSample = paths ? ` Failing paths in the sample: ${paths}.` : '';
    const recommendation: Recommendation = strictError
      ? {
          action: 'moderate while you fix them',
          reason: `With validationLevel "strict", every update to one of these documents is rejected unless it makes the document valid. "moderate" keeps checking inserts and valid documents; switch back to "strict" once the count is 0.${onSample}${inSample}`,
          commands: [collMod(c, { validationLevel: 'moderate' }), findViolators(c)],
        }
      : {
          action: `fix the failing documents, then switch to ${[action === 'warn' ? 'validationAction "error"' : '', level === 'moderate' ? 'validationLevel "strict"' : ''].filter(Boolean).join(' and ')}`,
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
    return;
  }

  const warnOnly = action === 'warn';
  if (count.kind !== 'unknown' && (warnOnly || level === 'moderate')) {
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
        action: [warnOnly ? 'validationAction "error"' : '', level === 'moderate' ? 'validationLevel "strict"' : ''].filter(Boolean).join(', '),
        reason: `${warnOnly ? '"warn" only logs bad writes; "error" rejects them, and nothing that exists today would fail.' : '"moderate" skips updates to documents that are already invalid; there are none.'}${count.kind === 'server' ? '' : ' The count is from the sample only: count the whole collection before switching.'}${warnOnly && atLeast81(snapshot) ? ' On 8.1+, "errorAndLog" rejects like "error" and also logs each rejection, for teams that want the log (second command).' : ''}`,
        commands: count.kind === 'server' ? commands : [`${shellCollection(c.name)}.countDocuments({ $nor: [db.getCollectionInfos({ name: ${JSON.stringify(c.name)} })[0].options.validator] })`, ...commands],
      },
    };
    if (count.kind === 'server') report({ ...ready, messageId: 'readyForError', data: { level, action } });
    else report({ ...ready, messageId: 'readyForErrorInSample', data: { checked: count.checked, level, action } });
    return;
  }

  if (count.kind === 'unknown' && (warnOnly || level === 'moderate')) {
    report({
      messageId: 'violationsUnknown',
      severity: 'info',
      target,
      data: { level, action },
      evidence,
      recommendation: {
        action: 'count the failing documents',
        reason: 'Count before switching to validationAction "error" and validationLevel "strict": if the count is 0, nothing existing would be rejected.',
        commands: [`${shellCollection(c.name)}.countDocuments({ $nor: [db.getCollectionInfos({ name: ${JSON.stringify(c.name)} })[0].options.validator] })`],
      },
    });
  }
}

function analyzeMissing(snapshot: Snapshot, c: CollectionSnapshot, o: ValidatorOptions, report: ValidatorReport, note: NoteFn): void {
  const target = { db: c.db, collection: c.name };
  if (c.sample.size === 0) return;
  const p = proposeSchema(c, o);
  if (!p) {
    // Too few documents to propose from is the data's size, not a limit of the check: nothing to say.
    if (censusDocuments(c) === 0) {
      note(`no validator, and none proposed: the ${plural(c.sample.size, 'sampled document')} were too large to read whole and were measured on the server, so no field census exists`, target);
    }
    return;
  }
  const clean = p.gaps.length === 0;
  // What this sample showed besides the schema: said in the recommendation, so the finding stays one finding.
  const shown = [
    p.gaps.length ? ` Required but missing from some sampled documents: ${p.gaps.map((g) => `\`${g.path}\` (${formatNumber(g.missing)})`).join(', ')}.` : '',
    p.open.length ? ` Left open (more than ${formatNumber(o.maxProperties)} keys, a map): ${quoted(p.open)}.` : '',
    p.enums.length ? ` Enums read with distinct() when you run it: ${quoted(p.enums)}.` : '',
    c.sample.random ? '' : ' The sample is not random (first documents in natural order).',
  ].join('');
  const level = clean ? 'strict' : 'moderate';
  const action = clean ? 'error' : 'warn';
  const commands = [
    `var schema = ${shellLiteral(p.schema)}`,
    `${shellCollection(c.name)}.countDocuments({ $nor: [{ $jsonSchema: schema }] })`,
    `db.runCommand({ collMod: ${JSON.stringify(c.name)}, validator: { $jsonSchema: schema }, validationLevel: ${JSON.stringify(level)}, validationAction: ${JSON.stringify(action)} })`,
  ];
  if (clean && atLeast81(snapshot)) commands.push(`db.runCommand({ collMod: ${JSON.stringify(c.name)}, validationAction: "errorAndLog" })`);
  report({
    messageId: 'missing',
    severity: 'info',
    target,
    // `_id` is in every document, so at least it is required
    data: { documents: p.documents, required: quoted(p.required), fields: p.fields },
    evidence: { sampleSize: p.documents, required: p.required.length, fields: p.fields, gaps: p.gaps.length, open: p.open.length, enums: p.enums.length, sampleRandom: c.sample.random },
    recommendation: {
      action: clean ? 'add this validator (strict, error)' : 'add this validator (moderate, warn) and fix the gaps',
      reason: `${clean ? 'Every sampled document passes it. Run the count first: if it is 0, no existing document fails, and "error" rejects only new bad writes.' : 'Some sampled documents lack a required field: "warn" logs such writes instead of rejecting them, and "moderate" lets updates to documents that already fail through. Fix the gaps, then switch to strict and error.'}${shown} The field report measured validator cost within noise (YCSB, 10M documents).${clean && atLeast81(snapshot) ? ' On 8.1+, "errorAndLog" also logs each rejection (last command).' : ''}${snapshot.server.flavor === 'ferretdb' ? ' FerretDB 1.x does not implement validators: the confirmation checks whether this server keeps one.' : ''}`,
      commands,
    },
  });
}

export default defineRule({
  id: 'validator',
  needs: [validatorCollector],
  scope: 'collection',
  meta: {
    description: 'Schema validation: presence, level and action, a dry run of $jsonSchema over the sample, and a proposal where there is none',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/schema-validation/',
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
    describe: 'insert and update time on a scratch copy with vs without the validator (read back to prove the server kept it)',
    appliesTo: (f) => MEASURED_FINDINGS.has(f.messageId),
    run: confirmValidator,
  },
});
