import { describe, expect, it } from 'vitest';
import { jsonSchemaProblems } from '../src/spec/static';

describe('lint --spec: a declared $jsonSchema the server would refuse', () => {
  it('accepts a schema MongoDB takes, nested keywords included', () => {
    const schema = {
      bsonType: 'object',
      required: ['name', 'tags'],
      properties: {
        name: { bsonType: ['string', 'null'], minLength: 1, maxLength: 64, pattern: '^[a-z]' },
        tags: { bsonType: 'array', items: { bsonType: 'string' }, minItems: 0, additionalItems: false },
        price: { type: 'number', minimum: 0, exclusiveMinimum: true, multipleOf: 0.01 },
        status: { enum: ['a', 'b'] },
        meta: { bsonType: 'object', additionalProperties: { bsonType: 'int' }, patternProperties: { '^x-': {} } },
      },
      anyOf: [{ required: ['name'] }, { not: { required: ['tags'] } }],
    };
    expect(jsonSchemaProblems(schema)).toEqual([]);
  });

  it('names each refused keyword and value at its path, in order', () => {
    const schema = {
      $ref: '#/x',
      format: 'email',
      bsonType: 'text',
      type: ['integer', 'word'],
      required: ['a', 'a'],
      enum: [],
      properties: { a: { bsonType: 'nope' }, b: 3 },
      patternProperties: { '(': {} },
      allOf: [],
      oneOf: [{ minimum: 'x' }],
      not: { exclusiveMaximum: 1 },
      items: [{ maxItems: -1 }, { minProperties: 1.5 }],
      additionalProperties: { pattern: 1 },
      additionalItems: { pattern: '[' },
    };
    expect(jsonSchemaProblems(schema)).toEqual([
      '$jsonSchema: "$ref" is not supported by MongoDB\'s $jsonSchema',
      '$jsonSchema: "format" is not supported by MongoDB\'s $jsonSchema',
      '$jsonSchema.bsonType: "text" is not a BSON type alias',
      '$jsonSchema: "type" and "bsonType" cannot both be set',
      '$jsonSchema.type: "integer" is not supported; use bsonType "int" or "long"',
      '$jsonSchema.type: "word" is not a JSON type',
      '$jsonSchema.required must be a non-empty array of distinct field names',
      '$jsonSchema.enum must be a non-empty array',
      '$jsonSchema.properties.a.bsonType: "nope" is not a BSON type alias',
      '$jsonSchema.properties.b must be an object',
      '$jsonSchema.patternProperties: "(" is not a valid regular expression',
      '$jsonSchema.allOf must be a non-empty array of schemas',
      '$jsonSchema.oneOf[0].minimum must be a number',
      '$jsonSchema.not.exclusiveMaximum must be true or false (draft 4)',
      '$jsonSchema.items[0].maxItems must be a whole number, 0 or more',
      '$jsonSchema.items[1].minProperties must be a whole number, 0 or more',
      '$jsonSchema.additionalProperties.pattern must be a string',
      '$jsonSchema.additionalItems.pattern: "[" is not a valid regular expression',
    ]);
  });

  it('refuses what is not a schema, and unknown keywords', () => {
    expect(jsonSchemaProblems([], '$jsonSchema')).toEqual(['$jsonSchema must be an object']);
    expect(jsonSchemaProblems({ colour: 'red' })).toEqual(['$jsonSchema: unknown keyword "colour"']);
    expect(jsonSchemaProblems({ properties: [] })).toEqual(['$jsonSchema.properties must be an object']);
  });
});
