import type { Adapter, Doc } from '../../src/adapters/types';

export interface SentCommand {
  db: string;
  /** The command's name (its first key), with the first stage for an aggregate: `aggregate $collStats`. */
  label: string;
  name: string;
  cmd: Doc;
}

/**
 * A live adapter that records every command it is asked to send, in order, then sends it. Counts round trips the
 * way the inner adapter does; closing it leaves the inner adapter open (the test's fixture owns it).
 */
export function recordingAdapter(inner: Adapter): Adapter & { sent: SentCommand[] } {
  const sent: SentCommand[] = [];
  return {
    kind: inner.kind,
    source: inner.source,
    bson: inner.bson,
    get roundTrips() {
      return inner.roundTrips;
    },
    sent,
    async command(db: string, cmd: Doc): Promise<Doc> {
      const name = Object.keys(cmd)[0] ?? '';
      const stage = name === 'aggregate' ? ` ${Object.keys((cmd.pipeline as Doc[] | undefined)?.[0] ?? {})[0] ?? ''}` : '';
      sent.push({ db, name, label: `${name}${stage}`, cmd });
      return await inner.command(db, cmd);
    },
    close: async () => undefined,
  };
}
