/** The dynamic-keys experiment's pure parts: the attribute rewrite, the keys it asks for, and reading the plan. */
import { describe, expect, it } from 'vitest';
import { reply as sbeClusteredScan } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-sbe';
import { asAttributes, planUses, probeKeys } from './confirm';

describe('dynamic-keys confirmation (pure)', () => {
  it(
    'rewrites the map at the path as [{k, v}], leaving the rest of the document and other documents as they ' + 'are',
    () => {
      const doc = { _id: 1, cart: { itemsBySku: { 'SKU-1': 2, 'SKU-2': { n: 1 } }, total: 3 }, status: 'open' };
      expect(asAttributes(doc, ['cart', 'itemsBySku'])).toEqual({
        _id: 1,
        cart: {
          itemsBySku: [
            { k: 'SKU-1', v: 2 },
            { k: 'SKU-2', v: { n: 1 } },
          ],
          total: 3,
        },
        status: 'open',
      });
      expect(doc.cart.itemsBySku).toEqual({ 'SKU-1': 2, 'SKU-2': { n: 1 } });
      expect(asAttributes({ _id: 2, cart: null }, ['cart', 'itemsBySku'])).toEqual({ _id: 2, cart: null });
    },
  );

  it('asks for keys spread over the distinct keys, only keys a dotted path can name, at most 20', () => {
    const docs = Array.from({ length: 100 }, (_, i) => ({
      m: { [`K${String(i).padStart(3, '0')}`]: 1, 'a.b': 1, $x: 1 },
    }));
    const keys = probeKeys(docs, ['m']);
    expect(keys).toHaveLength(20);
    expect(keys[0]).toBe('K000');
    expect(keys[19]).toBe('K095');
    expect(keys.some((k) => k.includes('.') || k.startsWith('$'))).toBe(false);
    expect(probeKeys([{ m: { a: 1 } }, { m: { b: 1 } }], ['m'])).toEqual(['a', 'b']);
  });

  it(
    'reads whether the plan used the index: named (true), a MongoDB plan without it (false), no MongoDB plan ' +
      '(null)',
    () => {
      // The shape of a classic IXSCAN under FETCH, as MongoDB's manual shows it
      // (https://www.mongodb.com/docs/manual/reference/explain-results/)
      const ixscan = {
        queryPlanner: {
          winningPlan: {
            stage: 'FETCH',
            inputStage: {
              stage: 'IXSCAN',
              keyPattern: { 'm.k': 1, 'm.v': 1 },
              indexName: 'attributes_k_v',
              isMultiKey: true,
            },
          },
          rejectedPlans: [],
        },
      };
      expect(planUses(ixscan, 'attributes_k_v')).toBe(true);
      // an index named only among the rejected plans was not used
      const rejected = {
        queryPlanner: {
          winningPlan: { stage: 'COLLSCAN' },
          rejectedPlans: [{ stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'attributes_k_v' } }],
        },
      };
      expect(planUses(rejected, 'attributes_k_v')).toBe(false);
      // the slot-based engine's layout (fixture from MongoDB's jstests): stages under queryPlan, no index of ours
      expect(planUses(sbeClusteredScan, 'attributes_k_v')).toBe(false);
      // FerretDB 1.24 (SQLite), measured here 2026-11-25: the plan is SQLite's text, with no stage or index name
      expect(
        planUses(
          {
            queryPlanner: { Plan: ['id=2 parent=0 notused=0 detail=SCAN p_f50c43ef'] },
            explainVersion: '1',
            filterPushdown: false,
            ok: 1,
          },
          'attributes_k_v',
        ),
      ).toBeNull();
      expect(planUses(null, 'attributes_k_v')).toBeNull();
    },
  );
});
