/** mongosh syntax for the commands findings recommend. */

/** `db.name` where mongosh allows it, else `db.getCollection("name")` (odd names, names of db methods). */
export function shellCollection(name: string): string {
  const reserved = new Set([
    'stats',
    'version',
    'help',
    'auth',
    'logout',
    'getName',
    'runCommand',
    'aggregate',
    'watch',
    'getMongo',
    'getSiblingDB',
    'createCollection',
    'dropDatabase',
  ]);
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reserved.has(name)
    ? `db.${name}`
    : `db.getCollection(${JSON.stringify(name)})`;
}

/** A string literal for mongosh (quotes, backslashes and control characters escaped): names in commands use this. */
export function shellString(value: string): string {
  return JSON.stringify(value);
}

/** An object key for mongosh: bare where it is an identifier, else quoted. */
export function shellKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A plain value (objects, arrays, strings, numbers, booleans, null) as mongosh source: keys bare where they can be. */
export function shellValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(shellValue).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${shellKey(k)}: ${shellValue(x)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return v === undefined ? 'undefined' : JSON.stringify(v);
}
