import { serverLine } from '../lib/server-name';
import { collectionTotals } from '../core/groups';
import { formatBytes, formatNumber } from '../core/format';
import {
  isWithdrawn,
  type CheckResult,
  type Confirmation,
  type Finding,
  type Severity,
  type Snapshot,
} from '../core/types';
import { targetLabel } from './catalog';
import { safeForTerminal } from './escape';
import {
  actionForEach,
  collapseGaps,
  confirmationVerdict,
  firstSentence,
  groupFindings,
  memberLabel,
  membersNoun,
  ratioFigure,
  verdictWords,
} from './group';

export { intervalName } from './group';

/** What `audit` hands the HTML report: the result and the snapshot it came from (shapes only, no values). */
export interface AuditReport {
  result: CheckResult;
  snapshot: Snapshot;
}

/**
 * Array length buckets, cut at published lines: a MongoDB 1.8 benchmark of embedded vs referenced comments saw no
 * cost up to 100 per post, $push 2.3x slower at 1,000 and 26.5x at 10,000; Compass flags 250+, Atlas 10,000+.
 */
export const LENGTH_BUCKETS: { label: string; min: number; max: number }[] = [
  { label: '0', min: 0, max: 0 },
  { label: '1–99', min: 1, max: 99 },
  { label: '100–249', min: 100, max: 249 },
  { label: '250–999', min: 250, max: 999 },
  { label: '1,000–9,999', min: 1000, max: 9999 },
  { label: '10,000+', min: 10000, max: Infinity },
];

export interface ArraySeries {
  collection: string;
  path: string;
  maxLength: number;
  /** Sampled documents per LENGTH_BUCKETS bucket (documents without the array count as 0). */
  buckets: number[];
  /** [creation time ms, length] per sampled document with a known creation time. */
  growth: [number, number][];
}

/**
 * One collection's _id order, as a finding's evidence gives it: Spearman's ρ between the rank of each _id and the
 * position it was read at in natural (insertion) order, over `n` _ids. The _ids themselves never reach the report.
 */
export interface IdOrderSeries {
  collection: string;
  idType: string;
  rho: number;
  n: number;
  /** The order the rule judged from ρ and the leading bytes: monotonic, random or unclear. */
  order: string;
}

export interface IndexBar {
  collection: string;
  name: string;
  sizeBytes: number;
}

export interface ConfirmationBar {
  label: string;
  severity: Severity;
  status: Confirmation['status'];
  summary: string;
  /** coverage: the interval's real coverage (0.95, 0.9375…), absent for an exact figure. */
  ratio: { label: string; median: number; low: number; high: number; coverage?: number } | null;
  measurements: { label: string; unit: string; median: number; low: number; high: number; trials: number }[];
}

export interface ChartData {
  lengthBuckets: string[];
  arrays: ArraySeries[];
  idOrder: IdOrderSeries[];
  indexes: { cacheBytes: number | null; totalBytes: number; top: IndexBar[]; count: number };
  confirmations: ConfirmationBar[];
}

const MAX_ARRAY_SERIES = 8;
const MAX_ID_SERIES = 20;
const MAX_POINTS = 1500;
const MAX_INDEX_BARS = 20;

function downsample<T>(xs: readonly T[], max: number): T[] {
  if (xs.length <= max) return [...xs];
  const step = xs.length / max;
  return Array.from({ length: max }, (_, i) => xs[Math.floor(i * step)] as T);
}

/** Chart series from the snapshot and the findings. Pure; bounded in size whatever the deployment. */
export function chartData(report: AuditReport): ChartData {
  const { snapshot, result } = report;
  const arrays: ArraySeries[] = [];
  const indexBars: IndexBar[] = [];
  for (const db of snapshot.databases) {
    for (const c of db.collections) {
      const name = `${db.name}.${c.name}`;
      const docs = c.sample.docs;
      const paths = new Map<string, number>();
      for (const d of docs) for (const a of d.arrays) paths.set(a.path, Math.max(paths.get(a.path) ?? 0, a.maxLength));
      for (const [path, maxLength] of paths) {
        const buckets = LENGTH_BUCKETS.map(() => 0);
        const growth: [number, number][] = [];
        // Only documents that hold the array count: one without it is not an array of length 0.
        for (const d of docs) {
          const held = d.arrays.find((a) => a.path === path);
          if (!held) continue;
          const len = held.maxLength;
          const i = LENGTH_BUCKETS.findIndex((b) => len >= b.min && len <= b.max);
          buckets[i] = (buckets[i] ?? 0) + 1;
          if (d.createdAt !== null) growth.push([d.createdAt, len]);
        }
        growth.sort((a, b) => a[0] - b[0]);
        arrays.push({ collection: name, path, maxLength, buckets, growth: downsample(growth, MAX_POINTS) });
      }
      // A size of 0 is a size not read (a WiredTiger index takes at least one page): left out, not drawn as 0 B.
      for (const ix of c.indexes)
        if (ix.sizeBytes !== null && ix.sizeBytes > 0)
          indexBars.push({ collection: name, name: ix.name, sizeBytes: ix.sizeBytes });
    }
  }
  arrays.sort((a, b) => b.maxLength - a.maxLength);
  const idOrder = idOrderSeries(result.findings);
  indexBars.sort((a, b) => b.sizeBytes - a.sizeBytes);
  return {
    lengthBuckets: LENGTH_BUCKETS.map((b) => b.label),
    arrays: arrays.slice(0, MAX_ARRAY_SERIES),
    idOrder: idOrder.slice(0, MAX_ID_SERIES),
    indexes: {
      cacheBytes: snapshot.server.cacheBytes,
      totalBytes: indexBars.reduce((n, i) => n + i.sizeBytes, 0),
      top: indexBars.slice(0, MAX_INDEX_BARS),
      count: indexBars.length,
    },
    confirmations: result.findings.filter((f) => f.confirmation).map(confirmationBar),
  };
}

/**
 * The _id order of each collection a finding judged it for: findings whose evidence carries the correlation
 * (`monotonicity`, Spearman's ρ) and the number of _ids behind it (`naturalOrderIds`), as id-pattern's do. One series
 * per collection, the most _ids first. Drawn from findings only: the report never reads a rule's own data.
 */
function idOrderSeries(findings: readonly Finding[]): IdOrderSeries[] {
  const byCollection = new Map<string, IdOrderSeries>();
  for (const f of findings) {
    const { monotonicity: rho, naturalOrderIds: n, idType, order } = f.evidence;
    if (typeof rho !== 'number' || typeof n !== 'number' || f.target.collection === undefined) continue;
    const collection = `${f.target.db}.${f.target.collection}`;
    if (!byCollection.has(collection))
      byCollection.set(collection, {
        collection,
        idType: typeof idType === 'string' ? idType : 'unknown',
        rho,
        n,
        order: typeof order === 'string' ? order : 'unclear',
      });
  }
  return [...byCollection.values()].sort((a, b) => b.n - a.n || a.collection.localeCompare(b.collection));
}

function confirmationBar(f: Finding): ConfirmationBar {
  const c = f.confirmation as Confirmation;
  return {
    label: `${targetLabel(f)} (${f.ruleId})`,
    severity: f.severity,
    status: c.status,
    summary: c.summary,
    ratio: c.ratio
      ? {
          label: c.ratio.label,
          median: c.ratio.median,
          low: c.ratio.low,
          high: c.ratio.high,
          ...(c.ratio.coverage === undefined ? {} : { coverage: c.ratio.coverage }),
        }
      : null,
    measurements: c.measurements.map((m) => ({
      label: m.label,
      unit: m.unit,
      median: m.median,
      low: m.low,
      high: m.high,
      trials: m.trials,
    })),
  };
}

/** No marks in a ticket: the verdict's words alone (group.ts verdictWords). */
const NO_MARK: Record<Confirmation['status'], string> = {
  supported: '',
  refuted: '',
  inconclusive: '',
  'not-run': '',
  error: '',
};

/** A plain-text summary a DBA can paste into a ticket: scope, counts, each finding in one line, what was not
 * checked. */
export function ticketSummary(given: AuditReport, opts: { verbose?: boolean } = {}): string {
  // Pasted into a terminal or a ticket: no control character, and no newline that would make a name a line of its own.
  const report: AuditReport = { result: safeForTerminal(given.result), snapshot: safeForTerminal(given.snapshot) };
  const { result, snapshot } = report;
  const server = serverLine(result.server);
  const ncoll = collectionTotals(snapshot).total;
  const count = (s: Severity): number => result.findings.filter((f) => f.severity === s && !isWithdrawn(f)).length;
  const withdrawn = result.findings.filter(isWithdrawn).length;
  const lines = [
    `MongoDB schema audit of ${result.source} (${server}) on ${result.startedAt.slice(0, 10)}`,
    `Scope: ${snapshot.databases.length} database${snapshot.databases.length === 1 ? '' : 's'} ` +
      `(${snapshot.databases.map((d) => d.name).join(', ')}), ${ncoll} collection${ncoll === 1 ? '' : 's'}. ` +
      `Confirmation on a scratch copy: ${result.confirm.enabled ? 'on' : 'off'}.`,
    `Findings: ${count('error')} error${count('error') === 1 ? '' : 's'}, ${count('warn')} ` +
      `warning${count('warn') === 1 ? '' : 's'}, ${count('info')} info` +
      (withdrawn ? `; ${withdrawn} withdrawn (refuted on scratch), listed but not counted.` : '.'),
  ];
  const idx = chartData(report).indexes;
  if (idx.count > 0) {
    const cache = idx.cacheBytes
      ? ` against a ${formatBytes(idx.cacheBytes)} WiredTiger cache ` +
        `(${formatNumber((idx.totalBytes / idx.cacheBytes) * 100)}%)`
      : ' (cache size not reported by the server)';
    lines.push(`Indexes: ${idx.count}, ${formatBytes(idx.totalBytes)} in all${cache}.`);
  }
  if (result.findings.length) lines.push('');
  groupFindings(result.findings, opts).forEach((e, i) => {
    if (e.kind === 'group') {
      const where = `${membersNoun(e)}${e.db === null ? '' : ` in ${e.db}`}${e.path === null ? '' : ` › ${e.path}`}`;
      const members = e.findings.map((f) => memberLabel(f, e)).join(', ');
      let line = `${i + 1}. [${e.severity}] ${where} (${e.ruleId}): ${members}. ${e.gist}`;
      const action = actionForEach(e, "each finding's own is in the report's details");
      if (action) line += ` Suggested for each: ${action}.`;
      const measured = e.findings
        .filter((f) => f.confirmation)
        .map((f) => `${memberLabel(f, e)} ${confirmationVerdict(f.confirmation as Confirmation, NO_MARK)}`);
      if (measured.length) line += ` Measured: ${measured.join('; ')}.`;
      lines.push(line);
      return;
    }
    const f = e.finding;
    let line = `${i + 1}. [${f.severity}] ${targetLabel(f)} (${f.ruleId}): ${firstSentence(f.message)}`;
    if (f.recommendation) line += ` Suggested: ${f.recommendation.action}.`;
    const c = f.confirmation;
    if (c) line += ` Measured: ${verdictWords(c)}${c.ratio ? `, ${ratioFigure(c.ratio)}` : ''}.`;
    lines.push(line);
  });
  const skipped = collapseGaps(result.notes).filter((n) => n.level !== 'info');
  if (skipped.length) {
    lines.push('', `Not checked (${skipped.length}):`);
    for (const n of skipped.slice(0, 10))
      lines.push(`- ${n.target ? `${targetLabel({ target: n.target })}: ` : ''}${n.message}`);
    if (skipped.length > 10) lines.push(`- … and ${skipped.length - 10} more (see the report)`);
  }
  lines.push(
    '',
    `Generated by mongo-advisor ${result.tool.version}; the report holds paths, types, sizes and counts, no ` +
      `document values.`,
  );
  return lines.join('\n');
}
