/**
 * Collection names that share a pattern: per-tenant collections (`tenant_42`, `orders_acme`) are one design repeated.
 * The core read folds a database of many collections into these groups and reads a few representatives of each
 * (src/collect/groups.ts); the collection-count rule finds its tenant groups with the same folding.
 */

const SEPARATOR = /([_\-.:])/;

/**
 * The name patterns a collection name could belong to: each separator-delimited token in turn replaced by
 * `{id}`, and a trailing run of digits (`tenant42` -> `tenant{id}`).
 */
export function namePatterns(name: string): string[] {
  const out = new Set<string>();
  const parts = name.split(SEPARATOR);
  if (parts.length >= 3) {
    for (let i = 0; i < parts.length; i += 2) {
      if ((parts[i] ?? '') === '') continue;
      const copy = [...parts];
      copy[i] = '{id}';
      out.add(copy.join(''));
    }
  }
  const digits = /^(.*[^0-9])([0-9]+)$/.exec(name);
  if (digits?.[1] && !SEPARATOR.test(digits[1].slice(-1))) out.add(`${digits[1]}{id}`);
  return [...out];
}

/**
 * Groups names that share a pattern. Largest patterns claim their names first, so `{id}_orders` with 500
 * tenants wins over `acme_{id}` with 5 collection types. Groups under `minMembers` are dropped.
 */
export function groupByPattern(names: readonly string[], minMembers: number): { pattern: string; members: string[] }[] {
  const byPattern = new Map<string, string[]>();
  for (const n of names) {
    for (const p of namePatterns(n)) {
      let list = byPattern.get(p);
      if (!list) byPattern.set(p, (list = []));
      list.push(n);
    }
  }
  const ranked = [...byPattern]
    .filter(([, m]) => m.length >= minMembers)
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const taken = new Set<string>();
  const groups: { pattern: string; members: string[] }[] = [];
  for (const [pattern, members] of ranked) {
    const free = members.filter((m) => !taken.has(m));
    if (free.length < minMembers) continue;
    for (const m of free) taken.add(m);
    groups.push({ pattern, members: free });
  }
  return groups;
}
