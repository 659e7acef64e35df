import { codeSpan } from '../../src/lib/shell';
import { formatNumber } from '../../src/core/format';
import { defineRule, type OptionsOf, type OptionsSchema, sentence } from '../../src/core/rule';
import { say } from '../../src/confirm/verdict';
import type { CollectionSnapshot, DynamicKeyProfile, Recommendation } from '../../src/core/types';
import { CONFIRM_MESSAGES, confirmDynamicKeys } from './confirm';
import {
  attributeSteps,
  describeShapes,
  describeValueTypes,
  namedByDots,
  rewritableInPlace,
  valueFields,
  valuesAreDocuments,
} from './analyze';

export const dynamicKeysOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    errorKeysPerObject: {
      type: 'integer',
      minimum: 1,
      default: 250,
      description:
        'Keys per object (median) at which the finding is an error: a map that large is an unbounded array ' +
        "in disguise, and Compass's performance insights flag arrays of 250 elements or more.",
    },
  },
} as const satisfies OptionsSchema;

export type DynamicKeysOptions = OptionsOf<typeof dynamicKeysOptions>;

const ATTRIBUTE_PATTERN =
  'https://www.mongodb.com/docs/manual/data-modeling/design-patterns/group-data/attribute-pattern/';

/** "3 per object at the median", or, when some objects are empty, the median of the others and how many are empty. */
function perObject(
  m: { objects: number; medianKeys: number; emptyObjects?: number; medianKeysNonEmpty?: number },
  noun = 'object',
): string {
  if (!m.emptyObjects) return `${formatNumber(m.medianKeys)} per ${noun} at the median`;
  const holding = m.objects - m.emptyObjects;
  if (holding <= 0) return `every ${noun} empty`;
  return (
    `${formatNumber(m.medianKeysNonEmpty ?? 0)} per object at the median of the ${formatNumber(holding)} ` +
    `holding any, ${formatNumber(m.emptyObjects)} empty`
  );
}

/**
 * The sentences of the recommendations' reasons, each whole: a sentence that changes shape with the case is a variant
 * of its own, never fragments glued in code (docs/architecture.md).
 */
const REASONS = {
  documentPattern:
    'An array field such as `attrs: [{k, v}, …]` with one index on `attrs.k` and `attrs.v` serves a query ' +
    'on any key (`$elemMatch: {k: …, v: …}`) and gives schemas one shape to check; a child collection of one ' +
    "document per key, holding the parent's _id, suits keys that keep coming.",
  documentPatternLarge: sentence(
    'An array field such as `attrs: [{k, v}, …]` with one index on `attrs.k` and `attrs.v` serves a query ',
    'on any key (`$elemMatch: {k: …, v: …}`) and gives schemas one shape to check; a child collection of one ',
    "document per key, holding the parent's _id, suits keys that keep coming ({{keys}} keys per document at ",
    'the median already).',
  ),
  documentRewrite: 'Change the code that writes the documents first, then rewrite them on a copy.',
  mapPattern: sentence(
    'An array `[{k, v}, …]` with one index on `{{path}}.k` and `{{path}}.v` serves a query on any key ',
    '(`$elemMatch: {k: …, v: …}`) and gives schemas one shape to check; a child collection keyed by the ',
    "parent's _id and the key suits a map that keeps growing.",
  ),
  mapPatternLarge: sentence(
    'An array `[{k, v}, …]` with one index on `{{path}}.k` and `{{path}}.v` serves a query on any key ',
    '(`$elemMatch: {k: …, v: …}`) and gives schemas one shape to check; a child collection keyed by the ',
    "parent's _id and the key suits a map that keeps growing ({{keys}} keys per document at the median ",
    'already).',
  ),
  // values that are documents: the index is on k, then on the field of the values that queries filter on
  documentPatternDocuments: sentence(
    'The values under the keys are documents, where the attribute pattern pairs a key with a scalar: an array ',
    'field such as `attrs: [{k, v}, …]` with one index on `attrs.k` serves a query on any key, and one on ',
    '`attrs.k` then the field of the values your queries filter on (`attrs.v.<field>`; the values hold ',
    '{{fields}}) serves a key with that field (`$elemMatch: {k: …, "v.<field>": …}`). An index on `attrs.v` ',
    'itself would hold whole documents and match only an equal document, field order included. A child ',
    "collection of one document per key, holding the parent's _id, suits keys that keep coming.",
  ),
  documentPatternDocumentsLarge: sentence(
    'The values under the keys are documents, where the attribute pattern pairs a key with a scalar: an array ',
    'field such as `attrs: [{k, v}, …]` with one index on `attrs.k` serves a query on any key, and one on ',
    '`attrs.k` then the field of the values your queries filter on (`attrs.v.<field>`; the values hold ',
    '{{fields}}) serves a key with that field (`$elemMatch: {k: …, "v.<field>": …}`). An index on `attrs.v` ',
    'itself would hold whole documents and match only an equal document, field order included. A child ',
    "collection of one document per key, holding the parent's _id, suits keys that keep coming ({{keys}} keys ",
    'per document at the median already).',
  ),
  mapPatternDocuments: sentence(
    'The values under the keys are documents, where the attribute pattern pairs a key with a scalar: an array ',
    '`[{k, v}, …]` with one index on `{{path}}.k` serves a query on any key, and one on `{{path}}.k` then the ',
    'field of the values your queries filter on (`{{path}}.v.<field>`; the values hold {{fields}}) serves a key ',
    'with that field (`$elemMatch: {k: …, "v.<field>": …}`). An index on `{{path}}.v` itself would hold whole ',
    'documents and match only an equal document, field order included. A child collection keyed by the ',
    "parent's _id and the key suits a map that keeps growing.",
  ),
  mapPatternDocumentsLarge: sentence(
    'The values under the keys are documents, where the attribute pattern pairs a key with a scalar: an array ',
    '`[{k, v}, …]` with one index on `{{path}}.k` serves a query on any key, and one on `{{path}}.k` then the ',
    'field of the values your queries filter on (`{{path}}.v.<field>`; the values hold {{fields}}) serves a key ',
    'with that field (`$elemMatch: {k: …, "v.<field>": …}`). An index on `{{path}}.v` itself would hold whole ',
    'documents and match only an equal document, field order included. A child collection keyed by the ',
    "parent's _id and the key suits a map that keeps growing ({{keys}} keys per document at the median already).",
  ),
  // indexes on single keys of the map (left out of the snapshot, their names hold keys): the pattern's own case
  oneIndexOnKey:
    "1 index exists today on one of its keys: the pattern's one index replaces it and serves the keys not " +
    'indexed yet.',
  indexesOnKeys: sentence(
    "{{indexes}} indexes exist today, each on one of its keys: the pattern's one index replaces them and ",
    'serves the keys not indexed yet.',
  ),
  rewriteInPlace: 'The commands rewrite the documents in place: change the code that writes the map first.',
  rewriteNested: 'The map sits in an array or under another map: rewrite it with the code that writes it.',
  rewriteUnnameable:
    'Its name holds a dot or starts with `$`, which no index can name: move it to a plain field with the ' +
    'code that writes it.',
} as const;

/** The sentence on indexes that exist today on single keys of the map; none without such indexes. */
function indexesOnKeysSentence(m: DynamicKeyProfile): string[] {
  if (!m.indexesOnKeys) return [];
  if (m.indexesOnKeys === 1) return [say(REASONS, 'oneIndexOnKey')];
  return [say(REASONS, 'indexesOnKeys', { indexes: formatNumber(m.indexesOnKeys) })];
}

/** The attribute pattern's sentence: by where the map is, whether its values are documents, and its size. */
function patternSentence(c: CollectionSnapshot, m: DynamicKeyProfile, large: boolean): string {
  const keys = formatNumber(m.medianKeys);
  const path = m.path;
  if (valuesAreDocuments(m)) {
    const names = valueFields(c, path);
    const fields = names.length ? names.map((n) => `${codeSpan(n)}`).join(', ') : 'no field in the sample';
    if (path === '')
      return large
        ? say(REASONS, 'documentPatternDocumentsLarge', { fields, keys })
        : say(REASONS, 'documentPatternDocuments', { fields });
    return large
      ? say(REASONS, 'mapPatternDocumentsLarge', { path, fields, keys })
      : say(REASONS, 'mapPatternDocuments', { path, fields });
  }
  if (path === '') return large ? say(REASONS, 'documentPatternLarge', { keys }) : say(REASONS, 'documentPattern');
  return large ? say(REASONS, 'mapPatternLarge', { path, keys }) : say(REASONS, 'mapPattern', { path });
}

function recommendationFor(c: CollectionSnapshot, m: DynamicKeyProfile, large: boolean): Recommendation {
  const pattern = patternSentence(c, m, large);
  if (m.path === '') {
    return {
      action: 'move the keys into one array of {k, v} (the attribute pattern), or into a child collection',
      reason: [pattern, say(REASONS, 'documentRewrite'), ...indexesOnKeysSentence(m)].join(' '),
    };
  }
  const path = m.path;
  const inPlace = rewritableInPlace(c, path);
  const rewrite = inPlace
    ? say(REASONS, 'rewriteInPlace')
    : namedByDots(path)
      ? say(REASONS, 'rewriteNested')
      : say(REASONS, 'rewriteUnnameable');
  return {
    action: 'store it as an array of {k, v} (the attribute pattern), or in a child collection',
    reason: [pattern, ...indexesOnKeysSentence(m), rewrite].join(' '),
    ...(inPlace ? attributeSteps(c.db, c.name, path, valuesAreDocuments(m)) : {}),
  };
}

export default defineRule({
  id: 'dynamic-keys',
  scope: 'collection',
  meta: {
    description: 'Objects used as maps: keys that are data (ids, SKUs, dates, names) instead of field names',
    docsUrl: ATTRIBUTE_PATTERN,
    severity: 'warn',
    messages: {
      map: sentence(
        '`{{path}}` is an object used as a map: {{distinct}} distinct keys in {{objects}} sampled objects ',
        '({{perObject}}; {{shapes}}), holding {{values}}. Each key is a field of its own: no index serves a ',
        'query on one key short of an index per key, and every key becomes a property of any schema or ',
        'validator written for the collection.',
      ),
      documentMap: sentence(
        'The documents themselves are used as maps: {{distinct}} distinct top-level keys besides `_id` in ',
        '{{objects}} sampled documents ({{perObject}}; {{shapes}}), holding {{values}}. Each key is a field ',
        'of its own: no index serves a query on one key short of an index per key, and every key becomes a ',
        'property of any schema or validator written for the collection.',
      ),
    },
    options: dynamicKeysOptions,
    requires: { capabilities: [] },
  },
  analyze({ collection: c, options, report }) {
    if (!c) return;
    for (const m of c.sample.dynamicKeys) {
      const large = m.medianKeys >= options.errorKeysPerObject;
      const whole = m.path === '';
      const recommendation = recommendationFor(c, m, large);
      const shared = {
        distinct: formatNumber(m.distinctKeys),
        objects: formatNumber(m.objects),
        perObject: perObject(m, whole ? 'document' : 'object'),
        shapes: `keys shaped as ${describeShapes(m.keyShapes)}`,
        values: `values of type ${describeValueTypes(m.valueTypes)}`,
      };
      report({
        ...(whole
          ? { messageId: 'documentMap' as const, target: { db: c.db, collection: c.name }, data: shared }
          : {
              messageId: 'map' as const,
              target: { db: c.db, collection: c.name, path: m.path },
              data: { path: m.path, ...shared },
            }),
        severity: large ? 'error' : 'warn',
        evidence: {
          objects: m.objects,
          distinctKeys: m.distinctKeys,
          medianKeys: m.medianKeys,
          ...(m.emptyObjects ? { emptyObjects: m.emptyObjects, medianKeysNonEmpty: m.medianKeysNonEmpty ?? 0 } : {}),
          sharedKeyShare: m.sharedKeyShare,
          ...(m.indexesOnKeys ? { indexesOnKeys: m.indexesOnKeys } : {}),
          keyShapes: describeShapes(m.keyShapes),
          valueTypes: describeValueTypes(m.valueTypes),
          sampleSize: c.sample.size,
        },
        recommendation,
      });
    }
  },
  confirm: {
    describe:
      'the same copies stored twice on scratch, the map as it is and as an array of {k, v} with one index; ' +
      'finds by one key timed in alternation, after checking both shapes find the same documents',
    // documents that are maps themselves have no single path to rewrite: no experiment is planned for them
    messages: CONFIRM_MESSAGES,
    appliesTo: (f) => f.messageId === 'map',
    run: confirmDynamicKeys,
  },
});
