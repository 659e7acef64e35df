import { QUERY_RULES } from './query-rules';
import type { Severity } from './types';

/**
 * Checks on a declared spec (src/spec): they are not snapshot rules (they read the spec), but they report like one.
 * Their catalog lives in the core because the configuration names them (severities) and the reporters list them.
 */
export interface SpecRuleMeta {
  id: string;
  description: string;
  severity: Severity;
  docsUrl: string;
  /** Message templates by message id (`{{name}}` placeholders), for checks whose findings are filled from them. */
  messages?: Readonly<Record<string, string>>;
}

export const SPEC_RULES: readonly SpecRuleMeta[] = [
  ...QUERY_RULES,
  {
    id: 'spec-clustered-key',
    description:
      'A declared clustered collection whose key or options MongoDB refuses, or whose _id is random ' +
      '(inserts land all over the tree)',
    severity: 'error',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
  },
  {
    id: 'spec-drift',
    description:
      'The live deployment differs from the declared spec: collections or indexes missing, undeclared, or ' +
      'with other options',
    severity: 'warn',
    docsUrl: 'https://www.mongodb.com/docs/manual/reference/method/db.collection.getIndexes/',
  },
  {
    id: 'spec-invalid-validator',
    description:
      'A declared validator the server would refuse: unknown $jsonSchema keywords or bsonTypes, or query ' +
      'operators not allowed in validators',
    severity: 'error',
    docsUrl: 'https://www.mongodb.com/docs/manual/reference/operator/query/jsonSchema/',
  },
  {
    id: 'spec-redundant-index',
    description:
      'A declared index that another declared index makes redundant (same keys, or a prefix of a compound index)',
    severity: 'warn',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/indexes/index-types/index-compound/#index-prefixes',
  },
];
