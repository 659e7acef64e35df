// mongo-advisor for mongosh: `snippet load-all` (or snippet install) load()s this file, which defines `advisor`.
// The logic lives in advisor-core.cjs, reached through require() so mongosh's async rewriter leaves it alone.
require('module').createRequire(__filename)('./advisor-core.cjs').install(globalThis);
