/**
 * Objects keyed by a user's names (fields, collections, indexes, databases). A plain `{}` answers `constructor`,
 * `valueOf`, `toString`, `hasOwnProperty` from Object.prototype and takes `o.__proto__ = v` as a change of prototype,
 * so a field named so vanished from a proposed index (`k in key`) or read as a function. These helpers treat every
 * name as data: `byName()` has no prototype, `ownValue` and `hasName` read own properties only, and `keyOfEntries`
 * builds an index key (order kept, first of a repeated field wins) whose keys are all own, `__proto__` included.
 */

/** An empty record for names as keys: no prototype, so every name (`__proto__` too) is an own key. */
export function byName<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** Whether `name` is an own key of `o` (never an inherited member of Object.prototype). */
export function hasName(o: object, name: string): boolean {
  return Object.hasOwn(o, name);
}

/** The value under `name`, own keys only: undefined for `constructor` unless a field is called so. */
export function ownValue<V>(o: Readonly<Record<string, V>>, name: string): V | undefined {
  return Object.hasOwn(o, name) ? o[name] : undefined;
}

/**
 * A plain object with these keys in order (the first of a repeated key wins). `Object.fromEntries` defines each key
 * as an own property, so `__proto__` survives as a key (and through JSON.stringify and the driver's BSON).
 */
export function keyOfEntries<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const seen = new Set<string>();
  const kept: [string, V][] = [];
  for (const [k, v] of entries) {
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push([k, v]);
  }
  return Object.fromEntries(kept);
}

/**
 * Sets `o[name] = value` as an own property of a plain object (for data a snapshot holds: a JSON round trip keeps a
 * plain object, not one without a prototype): `__proto__` included, where an assignment would set the prototype.
 */
export function setOwn<V>(o: Record<string, V>, name: string, value: V): void {
  Object.defineProperty(o, name, { value, enumerable: true, writable: true, configurable: true });
}
