import type { Severity } from './types';

/**
 * The checks of `lint --queries` (src/spec/queries.ts): each query shape of a queries file against the indexes that
 * would serve it (declared in a spec, in a snapshot, or explained by a live server). They report like the spec checks
 * (src/core/spec-rules.ts lists them with those), and a configuration sets their severities the same way.
 *
 * One vocabulary whichever way a shape was judged: a collection scan is `scan` and an in-memory sort is `sort`, read
 * from the server's winning plan (online) or from the indexes a spec or snapshot holds (offline), so a SARIF result
 * and a baseline fingerprint name the problem, not the way it was found. `{{basis}}` says what it was judged from.
 */
export const QUERY_RULES = [
  {
    id: 'query-collection-scan',
    description: 'A query of the queries file that no index serves: the server reads the whole collection',
    severity: 'error' as Severity,
    docsUrl: 'https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/',
    messages: {
      scan: 'The query {{shape}} ({{where}}) reads the whole collection: no index serves it (judged from {{basis}}).',
      scanPlanned:
        "The query {{shape}} ({{where}}) reads the whole collection: the server's plan chose a collection scan, " +
        'although the index {{index}} could serve it (judged from {{basis}}).',
    },
  },
  {
    id: 'query-in-memory-sort',
    description: 'A query of the queries file whose sort no index gives: the server sorts the matches in memory',
    severity: 'warn' as Severity,
    docsUrl: 'https://www.mongodb.com/docs/manual/tutorial/sort-results-with-indexes/',
    messages: {
      sort:
        'The query {{shape}} ({{where}}) is sorted in memory: the index {{index}} bounds it but does not give its ' +
        'sort (judged from {{basis}}).',
      sortPlanned:
        "The query {{shape}} ({{where}}) is sorted in memory: the server's plan chose the index {{index}} and " +
        'sorts, although the index {{could}} gives the sort (judged from {{basis}}).',
    },
  },
  {
    id: 'query-partial-index',
    description: 'A query of the queries file that an index serves only in part (a field missing or out of ESR order)',
    severity: 'info' as Severity,
    docsUrl: 'https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/',
    messages: {
      partial: 'The query {{shape}} ({{where}}) is served only in part by the index {{index}}: {{gaps}}.',
    },
  },
  {
    id: 'query-unbounded-regex',
    description: 'A query of the queries file with an unanchored or case-insensitive regex, which no index can bound',
    severity: 'warn' as Severity,
    docsUrl: 'https://www.mongodb.com/docs/manual/reference/operator/query/regex/#index-use',
    messages: {
      caseInsensitive:
        'The query {{shape}} ({{where}}) matches {{path}} with a case-insensitive regex: no index can bound it, so ' +
        'every key or every document is read.',
      unanchored:
        'The query {{shape}} ({{where}}) matches {{path}} with an unanchored regex: no index can bound it, so every ' +
        'key or every document is read.',
    },
  },
] as const;
