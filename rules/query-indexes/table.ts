import { dataOf } from '../../src/core/collector';
import type { RuleTable, TablesInput } from '../../src/core/rule';
import type { Confirmation, DatabaseSnapshot, Finding, TableCell, TableColumn } from '../../src/core/types';
import { formatKey } from '../../src/lib/index-keys';
import { adviseIndexes } from '../../src/workload/candidates';
import { serveShape } from '../../src/workload/serve';
import { impactOf } from './analyze';
import { queryWorkload, type ShapeData } from './collect';
import type { QueryIndexesOptions } from './options';

const COLUMNS: TableColumn[] = [
  { title: 'collection', kind: 'name' },
  { title: 'shape', kind: 'code' },
  { title: 'calls', kind: 'count' },
  { title: 'time in all', kind: 'ms' },
  { title: 'p95', kind: 'ms' },
  { title: 'examined per call', kind: 'count' },
  { title: 'returned per call', kind: 'count' },
  { title: 'index used', kind: 'name' },
  { title: 'served', kind: 'text' },
  { title: 'proposed index', kind: 'code' },
  { title: 'proof on scratch', kind: 'text' },
];

const TITLE = 'Query shapes, highest impact first';
const CAPTION =
  'Every shape the workload ran (field names, BSON types and operators, never a value) against the indexes the ' +
  'collection has, highest impact first: documents read and not returned, else calls × time. Examined and returned ' +
  'are per call that reported them: — where the source gave no counts (a profiler that records only times) or ' +
  'nothing applies.';

const SERVED: Record<'full' | 'partial' | 'none', string> = { full: 'fully', partial: 'in part', none: 'no index' };

const VERDICT: Record<Confirmation['status'], string> = {
  supported: 'supported',
  refuted: 'refuted',
  inconclusive: 'inconclusive',
  'not-run': 'not run',
  error: 'error',
};

/** Documents per call over the calls that reported counts, rounded; null without counts. */
function perCall(total: number | null, counted: number): number | null {
  return total === null || counted === 0 ? null : Math.round(total / counted);
}

/** The proof of the shape's index finding: its verdict and, when it has them, its figures in a few words. */
function proofOf(f: Finding | undefined): string | null {
  const c = f?.confirmation;
  if (!c) return null;
  return c.brief ? `${VERDICT[c.status]}: ${c.brief}` : VERDICT[c.status];
}

/** One database's shapes as rows, highest impact first. */
function rowsOf(db: DatabaseSnapshot, options: QueryIndexesOptions, findings: readonly Finding[]): TableCell[][] {
  const data = dataOf(queryWorkload, db);
  if (!data) return [];
  const colls = new Map(db.collections.map((c) => [c.name, c]));
  const checked = data.collections.filter((wc) => colls.has(wc.name));
  const shapes = checked.flatMap((wc) => wc.shapes.map((s) => ({ coll: wc.name, s })));
  // The same advice analyze gave: candidates weighted by impact, at most maxPerCollection per collection.
  const weights = new Map(shapes.map(({ s }) => [s.id, impactOf(s)]));
  const advice = adviseIndexes(
    shapes.map(({ s }) => s.shape),
    (_db, coll) => colls.get(coll)?.indexes ?? [],
    { weight: (id) => weights.get(id) ?? 1, maxPerCollection: options.maxPerCollection },
  );
  shapes.sort((a, b) => impactOf(b.s) - impactOf(a.s));
  return shapes.map(({ coll, s }) => row(coll, s, colls.get(coll)?.indexes ?? [], advice, findings));
}

function row(
  coll: string,
  s: ShapeData,
  indexes: Parameters<typeof serveShape>[1],
  advice: ReturnType<typeof adviseIndexes>,
  findings: readonly Finding[],
): TableCell[] {
  const served = serveShape(s.shape, indexes);
  const used = [...new Set(served.branches.flatMap((b) => (b ? [b.index] : [])))];
  const candidate = served.level === 'full' ? undefined : advice.candidates.find((c) => c.serves.includes(s.id));
  const finding = findings.find(
    (f) => f.target.db === s.shape.db && f.evidence.shapeId === s.id && f.recommendation?.commands?.length,
  );
  return [
    coll,
    s.printed,
    s.calls,
    s.totalMillis,
    s.p95Millis,
    perCall(s.docsExamined, s.counted),
    perCall(s.nreturned, s.counted),
    used.length ? used.join(', ') : null,
    SERVED[served.level],
    candidate ? formatKey(candidate.key) : null,
    proofOf(finding),
  ];
}

/** query-indexes' table: per database with a workload, its shapes with their figures and indexes. */
export function shapeTables({ snapshot, options, findings }: TablesInput<QueryIndexesOptions>): RuleTable[] {
  return snapshot.databases.flatMap((db) => {
    const rows = rowsOf(db, options, findings);
    return rows.length ? [{ title: TITLE, target: { db: db.name }, caption: CAPTION, columns: COLUMNS, rows }] : [];
  });
}
