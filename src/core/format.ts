/** A string field of a server reply, or the fallback when it is missing or not a string. */
export function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

/** Fills {{name}} placeholders; a missing value stays visible rather than printing "undefined". */
export function fillTemplate(template: string, data: Record<string, string | number> = {}): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => {
    const v = data[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? formatNumber(v) : v;
  });
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const abs = Math.abs(n);
  return n.toLocaleString('en-US', { maximumFractionDigits: abs >= 100 ? 0 : abs >= 10 ? 1 : 2 });
}

export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? String(Math.round(v)) : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * A connection string for display: the password masked and the query string dropped (options can carry
 * secrets too, such as AWS session tokens).
 */
export function redactUri(uri: string): string {
  return uri.replace(/\?.*$/, '').replace(/^(mongodb(?:\+srv)?:\/\/)([^@/]*)@/i, (_m, scheme: string, cred: string) => {
    const user = cred.split(':')[0] ?? '';
    return `${scheme}${user ? `${user}:****@` : '****@'}`;
  });
}
