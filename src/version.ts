declare const __VERSION__: string | undefined;
/** Replaced at build time by esbuild; read from package.json under vitest. */
export const VERSION: string =
  typeof __VERSION__ === 'string' ? __VERSION__ : (require('../package.json') as { version: string }).version;
