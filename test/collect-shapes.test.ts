import { describe, expect, it } from 'vitest';
import { collectionType, validatorOf } from '../src/collect';

// listCollections entries as MongoDB's manual shows them (db.runCommand({listCollections: 1}))
const view = {
  name: 'recent',
  type: 'view',
  options: { viewOn: 'posts', pipeline: [{ $match: {} }] },
  info: { readOnly: true },
};
const timeseries = {
  name: 'weather',
  type: 'timeseries',
  options: {
    timeseries: { timeField: 'timestamp', metaField: 'metadata', granularity: 'hours', bucketMaxSpanSeconds: 2592000 },
  },
  info: { readOnly: false },
};
const withValidator = {
  name: 'students',
  type: 'collection',
  options: {
    validator: {
      $jsonSchema: { bsonType: 'object', required: ['name'], properties: { name: { bsonType: 'string' } } },
    },
    validationLevel: 'moderate',
    validationAction: 'warn',
  },
};
const queryValidator = {
  name: 'contacts',
  type: 'collection',
  options: { validator: { $or: [{ phone: { $type: 'string' } }, { email: { $regex: '@mongodb\\.com$' } }] } },
};

describe('collection shapes from listCollections', () => {
  it('tells views and time-series collections apart from regular ones', () => {
    expect(collectionType(view)).toBe('view');
    expect(collectionType(timeseries)).toBe('timeseries');
    expect(collectionType({ name: 'c', type: 'collection', options: {} })).toBe('collection');
  });
  it('keeps the $jsonSchema and the validation settings', () => {
    const v = validatorOf(withValidator.options);
    expect(v).toMatchObject({ present: true, validationLevel: 'moderate', validationAction: 'warn' });
    expect(v.jsonSchema?.required).toEqual(['name']);
  });
  it('records only operator names for query-operator validators, never their values', () => {
    const v = validatorOf(queryValidator.options);
    expect(v).toEqual({ present: true, queryOperators: ['$or'] });
    expect(JSON.stringify(v)).not.toContain('mongodb');
  });
});
