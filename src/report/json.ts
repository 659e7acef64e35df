import type { CheckResult } from '../core/types';
import { jsonTerminalSafe } from './escape';

/**
 * The full result as JSON: the same fields the mongosh --json output and the Node API return. Characters a terminal
 * acts on that JSON.stringify leaves raw (C1 controls, bidi marks) are \u escapes: the same value, safe to print.
 */
export function formatJson(result: CheckResult): string {
  return jsonTerminalSafe(JSON.stringify(result, null, 2));
}
