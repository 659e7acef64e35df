import type { FieldProfile } from '../core/types';

/** Type families as mixed-types reads them: number widths compare by value, a symbol is a deprecated string. */
const FAMILY: Record<string, string> = { int: 'number', long: 'number', double: 'number', decimal: 'number' };
const familyOf = (type: string): string => (type === 'symbol' ? 'string' : (FAMILY[type] ?? type));
const NULLISH = new Set(['null', 'undefined']);

/**
 * The blank strings ('' or whitespace) of a field that stand for "no value": the field holds strings beside exactly
 * one other type (null aside), and its strings are all blank, or, beside numbers, all blank or a number's text. The
 * mixed-types rule recommends removing exactly these (`$unset`), and the validator rule's proposal counts them as no
 * value when it decides what is required, so the two never contradict each other. 0 for any other field.
 */
export function blanksStandingForNone(f: Readonly<FieldProfile>): number {
  const families = new Set<string>();
  for (const [type, n] of Object.entries(f.types)) if (n > 0 && !NULLISH.has(type)) families.add(familyOf(type));
  if (families.size !== 2 || !families.has('string')) return 0;
  const strings = (f.types.string ?? 0) + (f.types.symbol ?? 0);
  const blank = f.strings?.blank ?? 0;
  const numeric = f.strings?.numeric ?? 0;
  if (blank === 0) return 0;
  if (blank === strings) return blank;
  return families.has('number') && blank + numeric === strings ? blank : 0;
}
