import { describe, expect, it } from 'vitest';
import type { Doc } from '../src/core/adapter';
import { resolveOptions } from '../src/core/options';
import mixedTypes from '../rules/mixed-types';
import validator, { type ValidatorOptions } from '../rules/validator';
import { validatorCollector } from '../rules/validator/collect';
import { compileJsonSchema } from '../rules/validator/json-schema';
import { plainSchema, proposeSchema } from '../rules/validator/propose';
import { collectFromDocs, runRule } from './support/rule-tester';

// The audit's item 8 (shipwrecks): `depth` is a number in some documents and a blank string in most. mixed-types
// recommends `$unset` of the blanks; the validator's proposal must accept every document before that cleanup and
// after it, in either order. Made-up documents, fields only.
const docs: Doc[] = Array.from({ length: 40 }, (_, i) => ({
  _id: i,
  feature_type: 'wreck',
  depth: i % 4 === 0 ? i * 1.5 : i % 8 === 1 ? ' ' : '',
  latdec: i / 10,
}));
const cleaned = docs.map((d) => {
  const { depth, ...rest } = d;
  return typeof depth === 'string' ? rest : d;
});

describe('mixed-types and validator agree on blank strings standing for no value', () => {
  it('mixed-types removes the blanks, and the proposed validator passes every document before and after', async () => {
    const { snapshot } = await collectFromDocs(validatorCollector, docs, { name: 'shipwrecks' });
    const blank = runRule(mixedTypes, snapshot).find((f) => f.target.path === 'depth');
    expect(blank?.messageId).toBe('blankStrings');
    // a rewrite of the documents: a later step, once the application leaves the field out instead of a blank
    expect(blank?.recommendation?.later?.commands.join('\n')).toContain('$unset: { "depth": "" }');

    const c = snapshot.databases[0]?.collections[0];
    if (!c) throw new Error('no collection');
    const o = resolveOptions<ValidatorOptions>('validator', validator.meta.options, {});
    const schema = proposeSchema(c, o)?.schema as { required: string[] } | undefined;
    expect(schema?.required).toEqual(['_id', 'feature_type', 'latdec']);
    const check = compileJsonSchema(plainSchema(schema) as Doc);
    try {
      expect(docs.map((d) => check.check(d)).flat()).toEqual([]);
      expect(cleaned.map((d) => check.check(d)).flat()).toEqual([]);
    } finally {
      check.dispose();
    }
    const proposal = runRule(validator, snapshot)[0];
    expect(proposal?.recommendation?.reason).toContain('mixed-types rule proposes to remove with `$unset`');
    expect(proposal?.evidence.blanksOptional).toBe(1);
  });
});
