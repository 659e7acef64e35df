import { UserError } from '../core/errors';
import type { Snapshot } from '../core/types';
import { closest } from '../lib/suggest';

/**
 * `--time-field <field>` against the field census of what was sampled: a field no sampled document holds is an error
 * (with "did you mean" and the date fields there are), not a silent "no creation dates". Collections sampled empty
 * say nothing either way; `_id` (ObjectId timestamps) is always a field.
 */
export function checkTimeField(snapshot: Snapshot, field: string | undefined): void {
  if (field === undefined || field === '_id') return;
  const sampled = snapshot.databases.flatMap((d) => d.collections).filter((c) => c.sample.size > 0);
  if (sampled.length === 0) return;
  if (sampled.some((c) => Object.hasOwn(c.sample.fields, field))) return;
  const paths = new Set<string>();
  const dates = new Set<string>();
  for (const c of sampled) {
    for (const [path, profile] of Object.entries(c.sample.fields)) {
      paths.add(path);
      if ((profile.types.date ?? 0) > 0) dates.add(path);
    }
  }
  const guess = closest(field, [...dates]) ?? closest(field, [...paths]);
  const names = sampled.map((c) => `${c.db}.${c.name}`);
  throw new UserError(
    `--time-field ${JSON.stringify(field)} names no field of the documents sampled ` +
      `in ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}.` +
      `${guess === undefined ? '' : ` Did you mean "${guess}"?`} ` +
      (dates.size
        ? `Fields holding dates there: ${[...dates].slice(0, 10).join(', ')}.`
        : 'No sampled field holds dates: leave --time-field out, and creation times come from ObjectId _ids ' +
          'where there are some.'),
  );
}
