import { formatNumber } from '../../src/core/format';
import { defineRule, type NoteFn, type Report } from '../../src/core/rule';
import type { CollectionSnapshot, Recommendation, Snapshot } from '../../src/core/types';
import { shellCollection } from '../../src/lib/shell';
import { confirmValidator, MEASURED_FINDINGS } from './confirm';
import { type ValidatorOptions, censusDocuments, proposeSchema, shellLiteral } from './propose';

export const validatorOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
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
};

const plural = (n: number, one: string, many = `${one}s`): string => `${formatNumber(n)} ${n === 1 ? one : many}`;
const quoted = (paths: readonly string[]): string => paths.map((p) => `\`${p}\``).join(', ');

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

interface Count {
  /** Known number of failing documents (server) or failing sampled documents; null when unknown. */
  failing: number | null;
  text: string;
  /** true when the count covers the whole collection (server), false for the sample. */
  whole: boolean;
}

function countOf(c: CollectionSnapshot): Count {
  const d = c.validatorDryRun;
  if (d && d.serverViolators !== null) {
    const docs = c.stats?.count;
    return { failing: d.serverViolators, whole: true, text: `${plural(d.serverViolators, 'document')}${docs !== undefined ? ` of ${formatNumber(docs)}` : ''} (counted on the server)` };
  }
  if (d && d.checked > 0) return { failing: d.violations, whole: false, text: `${formatNumber(d.violations)} of ${plural(d.checked, 'sampled document')}` };
  return { failing: null, whole: false, text: 'an unknown number of documents' };
}

function analyzeExisting(snapshot: Snapshot, c: CollectionSnapshot, report: Report): void {
  const v = c.validator;
  const level = v.validationLevel ?? 'strict';
  const action = v.validationAction ?? 'error';
  const d = c.validatorDryRun;
  const target = { db: c.db, collection: c.name };
  const count = countOf(c);
  const docs = c.stats?.count;
  const serverPart = !d
    ? ''
    : d.serverViolators !== null
      ? ` On the server, ${plural(d.serverViolators, 'document')}${docs !== undefined ? ` of ${formatNumber(docs)}` : ''} fail the whole validator.`
      : d.serverReason
        ? ` No server-side count either: ${d.serverReason}.`
        : '';
  const evidence = {
    validationLevel: level,
    validationAction: action,
    jsonSchema: v.jsonSchema !== undefined,
    queryOperators: (v.queryOperators ?? []).join(', ') || null,
    sampleChecked: d?.checked ?? null,
    sampleViolations: d?.violations ?? null,
    serverViolators: d?.serverViolators ?? null,
    unsupported: d ? d.unsupportedKeywords.length : null,
  };
  const paths = d ? byPathText(d.byPath) : '';
  const pathsSentence = paths ? ` Failing paths in the sample: ${paths}.` : '';

  if (d?.skippedReason) {
    report({ messageId: 'notChecked', severity: 'info', target, data: { reason: d.skippedReason, server: serverPart }, evidence });
  } else if (d && (d.unsupportedKeywords.length || d.undecided.length)) {
    report({ messageId: 'partialCheck', severity: 'info', target, data: { list: [...d.unsupportedKeywords, ...d.undecided].join('; '), server: serverPart }, evidence });
  }

  if (d && d.serverViolators !== null && d.violations > d.serverViolators) {
    // the sample is part of the collection: more failing sampled documents than failing documents overall is a disagreement
    report({
      messageId: 'countsDisagree',
      severity: 'info',
      target,
      data: { sample: `${formatNumber(d.violations)} of ${plural(d.checked, 'sampled document')}`, server: plural(d.serverViolators, 'document'), paths: pathsSentence },
      evidence,
    });
  }

  if (level === 'off') {
    const clean = count.failing === 0;
    report({
      messageId: 'levelOff',
      severity: 'warn',
      target,
      data: { count: count.text },
      evidence,
      recommendation: {
        action: clean ? 'turn it on (strict)' : 'turn it on for new and valid documents (moderate)',
        reason: clean
          ? 'No document fails it, so strict validation rejects nothing that exists today.'
          : '"moderate" checks inserts and updates to valid documents, and lets updates to the documents that already fail through until you fix them.',
        commands: [collMod(c, { validationLevel: clean ? 'strict' : 'moderate' })],
      },
    });
    return;
  }

  const failing = count.failing;
  if (failing !== null && failing > 0) {
    const strictError = level === 'strict' && (action === 'error' || action === 'errorAndLog');
    const rec: Recommendation = strictError
      ? {
          action: 'moderate while you fix them',
          reason: `With validationLevel "strict", every update to one of these documents is rejected unless it makes the document valid. "moderate" keeps checking inserts and valid documents; switch back to "strict" once the count is 0.${count.whole ? '' : ' The count is from the sample: count the whole collection first.'}`,
          commands: [collMod(c, { validationLevel: 'moderate' }), findViolators(c)],
        }
      : {
          action: `fix the failing documents, then switch to ${[action === 'warn' ? 'validationAction "error"' : '', level === 'moderate' ? 'validationLevel "strict"' : ''].filter(Boolean).join(' and ')}`,
          reason: `${nextStep(level, action)}${count.whole ? '' : ' The count is from the sample: count the whole collection first.'} List them by _id:`,
          commands: [findViolators(c)],
        };
    report({
      messageId: strictError ? 'violationsStrict' : 'violations',
      severity: strictError ? 'warn' : 'info',
      target,
      data: { count: count.text, level, action, paths: pathsSentence },
      evidence,
      recommendation: rec,
    });
    return;
  }

  const warnOnly = action === 'warn';
  if (failing === 0 && (warnOnly || level === 'moderate')) {
    const changes: Record<string, string> = {};
    if (warnOnly) changes.validationAction = 'error';
    if (level === 'moderate') changes.validationLevel = 'strict';
    const commands = [collMod(c, changes)];
    if (warnOnly && atLeast81(snapshot)) commands.push(collMod(c, { ...changes, validationAction: 'errorAndLog' }));
    report({
      messageId: 'readyForError',
      severity: 'info',
      target,
      data: {
        count: count.whole ? 'counted on the server' : `checked on ${plural(d?.checked ?? 0, 'sampled document')} only`,
        current: [warnOnly ? 'validationAction "warn"' : '', level === 'moderate' ? 'validationLevel "moderate"' : ''].filter(Boolean).join(' and '),
      },
      evidence,
      recommendation: {
        action: [warnOnly ? 'validationAction "error"' : '', level === 'moderate' ? 'validationLevel "strict"' : ''].filter(Boolean).join(', '),
        reason: `${warnOnly ? '"warn" only logs bad writes; "error" rejects them, and nothing that exists today would fail.' : '"moderate" skips updates to documents that are already invalid; there are none.'}${count.whole ? '' : ' The count is from the sample only: count the whole collection before switching.'}${warnOnly && atLeast81(snapshot) ? ' On 8.1+, "errorAndLog" rejects like "error" and also logs each rejection, for teams that want the log (second command).' : ''}`,
        commands: count.whole ? commands : [`${shellCollection(c.name)}.countDocuments({ $nor: [db.getCollectionInfos({ name: ${JSON.stringify(c.name)} })[0].options.validator] })`, ...commands],
      },
    });
    return;
  }

  if (failing === null && (warnOnly || level === 'moderate')) {
    report({
      messageId: 'violationsUnknown',
      severity: 'info',
      target,
      data: { current: `${level}/${action}` },
      evidence,
      recommendation: {
        action: 'count the failing documents',
        reason: 'Count before switching to validationAction "error" and validationLevel "strict": if the count is 0, nothing existing would be rejected.',
        commands: [`${shellCollection(c.name)}.countDocuments({ $nor: [db.getCollectionInfos({ name: ${JSON.stringify(c.name)} })[0].options.validator] })`],
      },
    });
  }
}

function analyzeMissing(snapshot: Snapshot, c: CollectionSnapshot, o: ValidatorOptions, report: Report, note: NoteFn): void {
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
  const extra: string[] = [];
  if (p.gaps.length) extra.push(`required but missing from some sampled documents: ${p.gaps.map((g) => `\`${g.path}\` (${formatNumber(g.missing)})`).join(', ')}`);
  if (p.open.length) extra.push(`left open (more than ${formatNumber(o.maxProperties)} keys, a map): ${quoted(p.open)}`);
  if (p.enums.length) extra.push(`enums read with distinct() when you run it: ${quoted(p.enums)}`);
  if (!c.sample.random) extra.push('the sample is not random (first documents in natural order)');
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
    data: {
      documents: plural(p.documents, 'sampled document'),
      required: p.required.length ? quoted(p.required) : 'no field',
      fields: formatNumber(p.fields),
      extra: extra.length ? `; ${extra.join('; ')}` : '',
    },
    evidence: { sampleSize: p.documents, required: p.required.length, fields: p.fields, gaps: p.gaps.length, open: p.open.length, enums: p.enums.length, sampleRandom: c.sample.random },
    recommendation: {
      action: clean ? 'add this validator (strict, error)' : 'add this validator (moderate, warn) and fix the gaps',
      reason: `${clean ? 'Every sampled document passes it. Run the count first: if it is 0, no existing document fails, and "error" rejects only new bad writes.' : 'Some sampled documents lack a required field: "warn" logs such writes instead of rejecting them, and "moderate" lets updates to documents that already fail through. Fix the gaps, then switch to strict and error.'} The field report measured validator cost within noise (YCSB, 10M documents).${clean && atLeast81(snapshot) ? ' On 8.1+, "errorAndLog" also logs each rejection (last command).' : ''}${snapshot.server.flavor === 'ferretdb' ? ' FerretDB 1.x does not implement validators: the confirmation checks whether this server keeps one.' : ''}`,
      commands,
    },
  });
}

export default defineRule<ValidatorOptions>({
  id: 'validator',
  needs: ['validatorCensus'],
  scope: 'collection',
  meta: {
    description: 'Schema validation: presence, level and action, a dry run of $jsonSchema over the sample, and a proposal where there is none',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/schema-validation/',
    severity: 'info',
    messages: {
      missing: 'No validator: nothing stops a write from dropping a field or changing its type. Proposed from {{documents}}: {{required}} required, {{fields}} field paths typed{{extra}}.',
      levelOff: 'The validator is stored but validationLevel is "off": it checks no write. {{count}} fail it.',
      violationsStrict:
        '{{count}} fail the validator, which is "{{level}}" with action "{{action}}": any update to those documents is rejected unless it makes them valid.{{paths}}',
      violations: '{{count}} fail the validator ("{{level}}", action "{{action}}").{{paths}}',
      readyForError: 'No document fails the validator ({{count}}), yet it runs with {{current}}.',
      violationsUnknown: 'The validator runs as {{current}}, and how many documents fail it is unknown.',
      notChecked: 'The sample was not checked against the validator in-process: {{reason}}.{{server}}',
      partialCheck: 'The in-process check of the sample left out what it cannot evaluate: {{list}}.{{server}}',
      countsDisagree:
        "The in-process check finds {{sample}} failing the validator, but the server counts only {{server}} failing it in the whole collection: the server and the advisor's reading of $jsonSchema (MongoDB's documented semantics) judge some values differently, or the documents changed between the sample and the count. The advice follows the server's count, since the server is what enforces the validator.{{paths}}",
    },
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
