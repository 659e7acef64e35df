import { formatNumber } from '../../src/core/format';
import { defineRule, type OptionsOf, type OptionsSchema, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, Recommendation, Severity, Snapshot } from '../../src/core/types';
import { dottedPath, fieldExpr, fieldFilter, type FieldTest, setFieldExpr } from '../../src/lib/doc-path';
import { codeSpan, shellCollection, shellString, shellValue } from '../../src/lib/shell';
import { versionAtLeast } from '../../src/lib/version';
import { CONFIRM_MESSAGES, confirmMixedTypes } from './confirm';
import {
  convertibleInPlace,
  convertTarget,
  describeMix,
  type Family,
  idLike,
  pairKind,
  type TypeMix,
  typeMix,
} from './analyze';

export const mixedTypesOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    minorShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.01,
      description:
        'Share of the values below which the other types are strays: the finding drops one severity level ' +
        '(error to warn, warn to info). 0.01, our choice: under 1 value in 100, few queries meet one, and ' +
        'the fix is a handful of documents.',
    },
    numberWidths: {
      type: 'boolean',
      default: false,
      description:
        'Also report fields holding numbers of several widths (int, long, double, decimal), as info. Off by ' +
        "default: MongoDB compares numbers by value across widths (the manual's Comparison/Sort Order), so " +
        'no query misses one.',
    },
  },
} as const satisfies OptionsSchema;

export type MixedTypesOptions = OptionsOf<typeof mixedTypesOptions>;

const lower = (s: Severity): Severity => (s === 'error' ? 'warn' : 'info');
const COMPARISON = 'https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/';

/** `$type` alias of a family: the family itself ("number" stands for every width). */
const typeAlias = (f: Family): string => f.family;

/** Blank strings ('' or whitespace) as a `$regex` the shell reads: it matches strings only. */
const BLANK = '/^\\s*$/';

/**
 * How the commands name the field: by its dotted path; with `$getField`/`$setField` (a key holding a dot or starting
 * with `$`, MongoDB 5.0's "Field Names with Periods and Dollar Signs"); or not at all: in an array or under a map
 * key (`no`), or such a key on a server before 5.0 (`old`).
 */
type Naming = 'dotted' | 'getField' | 'no' | 'old';

function namingOf(snapshot: Snapshot, c: CollectionSnapshot, path: string): Naming {
  if (!convertibleInPlace(c, path)) return 'no';
  if (dottedPath(path) !== null) return 'dotted';
  return versionAtLeast(snapshot.server.versionArray, 5, 0) ? 'getField' : 'old';
}

/** The last sentence of a recommendation's reason where no command can rewrite the field in place. */
const NOT_IN_PLACE: Record<Naming, string> = {
  dotted: '',
  getField: '',
  no: ' The field sits in an array or under a map key: fix it in the code that rewrites those documents.',
  old:
    ' Its name holds a dot or starts with `$`, which only `$getField` and `$setField` (MongoDB 5.0) can name, ' +
    'and this server is older: fix it in the code that rewrites those documents.',
};

const BLANKS_NOTE = 'the blank strings: no value, so no field';

/**
 * Where the cleanup removes blank strings: what the validator rule's proposal does about it (it does not assume the
 * cleanup; src/lib/blank-strings.ts is the one test both rules apply), so the two pieces of advice agree.
 */
const blanksAndValidator = (path: string): string =>
  ` The validator rule's proposal does not assume this cleanup: it leaves ${codeSpan(path)} optional and accepts the ` +
  `blank strings that exist, so it rejects no document before or after the cleanup; drop \`string\` from its type ` +
  `once the blanks are gone.`;
const CONVERT_NOTE = 'on a copy first; values that do not convert stay as they are';

/** `updateMany(filter, [{ $replaceWith }])` setting the field at a path no dotted path names (`$$REMOVE` unsets it). */
function replaceCommand(coll: string, path: string, test: FieldTest, value: unknown, comment: string): string {
  const pipeline = `[{ $replaceWith: ${shellValue(setFieldExpr(path, value))} }]`;
  return `${coll}.updateMany(${shellValue(fieldFilter(path, test))}, ${pipeline})  // ${comment}`;
}

/** `countDocuments(filter)` for the field at a path no dotted path names. */
function countCommand(coll: string, path: string, test: FieldTest, comment: string): string {
  return `${coll}.countDocuments(${shellValue(fieldFilter(path, test))})  // ${comment}`;
}

/** Blank strings standing for "no value" beside one other type: leave the field out (or null) instead. */
function recommendNoBlanks(
  db: string,
  collection: string,
  path: string,
  other: Family,
  naming: Naming,
): Recommendation {
  const coll = shellCollection(db, collection);
  const p = shellString(path);
  const blank = `{ ${p}: { $regex: ${BLANK} } }`;
  const steps: Steps =
    naming === 'dotted'
      ? {
          counts: [`${coll}.countDocuments(${blank})  // the blank strings`],
          rewrites: [`${coll}.updateMany(${blank}, { $unset: { ${p}: "" } })  // on a copy first`],
        }
      : naming === 'getField'
        ? {
            counts: [countCommand(coll, path, { blank: true }, 'the blank strings')],
            rewrites: [replaceCommand(coll, path, { blank: true }, '$$REMOVE', 'on a copy first')],
          }
        : { counts: [], rewrites: [] };
  return {
    action: 'store "no value" as a missing field, not a blank string',
    reason:
      `The blank strings stand in for a missing ${other.family}: leave the field out in the code that ` +
      `writes it, then remove the blanks; a validator typing ${codeSpan(path)} as ${other.family} keeps it that ` +
      `way.` +
      blanksAndValidator(path) +
      NOT_IN_PLACE[naming],
    ...stepsOf(
      steps,
      'once the code writing this field leaves it out instead of writing a blank string (deploy that first), after ' +
        'trying it on a copy',
    ),
  };
}

/** A recommendation's steps: counts now, the rewrites of documents later (once the code writes one type). */
interface Steps {
  counts: string[];
  rewrites: string[];
}

/** The commands of `recommend` for a field a dotted path names. */
function dottedCommands(coll: string, path: string, minors: Family[], to: string | null, blanks: number): Steps {
  const p = shellString(path);
  const byType = (m: Family): string => `{ ${p}: { $type: ${shellString(typeAlias(m))} } }`;
  const blank = `{ ${p}: { $regex: ${BLANK} } }`;
  const value = shellString(`$${path}`);
  const set = `{ $set: { ${p}: { $convert: { input: ${value}, to: ${shellString(to ?? '')}, onError: ${value} } } } }`;
  return {
    counts: minors.map((m) => `${coll}.countDocuments(${byType(m)})  // the ${m.family} values`),
    rewrites: [
      // blank strings first: $convert cannot read them as a number and would leave them as they are
      ...(blanks > 0 ? [`${coll}.updateMany(${blank}, { $unset: { ${p}: "" } })  // ${BLANKS_NOTE}`] : []),
      ...(to ? minors.map((m) => `${coll}.updateMany(${byType(m)}, [${set}])  // ${CONVERT_NOTE}`) : []),
    ],
  };
}

/** The commands of `recommend` for a field whose key holds a dot or starts with `$`: `$getField` and `$setField`. */
function getFieldCommands(coll: string, path: string, minors: Family[], to: string | null, blanks: number): Steps {
  const value = fieldExpr(path);
  const convert = { $convert: { input: value, to, onError: value } };
  return {
    counts: minors.map((m) => countCommand(coll, path, { type: typeAlias(m) }, `the ${m.family} values`)),
    rewrites: [
      ...(blanks > 0 ? [replaceCommand(coll, path, { blank: true }, '$$REMOVE', BLANKS_NOTE)] : []),
      ...(to ? minors.map((m) => replaceCommand(coll, path, { type: typeAlias(m) }, convert, CONVERT_NOTE)) : []),
    ],
  };
}

/**
 * The counts now, the rewrites as a later step: rewriting documents before the code stops writing the other type
 * leaves the application writing it again (and, while both run, reading a type it does not expect).
 */
function stepsOf(steps: Steps, when: string): Pick<Recommendation, 'commands' | 'later'> {
  return {
    ...(steps.counts.length ? { commands: steps.counts } : {}),
    ...(steps.rewrites.length ? { later: { when, commands: steps.rewrites } } : {}),
  };
}

/** What `$convert` does with a value it cannot convert, and why its target is not the numbers' width; '' without. */
function convertNote(to: string | null, common: string | null): string {
  if (!to) return '';
  if (to === common) return ` (\`$convert\` to ${to} keeps a value it cannot convert)`;
  return (
    ` (\`$convert\` to ${to} keeps a value it cannot convert; ${to}, not ${common ?? ''}: some strings hold a ` +
    `fraction, which ${common ?? ''} cannot)`
  );
}

/**
 * `fractionText`: some of the strings converted are a fraction's text ("12.5"), which `$convert` to int or long
 * refuses (onError would leave them strings): the target is then double, whatever the numbers' common width.
 */
function recommend(
  db: string,
  collection: string,
  path: string,
  major: Family,
  minors: Family[],
  naming: Naming,
  blanks = 0,
  fractionText = false,
): Recommendation {
  const common = convertTarget(major);
  const to = fractionText && (common === 'int' || common === 'long') ? 'double' : common;
  const coll = shellCollection(db, collection);
  const steps =
    naming === 'dotted'
      ? dottedCommands(coll, path, minors, to, blanks)
      : naming === 'getField'
        ? getFieldCommands(coll, path, minors, to, blanks)
        : { counts: [], rewrites: [] };
  return {
    action: `store one type: convert the ${minors.map((m) => m.family).join(' and ')} values to ${major.family}`,
    reason:
      `Fix the code that writes the other types first, then convert the documents${convertNote(to, common)}; ` +
      `a validator with one \`bsonType\` for ${codeSpan(path)} keeps it that way.` +
      (blanks > 0 ? blanksAndValidator(path) : '') +
      NOT_IN_PLACE[naming],
    ...stepsOf(
      steps,
      `once the code writing this field writes only ${major.family} (deploy that first), after trying it on a copy`,
    ),
  };
}

const messages = {
  mixed: sentence(
    '`{{path}}` holds {{families}} types across {{values}} sampled values: {{mix}}. An equality query ',
    'matches one type only; range queries and sorts split the values by type (BSON order: numbers, then ',
    'strings, objects, arrays, binary, ObjectIds, booleans, dates); an index on it holds keys of every ',
    'type.',
  ),
  blankStrings: sentence(
    '`{{path}}` holds {{other}} values and blank strings across {{values}} sampled values: {{mix}}. A ',
    'blank string stands for "no value" here, but it is a value: `$exists` and `$ne: null` match it, ',
    'sorts and range queries split it from the {{other}} values, and an index on the field holds both ',
    'types.',
  ),
  mixedIds: sentence(
    '`{{path}}` holds identifiers of two types across {{values}} sampled values: {{mix}}. A value of ',
    'type {{major}} never equals its {{minor}} form: queries and $lookup joins by this field silently ',
    'miss the {{minor}} ones, and an index on it holds both.',
  ),
  mixedArray: sentence(
    '`{{path}}` is an array in some documents and not in others, across {{values}} sampled values: ',
    '{{mix}}. A query on it matches both (an array matches by its elements), but sorts, $size and array ',
    'updates ($push, $addToSet) treat them differently.',
  ),
  numberWidths: sentence(
    '`{{path}}` holds numbers of several widths across {{values}} sampled values: {{mix}}. Queries ',
    'compare them by value and match across widths, but a double holds an integer exactly only up to ',
    '2^53 and a decimal and a double of the same written value can differ.',
  ),
} as const;

type MixedReport = Report<typeof messages>;

/** One field of the census, as the steps of `analyze` read it. */
interface FieldAt {
  snapshot: Snapshot;
  c: CollectionSnapshot;
  path: string;
  mix: TypeMix;
  options: MixedTypesOptions;
  report: MixedReport;
}

/** What every finding on a field shows: the counts and each family's share. */
function evidenceOf(mix: TypeMix): Record<string, string | number> {
  return {
    values: mix.values,
    nulls: mix.nulls,
    types: describeMix(mix, true),
    ...Object.fromEntries(mix.families.map((f) => [`share.${f.family}`, Math.round(f.share * 1000) / 1000])),
  };
}

const targetOf = ({ c, path }: FieldAt) => ({ db: c.db, collection: c.name, path });

/** One family: numbers of several widths, reported (info) only with `numberWidths`. */
function reportNumberWidths(at: FieldAt): void {
  const { mix, options, path, report } = at;
  const major = mix.families[0] as Family;
  if (!options.numberWidths || major.family !== 'number' || Object.keys(major.types).length <= 1) return;
  report({
    messageId: 'numberWidths',
    severity: 'info',
    target: targetOf(at),
    data: { path, values: formatNumber(mix.values + mix.nulls), mix: describeMix(mix, true) },
    evidence: evidenceOf(mix),
  });
}

/**
 * Strings that are all blank, or all a number's text beside numbers: the strings are the stray type, whatever their
 * share. False when the field is not such a pair.
 */
function reportStrayStrings(at: FieldAt): boolean {
  const { snapshot, c, path, mix, options, report } = at;
  const [major, second] = mix.families as [Family, Family];
  const strings = mix.strings;
  if (!strings || mix.families.length !== 2) return false;
  const numeric = strings.shape === 'numeric' && [major.family, second.family].includes('number');
  if (strings.shape !== 'blank' && !numeric) return false;
  const str = major.family === 'string' ? major : second;
  const other = major.family === 'string' ? second : major;
  const severity = str.share < options.minorShare ? 'info' : 'warn';
  const naming = namingOf(snapshot, c, path);
  const values = formatNumber(mix.values + mix.nulls);
  const evidence = evidenceOf(mix);
  if (strings.shape === 'blank') {
    report({
      messageId: 'blankStrings',
      severity,
      target: targetOf(at),
      data: { path, other: other.family, values, mix: describeMix(mix) },
      evidence: { ...evidence, blankStrings: strings.blank },
      recommendation: recommendNoBlanks(c.db, c.name, path, other, naming),
    });
    return true;
  }
  const fractionText = strings.integer !== undefined && strings.integer < strings.numeric;
  report({
    messageId: 'mixed',
    severity,
    target: targetOf(at),
    data: { path, families: 2, values, mix: describeMix(mix) },
    evidence: { ...evidence, numericStrings: strings.numeric, blankStrings: strings.blank },
    recommendation: recommend(c.db, c.name, path, other, [str], naming, strings.blank, fractionText),
  });
  return true;
}

/** Two families or more: ids written two ways, an array beside scalars, or any other mix. */
function reportMix(at: FieldAt): void {
  const { snapshot, c, path, mix, options, report } = at;
  const [major, ...minors] = mix.families as [Family, ...Family[]];
  const second = minors[0] as Family;
  const kind = pairKind(major.family, second.family);
  const base: Severity = kind === 'ids' ? (idLike(path) ? 'error' : 'warn') : kind === 'array' ? 'info' : 'warn';
  const severity = 1 - major.share < options.minorShare && base !== 'info' ? lower(base) : base;
  const found = {
    severity,
    target: targetOf(at),
    evidence: evidenceOf(mix),
    recommendation: recommend(c.db, c.name, path, major, minors, namingOf(snapshot, c, path)),
  };
  const values = formatNumber(mix.values + mix.nulls);
  if (kind === 'ids' && minors.length === 1) {
    const data = { path, values, mix: describeMix(mix), major: major.family, minor: second.family };
    report({ ...found, messageId: 'mixedIds', data });
  } else if (kind === 'array' && minors.length === 1) {
    report({ ...found, messageId: 'mixedArray', data: { path, values, mix: describeMix(mix) } });
  } else {
    report({
      ...found,
      messageId: 'mixed',
      data: { path, families: mix.families.length, values, mix: describeMix(mix) },
    });
  }
}

export default defineRule({
  id: 'mixed-types',
  scope: 'collection',
  meta: {
    description:
      'Fields holding values of several types (beyond null): queries match one type, sorts and ranges split by type',
    docsUrl: COMPARISON,
    severity: 'warn',
    messages,
    options: mixedTypesOptions,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection: c, options, report }) {
    if (!c) return;
    for (const [path, field] of Object.entries(c.sample.fields)) {
      // the document's _id: the id-pattern rule reports its mixed types
      if (path === '_id') continue;
      const mix = typeMix(field);
      if (!mix.families[0]) continue;
      const at: FieldAt = { snapshot, c, path, mix, options, report };
      if (mix.families.length === 1) reportNumberWidths(at);
      else if (!reportStrayStrings(at)) reportMix(at);
    }
  },
  confirm: {
    describe:
      'documents holding the stray type copied to scratch: the same values asked for as the main type (and, ' +
      'as a control, as stored); counts of what each query matched',
    messages: CONFIRM_MESSAGES,
    // ids written two ways, and numbers written as text: one value has one form in the other type
    appliesTo: (f) =>
      f.messageId === 'mixedIds' || (f.messageId === 'mixed' && Number(f.evidence.numericStrings ?? 0) > 0),
    run: confirmMixedTypes,
  },
});
