import type { CollectionSnapshot, FieldProfile } from '../../src/core/types';
import { DYNAMIC_KEY } from '../../src/core/types';
import { pathOf, pathSegments } from '../../src/lib/doc-path';
import { ownValue } from '../../src/lib/names-as-data';

/**
 * Type families: the numeric widths compare by value (MongoDB's manual, "Comparison/Sort Order": numbers are compared
 * after conversion), so int, long, double and decimal are one family; a symbol is a deprecated string. Every other
 * BSON type is a family of its own. null and undefined are not a type here: a field that is a string or null is
 * deliberate nullability, not a mix.
 */
const FAMILY: Record<string, string> = {
  int: 'number',
  long: 'number',
  double: 'number',
  decimal: 'number',
  symbol: 'string',
};
const NULLISH = new Set(['null', 'undefined']);

export interface Family {
  family: string;
  values: number;
  /** Share of the non-null values. */
  share: number;
  /** The BSON types in the family, values per type. */
  types: Record<string, number>;
}

export interface TypeMix {
  /** Families by values, most first. */
  families: Family[];
  /** Non-null values, and null or undefined ones. */
  values: number;
  nulls: number;
  /** The string values by shape (src/collect/profile.ts), when the profile has them. */
  strings?: StringShapes;
}

/**
 * What the string values of a field are: all `blank` ('' or whitespace: a stand-in for "no value"), all a number's
 * text with blanks aside (`numeric`: numbers written as strings), or `text`.
 */
export interface StringShapes {
  shape: 'blank' | 'numeric' | 'text';
  total: number;
  blank: number;
  numeric: number;
  /** Of the numeric strings, an integer's text; undefined where the snapshot predates the count. */
  integer: number | undefined;
}

export function stringShapes(f: Readonly<FieldProfile>): StringShapes | undefined {
  const total = (f.types.string ?? 0) + (f.types.symbol ?? 0);
  if (total === 0) return undefined;
  const blank = f.strings?.blank ?? 0;
  const numeric = f.strings?.numeric ?? 0;
  const shape = blank === total ? 'blank' : blank + numeric === total ? 'numeric' : 'text';
  return { shape, total, blank, numeric, integer: f.strings?.integer };
}

export function typeMix(f: Readonly<FieldProfile>): TypeMix {
  const byFamily = new Map<string, Family>();
  let values = 0;
  let nulls = 0;
  for (const [type, n] of Object.entries(f.types)) {
    if (n <= 0) continue;
    if (NULLISH.has(type)) {
      nulls += n;
      continue;
    }
    values += n;
    const name = FAMILY[type] ?? type;
    let fam = byFamily.get(name);
    if (!fam) byFamily.set(name, (fam = { family: name, values: 0, share: 0, types: {} }));
    fam.values += n;
    fam.types[type] = (fam.types[type] ?? 0) + n;
  }
  const families = [...byFamily.values()].sort((a, b) => b.values - a.values || a.family.localeCompare(b.family));
  for (const fam of families) fam.share = values === 0 ? 0 : fam.values / values;
  const strings = stringShapes(f);
  return { families, values, nulls, ...(strings ? { strings } : {}) };
}

/** "objectId 86%, string 4%, no value 10%": types and their shares of all values (nulls as "no value"), never a
 * value. */
export function describeMix(m: TypeMix, byType = false): string {
  const total = m.values + m.nulls;
  const pct = (n: number): string => {
    const p = (n / total) * 100;
    return p >= 1 || p === 0 ? `${Math.round(p)}%` : '<1%';
  };
  const rows: [string, number][] = byType
    ? m.families.flatMap((f) => Object.entries(f.types)).sort((a, b) => b[1] - a[1])
    : m.families.map((f) => [familyLabel(f, m.strings), f.values]);
  if (m.nulls > 0) rows.push(['no value', m.nulls]);
  return rows.map(([name, n]) => `${name} ${pct(n)}`).join(', ');
}

/**
 * A family as the message names it: "number (int, double)" when it holds several widths; strings by their shape
 * ("blank string", "string (a number's text)", "string (12 blank)") when the profile has it.
 */
function familyLabel(f: Family, strings?: StringShapes): string {
  if (f.family === 'string' && strings) {
    if (strings.shape === 'blank') return 'blank string';
    if (strings.shape === 'numeric')
      return strings.blank > 0 ? `string (a number's text, ${strings.blank} blank)` : "string (a number's text)";
    if (strings.blank > 0) return `string (${strings.blank} blank)`;
  }
  const types = Object.keys(f.types);
  return types.length > 1 || types[0] !== f.family ? `${f.family} (${types.join(', ')})` : f.family;
}

/**
 * A field that holds identifiers: `_id` inside sub-documents, or a last segment ending in `Id`, `_id`, `ID`, `Ids`,
 * `_ids` (`customerId`, `order_id`, `tagIds.$[]`). The document's own `_id` is the id-pattern rule's.
 */
export function idLike(path: string): boolean {
  const segments = pathSegments(path).filter((s) => s !== '$[]' && s !== DYNAMIC_KEY);
  const last = segments[segments.length - 1] ?? '';
  return /(^_?id$|[a-z0-9]Id$|_id$|ID$|[a-z0-9]Ids$|_ids$|^ids$)/.test(last);
}

/** Families whose values are identifiers written two ways: an ObjectId or a UUID beside its text. */
const ID_PAIRS = new Set(['objectId+string', 'binData+string', 'binData+objectId']);

export type PairKind = 'ids' | 'array' | 'other';

export function pairKind(a: string, b: string): PairKind {
  const key = [a, b].sort().join('+');
  if (ID_PAIRS.has(key)) return 'ids';
  if (a === 'array' || b === 'array') return 'array';
  return 'other';
}

/**
 * Whether one update can rewrite the field: no array on its way, no map key above it. A key holding a dot or starting
 * with `$` is named with `$getField` and `$setField` (src/lib/doc-path.ts, fieldFilter and setFieldExpr).
 */
export function convertibleInPlace(c: Readonly<CollectionSnapshot>, path: string): boolean {
  const segments = pathSegments(path);
  if (segments.some((s) => s === DYNAMIC_KEY || s === '$[]')) return false;
  for (let i = 1; i < segments.length; i++) {
    if ((ownValue(c.sample.fields, pathOf(segments.slice(0, i)))?.types.array ?? 0) > 0) return false;
  }
  return true;
}

/** `$convert`'s `to` for a family's most common type, where $convert has one (MongoDB's manual, $convert). */
export function convertTarget(f: Family): string | null {
  const top = Object.entries(f.types).sort((a, b) => b[1] - a[1])[0]?.[0];
  return top && ['double', 'string', 'objectId', 'bool', 'date', 'int', 'long', 'decimal'].includes(top) ? top : null;
}
