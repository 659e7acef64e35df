import type { CheckResult } from '../core/types';

/** The full result as JSON: the same fields the mongosh --json output and the Node API return. */
export function formatJson(result: CheckResult): string {
  return JSON.stringify(result, null, 2);
}
