import type { Adapter, Doc } from '../adapters/types';

/**
 * The throttle, after pt-online-schema-change: read the server's load before each experiment and before each heavy
 * write (a copy, a create, an index build; never inside a timed trial), pause while it is above `--max-load`, and
 * stop confirming — with one line saying why — when it stays above for `maxPauseMs` or passes the critical level.
 *
 * pt-online-schema-change (Percona Toolkit, man page "pt-online-schema-change(1p)"): `--max-load` default
 * `Threads_running=25` (pause), `--critical-load` default `Threads_running=50` (abort), `--max-lag` default 1 s
 * (pause while a replica lags), `--check-interval` default 1 s. Mapped to MongoDB's serverStatus and replSetGetStatus:
 *
 * | metric  | read from                                                                  | pause above | stop above |
 * |---------|----------------------------------------------------------------------------|-------------|------------|
 * | active  | globalLock.activeClients.total, else connections.active (Threads_running)   | 25          | 50         |
 * | queued  | globalLock.currentQueue.total (operations waiting for a ticket or lock)     | 10          | 50         |
 * | dirty   | wiredTiger.cache "tracked dirty bytes in the cache" / "maximum bytes configured" | 0.05   | 0.20       |
 * | lag     | replSetGetStatus: primary optimeDate − slowest secondary's, in seconds       | 1           | (pause only)
 * |
 *
 * `active`, `queued` and `lag` are pt-online-schema-change's figures (Threads_running counts running and waiting
 * threads, which MongoDB splits into active clients and queues; a queue means every ticket is taken, so it pauses
 * sooner). `dirty` follows WiredTiger's eviction settings: above `eviction_dirty_target` (5%) background eviction is
 * behind; above `eviction_dirty_trigger` (20%) the user's own threads are drafted into eviction, so writing more is
 * harm. A metric the server does not report is not throttled on (the run says which were read).
 */
export interface LoadLimits {
  active: number;
  queued: number;
  dirty: number;
  lag: number;
}

export const MAX_LOAD: LoadLimits = { active: 25, queued: 10, dirty: 0.05, lag: 1 };
export const CRITICAL_LOAD: Omit<LoadLimits, 'lag'> = { active: 50, queued: 50, dirty: 0.2 };
/** pt-online-schema-change's --check-interval. */
export const CHECK_INTERVAL_MS = 1000;
/** How long a pause may last before confirmation stops. */
export const MAX_PAUSE_MS = 60_000;

export type LoadReading = Partial<LoadLimits>;

/** `--max-load active=25,queued=10,dirty=0.05,lag=1`: any subset; the rest keep their defaults. */
export function parseMaxLoad(text: string): LoadLimits {
  const out = { ...MAX_LOAD };
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(active|queued|dirty|lag)\s*[=:]\s*(\d+(?:\.\d+)?)$/.exec(part);
    if (!m)
      throw new Error(
        `--max-load: "${part}" is not <metric>=<number> with a metric among active, queued, dirty, lag ` +
          `(e.g. active=25,queued=10,dirty=0.05,lag=1)`,
      );
    out[m[1] as keyof LoadLimits] = Number(m[2]);
  }
  return out;
}

export function formatLimits(l: LoadLimits): string {
  return `active=${l.active},queued=${l.queued},dirty=${l.dirty},lag=${l.lag}`;
}

const num = (v: unknown): number | undefined => {
  const n =
    typeof v === 'object' && v !== null && 'toNumber' in v ? (v as { toNumber(): number }).toNumber() : Number(v);
  return v === undefined || v === null || !Number.isFinite(n) ? undefined : n;
};

/** What serverStatus says about load (only the metrics it reports). */
export function loadFromServerStatus(s: Doc): LoadReading {
  const out: LoadReading = {};
  const gl = s.globalLock as Doc | undefined;
  const active = num((gl?.activeClients as Doc | undefined)?.total) ?? num((s.connections as Doc | undefined)?.active);
  if (active !== undefined) out.active = active;
  const queued = num((gl?.currentQueue as Doc | undefined)?.total);
  if (queued !== undefined) out.queued = queued;
  const cache = (s.wiredTiger as Doc | undefined)?.cache as Doc | undefined;
  const dirty = num(cache?.['tracked dirty bytes in the cache']);
  const max = num(cache?.['maximum bytes configured']);
  if (dirty !== undefined && max !== undefined && max > 0) out.dirty = dirty / max;
  return out;
}

/** Replication lag in seconds from replSetGetStatus: the primary's optime against the slowest secondary's. */
export function lagFromReplStatus(r: Doc): number | undefined {
  const members = (r.members as Doc[] | undefined) ?? [];
  const time = (m: Doc): number | undefined => {
    const d = m.optimeDate;
    return d instanceof Date ? d.getTime() : typeof d === 'string' ? Date.parse(d) : undefined;
  };
  const primary = members.find((m) => m.stateStr === 'PRIMARY');
  const p = primary ? time(primary) : undefined;
  if (p === undefined) return undefined;
  const lags = members
    .filter((m) => m.stateStr === 'SECONDARY')
    .map(time)
    .filter((t): t is number => t !== undefined)
    .map((t) => (p - t) / 1000);
  return lags.length ? Math.max(0, ...lags) : 0;
}

/** The metrics above their pause limit, as `active=31>25`; empty when none is. */
export function overLimits(r: LoadReading, limits: LoadLimits | Omit<LoadLimits, 'lag'>): string[] {
  const over: string[] = [];
  for (const k of ['active', 'queued', 'dirty', 'lag'] as const) {
    const v = r[k];
    const l = (limits as Partial<LoadLimits>)[k];
    if (v !== undefined && l !== undefined && v > l)
      over.push(`${k}=${k === 'dirty' ? v.toFixed(3) : String(Math.round(v * 100) / 100)}>${l}`);
  }
  return over;
}

/** Thrown when the load stays too high: confirmation stops, the scratch database is dropped. */
export class LoadAbort extends Error {
  override name = 'LoadAbort';
}

export interface LoadGuardOptions {
  limits?: LoadLimits;
  intervalMs?: number;
  maxPauseMs?: number;
  signal?: AbortSignal;
  /** Told on each pause and resume (progress lines). */
  log?: (line: string) => void;
  /** For tests of the decision alone: the reading, instead of serverStatus. */
  read?: () => Promise<LoadReading>;
}

/** Reads the load of the server experiments write to, through a read-only adapter (serverStatus, replSetGetStatus). */
export class LoadGuard {
  readonly limits: LoadLimits;
  private lastCheck = -Infinity;
  private readonly intervalMs: number;
  private readonly maxPauseMs: number;
  /** Metrics the server reported at least once. */
  readonly seen = new Set<keyof LoadLimits>();
  /** Total time spent paused (ms). */
  pausedMs = 0;
  private replicaSet: boolean | null = null;

  constructor(
    private readonly adapter: Adapter | null,
    private readonly opts: LoadGuardOptions = {},
  ) {
    this.limits = opts.limits ?? MAX_LOAD;
    this.intervalMs = opts.intervalMs ?? CHECK_INTERVAL_MS;
    this.maxPauseMs = opts.maxPauseMs ?? MAX_PAUSE_MS;
  }

  async read(): Promise<LoadReading> {
    if (this.opts.read) return await this.opts.read();
    if (!this.adapter) return {};
    const r: LoadReading = {};
    try {
      Object.assign(r, loadFromServerStatus(await this.adapter.command('admin', { serverStatus: 1 })));
    } catch {
      // a server without serverStatus: nothing to throttle on
    }
    if (this.replicaSet !== false) {
      try {
        const lag = lagFromReplStatus(await this.adapter.command('admin', { replSetGetStatus: 1 }));
        this.replicaSet = true;
        if (lag !== undefined) r.lag = lag;
      } catch {
        this.replicaSet = false; // not a replica set, or not allowed: not asked again
      }
    }
    for (const k of Object.keys(r) as (keyof LoadLimits)[]) this.seen.add(k);
    return r;
  }

  /**
   * Returns when the load is under the limits; waits (every intervalMs) while it is above; throws LoadAbort when it
   * passes the critical level or stays above for maxPauseMs. `force` reads even if the last reading is recent.
   */
  async check(force = false): Promise<void> {
    const now = performance.now();
    if (!force && now - this.lastCheck < this.intervalMs) return;
    this.lastCheck = now;
    const started = now;
    let reading = await this.read();
    let over = overLimits(reading, this.limits);
    let told = false;
    while (over.length) {
      const critical = overLimits(reading, CRITICAL_LOAD);
      if (critical.length)
        throw new LoadAbort(
          `stopped confirming: the server's load is past the critical level (${critical.join(', ')}; ` +
            `critical levels ` +
            `active=${CRITICAL_LOAD.active},queued=${CRITICAL_LOAD.queued},dirty=${CRITICAL_LOAD.dirty}); ` +
            `nothing more is written, and the scratch database is dropped. Rerun when the server is quieter.`,
        );
      const waited = performance.now() - started;
      if (waited >= this.maxPauseMs)
        throw new LoadAbort(
          `stopped confirming: the server's load stayed above --max-load for ${Math.round(waited / 1000)} s ` +
            `(${over.join(', ')}; --max-load ${formatLimits(this.limits)}); nothing more is written, and the ` +
            `scratch database is dropped. Rerun when the server is quieter, or raise --max-load.`,
        );
      if (this.opts.signal?.aborted) return;
      if (!told)
        this.opts.log?.(`pausing: the server is busy (${over.join(', ')}; --max-load ${formatLimits(this.limits)})`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      reading = await this.read();
      over = overLimits(reading, this.limits);
    }
    if (told) {
      this.pausedMs += performance.now() - started;
      this.opts.log?.('resuming: the server load is back under --max-load');
    }
    this.lastCheck = performance.now();
  }
}
