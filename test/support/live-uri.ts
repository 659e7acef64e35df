import { inject } from 'vitest';

/**
 * The URI of the live server this file runs on: its worker's own where the project started one per worker
 * (test/global-setup.ts, serversFor), else the project's one. A file runs whole in one worker, so every call in it
 * names the same server, and the programs it starts are handed that URI.
 */
export function liveUri(): string {
  const uris = inject('mongoUris');
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  const i = Number.isInteger(worker) && worker >= 1 ? (worker - 1) % uris.length : 0;
  return uris[i] as string;
}
