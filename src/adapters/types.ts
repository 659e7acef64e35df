import type { Doc } from '../core/adapter';

export type {
  Adapter,
  BsonKit,
  CommandOptions,
  CursorOptions,
  CursorRead,
  Doc,
  ReadPreferenceMode,
} from '../core/adapter';
export { asServerError, describeServerError, type ServerError } from '../lib/server-error';

/** A command as the product names it: its name (first key), the first stage of an aggregate, what an explain
 * explains. */
export interface CommandShape {
  name: string;
  /** The first stage of `pipeline` (`$collStats`, `$indexStats`, `$sample`…), when the command has one. */
  stage?: string;
  /** For `explain`: the explained command's name (`find`, `delete`…). */
  explained?: string;
}

export function commandShape(cmd: Doc): CommandShape {
  const name = Object.keys(cmd)[0] ?? '';
  const first = Array.isArray(cmd.pipeline) ? (cmd.pipeline[0] as unknown) : undefined;
  const stage = typeof first === 'object' && first !== null ? Object.keys(first)[0] : undefined;
  const inner =
    name === 'explain' && typeof cmd.explain === 'object' && cmd.explain !== null
      ? Object.keys(cmd.explain)[0]
      : undefined;
  return { name, ...(stage !== undefined ? { stage } : {}), ...(inner !== undefined ? { explained: inner } : {}) };
}

/** One label per command for notes and tests: `aggregate $indexStats`, `explain delete`, `find`. */
export function commandLabel(cmd: Doc): string {
  const { name, stage, explained } = commandShape(cmd);
  return [name, stage ?? explained].filter(Boolean).join(' ');
}
