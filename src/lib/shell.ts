/** mongosh syntax for the commands findings recommend. */

/** `db.name` where mongosh allows it, else `db.getCollection("name")` (odd names, names of db methods). */
export function shellCollection(name: string): string {
  const reserved = new Set(['stats', 'version', 'help', 'auth', 'logout', 'getName', 'runCommand', 'aggregate', 'watch', 'getMongo', 'getSiblingDB', 'createCollection', 'dropDatabase']);
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reserved.has(name) ? `db.${name}` : `db.getCollection(${JSON.stringify(name)})`;
}

