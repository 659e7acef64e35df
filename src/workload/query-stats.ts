/**
 * `$queryStats` entries (8.0+) to workload records: one record per entry, the counts per execution on average,
 * `execCount` the executions it sums. The entry holds the server's query shape (`"?number"`, `"?string"` in place
 * of values), so the record is `shapeOnly`: good for fields and operators, not for replay. Structure from
 * src/mongo/db/query/query_stats/README.md (mongodb/mongo): `key.queryShape` (`cmdNs`, `command`, `filter`,
 * `sort`, `projection`, `pipeline`…), `key.client.application.name`, `keyHash`, `queryShapeHash`, and `metrics`
 * whose counts are `{sum, max, min, sumOfSquares}` — flat under `metrics` on 8.0 (`metrics.keysExamined`), grouped
 * on newer servers (`metrics.queryExec.keysExamined`, `metrics.queryPlanner.hasSortStage: {trueCount, falseCount}`).
 */
import { type CommandDocument, type WorkloadRecord, exclusionOf, makeRecord, opKindOf } from './record';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const numberOf = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  if (isObject(v) && typeof v.toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return undefined;
};

/** A metric by name, flat (8.0) or in one of the newer groups. */
function metric(metrics: Record<string, unknown>, name: string): unknown {
  if (name in metrics) return metrics[name];
  for (const group of ['queryExec', 'queryPlanner', 'cursor']) {
    const g = metrics[group];
    if (isObject(g) && name in g) return g[name];
  }
  return undefined;
}

function perExecution(metrics: Record<string, unknown>, name: string, execs: number): number | undefined {
  const m = metric(metrics, name);
  const sum = isObject(m) ? numberOf(m.sum) : undefined;
  return sum === undefined || execs <= 0 ? undefined : sum / execs;
}

function anyTrue(metrics: Record<string, unknown>, name: string): boolean | undefined {
  const m = metric(metrics, name);
  if (typeof m === 'boolean') return m;
  if (isObject(m)) return (numberOf(m.trueCount) ?? 0) > 0;
  return undefined;
}

/** The shape as a command document: `{<command>: coll, ...shape fields}`. */
function commandOfShape(shape: Record<string, unknown>, coll: string): CommandDocument {
  const rest = Object.fromEntries(Object.entries(shape).filter(([k]) => k !== 'cmdNs' && k !== 'command'));
  return { [String(shape.command)]: coll, ...rest };
}

/** One `$queryStats` entry to a record, or why it is not one. */
export function recordOfQueryStats(entry: unknown): WorkloadRecord | 'malformed' | 'own' | 'scratch' {
  if (!isObject(entry) || !isObject(entry.key) || !isObject(entry.metrics)) return 'malformed';
  const shape = entry.key.queryShape;
  if (!isObject(shape) || !isObject(shape.cmdNs) || typeof shape.command !== 'string') return 'malformed';
  const { db, coll } = shape.cmdNs;
  if (typeof db !== 'string' || typeof coll !== 'string') return 'malformed';
  const client = entry.key.client;
  const app = isObject(client) && isObject(client.application) ? client.application.name : undefined;
  const ns = { db, coll };
  const excluded = exclusionOf(app, ns);
  if (excluded !== null) return excluded;
  const command = commandOfShape(shape, coll);
  const m = entry.metrics;
  const execCount = numberOf(m.execCount) ?? 0;
  const micros = perExecution(m, 'totalExecMicros', execCount);
  const facts = {
    appName: typeof app === 'string' ? app : undefined,
    durationMillis: micros === undefined ? undefined : micros / 1000,
    keysExamined: perExecution(m, 'keysExamined', execCount),
    docsExamined: perExecution(m, 'docsExamined', execCount),
    nreturned: perExecution(m, 'docsReturned', execCount),
    hasSortStage: anyTrue(m, 'hasSortStage'),
    usedDisk: anyTrue(m, 'usedDisk'),
    fromMultiPlanner: anyTrue(m, 'fromMultiPlanner'),
    fromPlanCache: anyTrue(m, 'fromPlanCache'),
    queryShapeHash: typeof entry.queryShapeHash === 'string' ? entry.queryShapeHash : undefined,
  };
  const defined = Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== undefined));
  const op = opKindOf(command);
  return makeRecord({ source: 'queryStats', ns, op, ...defined, execCount, shapeOnly: true }, command);
}
