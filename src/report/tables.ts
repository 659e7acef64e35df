import { formatDuration, formatNumber } from '../core/format';
import type { ReportTable, TableCell, TableColumn } from '../core/types';

/** What a null cell shows: unknown, or not applicable. */
export const NO_VALUE = '—';

/** Whether a column holds figures (right-aligned). */
export const isFigure = (c: TableColumn): boolean => c.kind === 'count' || c.kind === 'ms';

/**
 * A cell as text, before the output's own escaping: figures formatted (a duration of 0 reads "0 ms", the whole
 * milliseconds a profiler records), a null "—", anything else as it is.
 */
export function cellText(column: TableColumn, cell: TableCell): string {
  if (cell === null) return NO_VALUE;
  if (typeof cell === 'string') return cell;
  if (column.kind === 'ms') return cell === 0 ? '0 ms' : formatDuration(cell);
  return formatNumber(cell);
}

/** What a table covers, as the one name shown beside its heading: its database, or `db.collection`. */
export function tableWhere(t: ReportTable): string {
  const { db, collection } = t.target;
  return collection === undefined ? db : `${db}.${collection}`;
}
