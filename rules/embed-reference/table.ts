import type { RuleTable, TablesInput } from '../../src/core/rule';
import type { Finding, TableCell, TableColumn } from '../../src/core/types';
import type { EmbedReferenceOptions } from './options';

const COLUMNS: TableColumn[] = [
  { title: 'parent', kind: 'name' },
  { title: 'children', kind: 'name' },
  { title: 'decision', kind: 'text' },
  { title: 'joined reads', kind: 'count' },
  { title: 'children per parent (median / p95 / most)', kind: 'text' },
  { title: 'projected most', kind: 'count' },
  { title: 'child writes', kind: 'count' },
  { title: 'proof: embedded / referenced', kind: 'text' },
];

const CAPTION =
  'Each pair of collections the workload reads together, both directions: the joined reads embedding would save ' +
  'against the writes the children receive, and the children per parent now and at the projected growth. The proof ' +
  'is the ratio of the embedded layout to the referenced one on scratch (below 1x: embedded is faster).';

const DECISION: Record<string, string> = {
  embed: 'embed',
  extendedReference: 'extended reference',
  keepReferenced: 'keep referenced',
};

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

function proof(f: Finding): string | null {
  const c = f.confirmation;
  if (!c) return null;
  return c.brief ? `${c.status}: ${c.brief}` : c.status;
}

/** One table per database: a row per pair judged. */
export function embedTables({ findings }: TablesInput<EmbedReferenceOptions>): RuleTable[] {
  const byDb = new Map<string, Finding[]>();
  for (const f of findings) byDb.set(f.target.db, [...(byDb.get(f.target.db) ?? []), f]);
  return [...byDb].map(([db, list]) => ({
    title: 'Embed or reference, both directions',
    target: { db },
    caption: CAPTION,
    columns: COLUMNS,
    rows: list.map((f): TableCell[] => {
      const e = f.evidence;
      return [
        String(e.parent),
        String(e.child),
        DECISION[String(e.decision)] ?? String(e.decision),
        num(e.joinCalls),
        `${String(e.childrenMedian)} / ${String(e.childrenP95)} / ${String(e.childrenMax)}`,
        num(e.projectedChildren),
        num(e.childWrites),
        proof(f),
      ];
    }),
  }));
}
