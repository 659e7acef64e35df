/*
 * One run, one resolution: check() resolves a rule's options once, and its collector, its analyze and its confirm
 * get that very object (the same frozen options, not three copies made from the settings).
 */
import { describe, expect, it } from 'vitest';
import { check, defineCollector, defineRule } from '../src/index';
import { useLiveDb } from './support/live-db';

const DB = 'ma_options_once';
const ID = 'acme-options-once';

/** What each step was handed. */
const seen: { collect: unknown[]; analyze: unknown[]; confirm: unknown[] } = { collect: [], analyze: [], confirm: [] };

const counter = defineCollector<{ limit: number }, 'collection'>({
  id: 'acme-options-counter',
  version: 1,
  scope: 'collection',
  description: 'no command: keeps the limit its rule was resolved with',
  schema: {
    type: 'object',
    required: ['limit'],
    additionalProperties: false,
    properties: { limit: { type: 'integer' } },
  },
  collect(ctx) {
    const mine = ctx.options?.get(ID);
    seen.collect.push(mine);
    return Promise.resolve({ limit: (mine as { limit?: number } | undefined)?.limit ?? -1 });
  },
});

const rule = defineRule({
  id: ID,
  needs: [counter],
  scope: 'collection',
  meta: {
    description: 'Reports the limit it was given',
    docsUrl: 'https://example.com/acme/options-once',
    severity: 'info',
    messages: { seen: 'limit {{limit}}' },
    options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, default: 5, description: 'How many at most, for the test.' },
      },
    },
    requires: { capabilities: [] },
  },
  analyze({ collection, options, report }) {
    if (!collection) return;
    seen.analyze.push(options);
    const target = { db: collection.db, collection: collection.name };
    report({ messageId: 'seen', target, data: { limit: options.limit }, evidence: {} });
  },
  confirm: {
    describe: 'nothing: records the options it was given',
    run(_ctx, _finding, options) {
      seen.confirm.push(options);
      return Promise.resolve({ status: 'supported' as const, summary: 'Recorded the options.', measurements: [] });
    },
  },
});

describe('options are resolved once per run and travel with it (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('items').insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
  });

  it('the collector, analyze and confirm get the same resolved object, and the snapshot records it', async () => {
    const settings = { only: [ID], rules: { [ID]: { options: { limit: 9 } } } };
    let recorded: unknown;
    const result = await check(live.adapter, {
      db: DB,
      extraRules: [rule],
      settings,
      budgetMs: 2_000,
      onSnapshot: (s) => (recorded = s.collectors.find((c) => c.id === counter.id)?.options),
    });
    expect(result.findings.map((f) => [f.message, f.confirmation?.status])).toEqual([['limit 9', 'supported']]);
    expect(seen.collect).toEqual([{ limit: 9 }]);
    const [once] = seen.collect;
    expect(Object.isFrozen(once)).toBe(true);
    // the very object, not an equal copy: nothing resolved the options a second time
    expect(seen.analyze).toHaveLength(1);
    expect(seen.analyze[0]).toBe(once);
    expect(seen.confirm).toHaveLength(1);
    expect(seen.confirm[0]).toBe(once);
    expect(recorded).toEqual({ [ID]: { limit: 9 } });
  });
});
