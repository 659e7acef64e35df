/**
 * Lints with the project's ESLint configuration in a process of its own: test/layers.test.ts runs it so that the
 * typed lint (a TypeScript program of the whole project, built synchronously) never blocks the test worker, whose
 * calls to vitest time out after 60 s without an answer when it does (on a loaded machine it took over a minute).
 * Reads `{ cwd, files, texts: [{ text, filePath }] }` as JSON on stdin; prints `{ files: { <path>: messages },
 * texts: [messages] }` as JSON.
 */
import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';

const { cwd, files, texts } = JSON.parse(readFileSync(0, 'utf8'));
const eslint = new ESLint({ cwd });
const out = { files: {}, texts: [] };
for (const r of await eslint.lintFiles(files)) out.files[r.filePath] = r.messages;
for (const t of texts) out.texts.push((await eslint.lintText(t.text, { filePath: t.filePath }))[0]?.messages ?? []);
process.stdout.write(JSON.stringify(out));
