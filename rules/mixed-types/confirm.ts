import { sentence } from '../../src/core/rule';
import type { ConfirmContext } from '../../src/confirm/context';
import { withoutId } from '../../src/confirm/trials';
import { formatNumber } from '../../src/core/format';
import type { CollectionSnapshot, Confirmation, Finding, Verdict } from '../../src/core/types';
import { checkClaim, say } from '../../src/confirm/verdict';
import { bsonTypeOfTag, isNumericBsonType } from '../../src/lib/bson-types';
import { dottedPath, fieldFilter, valueAt } from '../../src/lib/doc-path';
import { versionAtLeast } from '../../src/lib/version';
import { NUMBER_TEXT } from '../../src/lib/number-text';
import { convertibleInPlace } from './analyze';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

/** Documents of the stray type copied per experiment: enough to show a miss, few enough to stay quick. */
export const STRAY_DOCS = 200;
/** A field the copies carry to be told apart after a query (the experiment's own; never a user field name). */
const TAG = '__mongo_advisor_copy';

const FAMILIES = ['objectId', 'string', 'number'] as const;
type Family = (typeof FAMILIES)[number];

const notRun = (summary: string, reason: string): Result => ({ status: 'not-run', summary, reason, measurements: [] });

/** The type family of a value as the driver or mongosh hands it over (bson classes by tag); null for anything else. */
export function familyOf(v: unknown): Family | null {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  const tag = (v as { _bsontype?: unknown } | null)?._bsontype;
  if (typeof tag !== 'string') return null;
  const t = bsonTypeOfTag(tag, v as { scope?: unknown });
  return t === 'objectId' ? 'objectId' : isNumericBsonType(t) ? 'number' : null;
}

const HEX24 = /^[0-9a-fA-F]{24}$/;

/**
 * The value as the other type would hold it, as the code that writes that type would send it: a 24-hex string as
 * the ObjectId it spells, a number's text as the number, and back. Null when it does not convert.
 */
export function asFamily(v: unknown, to: Family, objectId: (hex: string) => unknown): unknown {
  const from = familyOf(v);
  if (from === to) return v;
  if (from === 'string' && to === 'objectId') return HEX24.test(v as string) ? objectId(v as string) : null;
  if (from === 'string' && to === 'number') return NUMBER_TEXT.test(v as string) ? Number(v) : null;
  if (from === 'objectId' && to === 'string') return (v as { toHexString(): string }).toHexString();
  if (from === 'number' && to === 'string') return String(Number(v));
  return null;
}

const IN_ARRAY = 'it sits in an array or under a map key: one query cannot name it';
const OLD_SERVER =
  'its name holds a dot or starts with `$`, which only `$getField` (MongoDB 5.0) can name, and this server is older';

/** Why no query can name the field at `path` on this server, or null when one can (`$getField` from 5.0). */
export function whyNoQuery(versions: readonly number[], c: Readonly<CollectionSnapshot>, path: string): string | null {
  if (!convertibleInPlace(c, path)) return IN_ARRAY;
  return dottedPath(path) === null && !versionAtLeast(versions, 5, 0) ? OLD_SERVER : null;
}

/**
 * The claim: a query by one type misses the documents holding the same value as the other type. Documents holding the
 * stray type are copied to scratch, each tagged; the same values are asked for as the main type would hold them (what
 * code that writes the main type sends), and as they are stored (a control: the documents are there). Counts, not
 * times: the miss is the finding. Values are used on scratch only and never reported.
 */
export async function confirmMixedTypes(ctx: ConfirmContext, f: Finding): Promise<Result> {
  const { db, collection, path } = f.target;
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  if (!collection || !path || !c) return notRun('No experiment for this field', IN_ARRAY);
  const unreachable = whyNoQuery(ctx.snapshot.server.versionArray, c, path);
  if (unreachable !== null) return notRun('No experiment for this field', unreachable);
  // The two families by share, largest first (the evidence's `share.<family>`).
  const [main0, stray0, ...more] = FAMILIES.filter((fam) => Number(f.evidence[`share.${fam}`] ?? 0) > 0).sort(
    (x, y) => Number(f.evidence[`share.${y}`]) - Number(f.evidence[`share.${x}`]),
  );
  if (!main0 || !stray0 || more.length)
    return notRun(
      'No experiment for this field',
      'it holds more than two type families (or one), so which value stands for which is not one conversion',
    );
  // Numbers written as text are the strays whatever their share (the rule's advice converts them); otherwise the
  // smaller family.
  const [main, stray]: [Family, Family] =
    Number(f.evidence.numericStrings ?? 0) > 0 ? ['number', 'string'] : [main0, stray0];
  const objectId = (hex: string): unknown => ctx.source.bson.objectId(hex);
  const read = { filter: fieldFilter(path, { type: stray }), limit: STRAY_DOCS };
  const strays = (await ctx.sourceDocs(db, collection, read))
    .map((d, i) => ({ ...withoutId(d), [TAG]: i }))
    .filter((d) => familyOf(valueAt(d, path)) === stray);
  const pairs = strays
    .map((d) => ({ tag: d[TAG], stored: valueAt(d, path), asMain: asFamily(valueAt(d, path), main, objectId) }))
    .filter((p) => p.asMain !== null);
  const article = main === 'objectId' ? 'an ObjectId' : `a ${main}`;
  if (pairs.length === 0) {
    return {
      status: 'inconclusive',
      claim: CLAIM,
      summary: say(M, 'inconclusiveNoValues', { read: formatNumber(strays.length), path, stray, article }),
      measurements: [],
    };
  }
  const s = ctx.scratch;
  const COPIES = 'stray_type_copies';
  await s.drop(COPIES);
  await s.insertMany(COPIES, strays);
  const tagsFound = async (values: unknown[]): Promise<Set<number>> => {
    const filter = fieldFilter(path, { in: values });
    const rows = await s.cursor({ find: COPIES, filter, projection: { _id: 0, [TAG]: 1 }, batchSize: 10_000 });
    return new Set(rows.map((r) => Number(r[TAG])));
  };
  const asked = new Set(pairs.map((p) => p.tag));
  const byMain = [...(await tagsFound(pairs.map((p) => p.asMain)))].filter((t) => asked.has(t)).length;
  const asStored = [...(await tagsFound(pairs.map((p) => p.stored)))].filter((t) => asked.has(t)).length;
  await s.drop(COPIES);
  const n = pairs.length;
  const mainName = main === 'objectId' ? 'ObjectIds' : `${main}s`;
  const strayName = stray === 'objectId' ? 'ObjectIds' : `${stray}s`;
  const summary = say(M, 'measuredCounts', {
    n: formatNumber(n),
    path,
    strayName,
    collection,
    article,
    mainName,
    byMain: formatNumber(byMain),
    asStored: formatNumber(asStored),
  });
  const brief = `a query by ${mainName} missed ${formatNumber(n - byMain)} of ${formatNumber(n)}`;
  const done = (status: Verdict, sentence: string, withBrief = true): Result => ({
    status,
    claim: CLAIM,
    summary: `${summary} ${sentence}`,
    ...(withBrief ? { brief } : {}),
    measurements: [],
  });
  if (asStored !== n) return done('inconclusive', say(M, 'inconclusiveControl'), false);
  if (byMain === 0) return done('supported', say(M, 'supportedAllMissed'));
  if (byMain === n) return done('refuted', say(M, 'refutedMatched'));
  return done('supported', say(M, 'supportedSomeMissed', { missed: formatNumber(n - byMain) }));
}

/** The check (not a cost): a query by the main type misses the documents that hold the same value as the stray type. */
const CLAIM = checkClaim('a query by the main type misses the documents holding the same value as the other type');

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredCounts: sentence(
    '{{n}} documents holding `{{path}}` as {{strayName}} (copied from {{collection}}, each value readable ',
    'as {{article}}): a find for those same values as {{mainName}}, as code that writes {{mainName}} asks, ',
    'matched {{byMain}} of them; asked as stored, it matched {{asStored}}.',
  ),
  supportedAllMissed: 'Every one is missed: equality compares type first, so the check passed.',
  supportedSomeMissed: '{{missed}} are missed, so the check passed.',
  refutedMatched: 'This server matched across types, which MongoDB does not do: the check failed.',
  inconclusiveControl: 'The control did not find every copy, so the miss is not shown.',
  inconclusiveNoValues: sentence(
    'Not measured: none of the {{read}} documents read holding `{{path}}` as {{stray}} holds a value that ',
    'reads as {{article}}, so no query by the other type could be written for them.',
  ),
} as const;
const M = CONFIRM_MESSAGES;
