// The path folder moved to src/core/fold.ts (the configuration's `maps` options are its thresholds, and the core
// imports only src/lib); kept so collect's modules and callers that import it from here keep working.
export * from '../core/fold';
