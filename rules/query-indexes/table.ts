import { dataOf } from '../../src/core/collector';
import type { RuleTable, TablesInput } from '../../src/core/rule';
import type { Confirmation, DatabaseSnapshot, Finding, TableCell, TableColumn } from '../../src/core/types';
import { formatKey } from '../../src/lib/index-keys';
import { serveShape } from '../../src/workload/serve';
import { createIndexCommand, databaseAdvice, impactOf, namesMapKey } from './analyze';
import { queryWorkload, type ShapeData } from '../../src/collect/workload';
import type { QueryIndexesOptions } from './options';

const SHAPE_COLUMNS: TableColumn[] = [
  { title: 'collection', kind: 'name' },
  { title: 'shape', kind: 'code' },
  { title: 'calls', kind: 'count' },
  { title: 'time in all', kind: 'ms' },
  { title: 'p95', kind: 'ms' },
  { title: 'examined / call', kind: 'count' },
  { title: 'returned / call', kind: 'count' },
  { title: 'index used', kind: 'name' },
  { title: 'served', kind: 'text' },
  { title: 'proposed index', kind: 'code' },
  { title: 'proof on scratch', kind: 'text' },
];

const INDEX_COLUMNS: TableColumn[] = [
  { title: 'collection', kind: 'name' },
  { title: 'index', kind: 'code' },
  { title: 'shapes served', kind: 'count' },
  { title: 'calls', kind: 'count' },
  { title: 'time in all', kind: 'ms' },
  { title: 'proof on scratch', kind: 'text' },
];

const INDEXES = 'Indexes proposed, highest impact first';
const INDEXES_CAPTION =
  'Each index the findings propose, once, with the shapes it would serve and their calls and time. The proof is ' +
  'that of its highest-impact shape that was timed: examined per call without → with it, and the insert cost.';

const SHAPES = 'Query shapes, highest impact first';
const SHAPES_CAPTION =
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

interface Shaped {
  coll: string;
  s: ShapeData;
}

/** A database's shapes (of the collections checked), highest impact first, and the advice analyze gave on them. */
function adviceOf(db: DatabaseSnapshot, options: QueryIndexesOptions) {
  const data = dataOf(queryWorkload, db);
  const colls = new Map(db.collections.map((c) => [c.name, c]));
  const shapes: Shaped[] = (data?.collections ?? [])
    .filter((wc) => colls.has(wc.name))
    .flatMap((wc) => wc.shapes.map((s) => ({ coll: wc.name, s })));
  // The same advice as analyze (one function): the table lists the indexes the findings propose, under their names.
  const advice = databaseAdvice(
    db,
    shapes.map(({ s }) => s),
    options.maxPerCollection,
  );
  shapes.sort((a, b) => impactOf(b.s) - impactOf(a.s));
  return { shapes, candidates: advice.candidates, indexesOf: (coll: string) => colls.get(coll)?.indexes ?? [] };
}

/** The finding that proposes an index for this shape (its evidence names the shape and the index), if any. */
function proposalOf(findings: readonly Finding[], db: string, s: ShapeData): Finding | undefined {
  return findings.find(
    (f) => f.target.db === db && f.evidence.shapeId === s.id && typeof f.evidence.proposed === 'string',
  );
}

function shapeRow(db: string, { coll, s }: Shaped, advice: ReturnType<typeof adviceOf>, findings: readonly Finding[]) {
  const served = serveShape(s.shape, advice.indexesOf(coll));
  const used = [...new Set(served.branches.flatMap((b) => (b ? [b.index] : [])))];
  const finding = proposalOf(findings, db, s);
  // Only what a finding proposes: a shape below the rule's lines gets no proposal here either.
  const candidate = advice.candidates.find((c) => c.coll === coll && c.name === finding?.evidence.proposed);
  const row: TableCell[] = [
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
  return row;
}

/** The indexes the findings propose, each once, with the shapes it serves, highest impact first. */
function indexRows(db: string, advice: ReturnType<typeof adviceOf>, findings: readonly Finding[]): TableCell[][] {
  const proposed = advice.candidates.flatMap((c) => {
    const served = advice.shapes.filter(({ coll, s }) => coll === c.coll && c.serves.includes(s.id));
    const props = served.flatMap(({ s }) => {
      const f = proposalOf(findings, db, s);
      return f && f.evidence.proposed === c.name ? [f] : [];
    });
    if (props.length === 0 || namesMapKey(c)) return [];
    const times = served.map(({ s }) => s.totalMillis).filter((t): t is number => t !== null);
    const row: TableCell[] = [
      c.coll,
      createIndexCommand(c),
      served.length,
      served.reduce((n, { s }) => n + s.calls, 0),
      times.length ? times.reduce((a, b) => a + b, 0) : null,
      proofOf(props.find((f) => f.confirmation)),
    ];
    return [{ impact: served.reduce((n, { s }) => n + impactOf(s), 0), row }];
  });
  return proposed.sort((a, b) => b.impact - a.impact).map((p) => p.row);
}

/** query-indexes' tables: per database with a workload, its proposed indexes and its shapes. */
export function shapeTables({ snapshot, options, findings }: TablesInput<QueryIndexesOptions>): RuleTable[] {
  return snapshot.databases.flatMap((db) => {
    const advice = adviceOf(db, options);
    if (advice.shapes.length === 0) return [];
    const target = { db: db.name };
    const shapes = { title: SHAPES, target, caption: SHAPES_CAPTION, columns: SHAPE_COLUMNS };
    const rows = advice.shapes.map((x) => shapeRow(db.name, x, advice, findings));
    const indexes = indexRows(db.name, advice, findings);
    const proposed = { title: INDEXES, target, caption: INDEXES_CAPTION, columns: INDEX_COLUMNS, rows: indexes };
    return [...(indexes.length ? [proposed] : []), { ...shapes, rows }];
  });
}
