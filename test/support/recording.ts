import {
  type Adapter,
  type CommandOptions,
  type CursorOptions,
  type CursorRead,
  type Doc,
  commandShape,
} from '../../src/adapters/types';

export interface SentCommand {
  db: string;
  /** The command's name (its first key), with the first stage for an aggregate: `aggregate $collStats`. */
  label: string;
  name: string;
  cmd: Doc;
  /** Opened through `Adapter.cursor`: the host's cursor sent its getMore and killCursors, not recorded here. */
  cursor?: true;
  /** The read preference the command was sent with (absent: the primary). */
  readPreference?: CommandOptions['readPreference'];
}

function labelOf(cmd: Doc): { name: string; label: string } {
  const { name, stage } = commandShape(cmd);
  return { name, label: name === 'aggregate' ? `${name} ${stage ?? ''}` : name };
}

/**
 * A live adapter that records every command it is asked to send, in order, then sends it. Counts round trips the
 * way the inner adapter does; closing it leaves the inner adapter open (the test's fixture owns it). Cursors go
 * through the inner adapter's `cursor` when it has one (the opening command is recorded, with `cursor: true`).
 */
export function recordingAdapter(inner: Adapter): Adapter & { sent: SentCommand[] } {
  const sent: SentCommand[] = [];
  const record = (db: string, cmd: Doc, opts: CommandOptions | undefined, cursor: boolean): void => {
    sent.push({
      db,
      ...labelOf(cmd),
      cmd,
      ...(cursor ? { cursor: true as const } : {}),
      ...(opts?.readPreference ? { readPreference: opts.readPreference } : {}),
    });
  };
  const innerCursor = inner.cursor?.bind(inner);
  return {
    kind: inner.kind,
    source: inner.source,
    bson: inner.bson,
    get roundTrips() {
      return inner.roundTrips;
    },
    sent,
    async command(db: string, cmd: Doc, opts?: CommandOptions): Promise<Doc> {
      record(db, cmd, opts, false);
      return await (opts ? inner.command(db, cmd, opts) : inner.command(db, cmd));
    },
    ...(innerCursor
      ? {
          async cursor(db: string, cmd: Doc, opts?: CursorOptions): Promise<CursorRead> {
            record(db, cmd, opts, true);
            return await innerCursor(db, cmd, opts);
          },
        }
      : {}),
    close: async () => undefined,
  };
}
