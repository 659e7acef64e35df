/**
 * `lint --queries <file> <uri>`: each query shape explained by the server at queryPlanner (the plan is chosen, nothing
 * runs), through the read-only gate. Only the winning plan's stage names are kept; the reply's parsed query and the
 * server's error messages can hold the queries' values, and are never read or printed (an error is named by its code).
 */
import { readOnly } from '../adapters/read-only';
import type { Adapter } from '../core/adapter';
import type { Note } from '../core/types';
import { planFacts } from '../lib/explain';
import { asServerError } from '../lib/server-error';
import { explainCommandOf, type QueryEntry, type WinningPlan } from '../spec/queries';

export interface ExplainedQueries {
  /** The winning plan's stages and index names by shape id; a shape without one is judged offline. */
  plans: Map<string, WinningPlan>;
  notes: Note[];
}

function winningPlan(reply: Record<string, unknown>): WinningPlan {
  const planner = reply.queryPlanner as Record<string, unknown> | undefined;
  // An aggregate's plan sits under its first stage ($cursor) or, sharded, under shards; planFacts walks it whole.
  return planFacts(planner?.winningPlan ?? reply);
}

function offlineNote(count: number, total: number, why: string): Note {
  return {
    level: 'info',
    message: `${count} of the ${total} query shapes were judged offline against the live indexes: ${why}.`,
  };
}

/** Explains every shape whose command can be; says in notes which were judged offline instead, and why. */
export async function explainQueries(
  adapter: Adapter,
  entries: readonly QueryEntry[],
  readPreference?: 'primary' | 'secondaryPreferred',
): Promise<ExplainedQueries> {
  const gate = readOnly(adapter, readPreference ? { readPreference } : {});
  const plans = new Map<string, WinningPlan>();
  let noStage = 0;
  let lookups = 0;
  const failed = new Map<string, number>();
  for (const e of entries) {
    const cmd = explainCommandOf(e);
    if (!cmd) {
      lookups++;
      continue;
    }
    try {
      const plan = winningPlan(await gate.command(e.shape.db, { ...cmd }));
      if (plan.stages.length) plans.set(e.shape.id, plan);
      else noStage++;
    } catch (err) {
      const s = asServerError(err);
      const name = s.codeName ?? (s.code !== undefined ? `error ${s.code}` : 'an error');
      failed.set(name, (failed.get(name) ?? 0) + 1);
    }
  }
  const notes: Note[] = [];
  const n = entries.length;
  if (noStage) notes.push(offlineNote(noStage, n, "the server's explain named no plan stage"));
  if (lookups) notes.push(offlineNote(lookups, n, "they are a $lookup's reads of another collection"));
  if (failed.size) {
    const names = [...failed].map(([k, c]) => `${k} ×${c}`).join(', ');
    notes.push(
      offlineNote(
        [...failed.values()].reduce((a, b) => a + b, 0),
        n,
        `the server refused to explain them (${names})`,
      ),
    );
  }
  return { plans, notes };
}
