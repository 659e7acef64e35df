import type { Adapter, Doc } from '../core/adapter';
import type { Snapshot } from '../core/types';
import type { Budget } from './harness';
import type { Scratch } from './scratch';

export interface ConfirmSettings {
  /** Most documents copied from a collection into scratch (default 5,000). */
  maxDocs: number;
  /**
   * Whether `maxDocs` is the user's choice (`--confirm-docs`, or `maxDocs` given to the API) rather than the default.
   * Only then does it bound an experiment that asks to copy past it (`pastMaxDocs`: the index proof).
   */
  maxDocsChosen?: boolean;
  /** Most bytes copied from a collection into scratch (default 32 MiB). */
  maxBytes: number;
  /**
   * Time budget per finding (default 30 s, `--confirm-budget`). Experiments slice it between their arms; paired arms
   * (`alternate`) run a warm-up and 7 rounds, and up to 21 while the ratio's interval still holds 1 (or a rule's
   * noise threshold) and their slice lasts: the extra rounds never go past it.
   */
  budgetMs: number;
}

export const CONFIRM_DEFAULTS: ConfirmSettings = { maxDocs: 5000, maxBytes: 32 * 1024 * 1024, budgetMs: 30_000 };

export type { ConfirmContext } from '../core/rule';

declare module '../core/rule' {
  /** What a rule's experiment gets: a read-only way to copy sample documents, and the scratch database to write in. */
  interface ConfirmContext {
    /**
     * The inspected server, read-only (src/adapters/read-only.ts): reading commands only; anything else throws
     * before it reaches the server.
     */
    source: Adapter;
    /** The only way to write: commands to the scratch database, and nothing outside it. */
    scratch: Scratch;
    snapshot: Snapshot;
    settings: ConfirmSettings;
    budget: Budget;
    /**
     * Reads up to `limit` documents of a source collection ($sample where available), bounded by maxBytes and by
     * maxDocs; with `pastMaxDocs`, by maxDocs only when the user chose it (`maxDocsChosen`) or when the collection's
     * average document size is unknown (the byte bound could not be kept otherwise). `avgBytes`: the average
     * document size the caller measured on documents it read within maxDocs, used when the snapshot has none.
     */
    sourceDocs(
      db: string,
      collection: string,
      opts?: { limit?: number; filter?: Doc; pastMaxDocs?: boolean; avgBytes?: number },
    ): Promise<Doc[]>;
    /** Progress line (shown on a TTY). */
    log(line: string): void;
  }
}
