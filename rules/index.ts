import type { AnyRule } from '../src/core/rule';
import arrayGrowth from './array-growth';
import clusteredTrap from './clustered-trap';
import collectionCount from './collection-count';
import compression from './compression';
import documentSize from './document-size';
import dynamicKeys from './dynamic-keys';
import embedReference from './embed-reference';
import idPattern from './id-pattern';
import indexUsage from './index-usage';
import mixedTypes from './mixed-types';
import queryIndexes from './query-indexes';
import validator from './validator';

/**
 * The built-in rules, sorted by id: the one list. The engine names no rule; the front doors (src/cli, src/mongosh,
 * src/demo, src/index.ts) import this list and hand it in. test/rules-meta.test.ts keeps it, the folders and their
 * READMEs in step.
 */
export const rules: readonly AnyRule[] = [
  arrayGrowth,
  clusteredTrap,
  collectionCount,
  compression,
  documentSize,
  dynamicKeys,
  embedReference,
  idPattern,
  indexUsage,
  mixedTypes,
  queryIndexes,
  validator,
];
