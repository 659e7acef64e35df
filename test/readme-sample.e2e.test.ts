/**
 * The README's sample output is what `check` prints for the demo blog's posts: its first ``` block is turned into a
 * pattern (figures and dates stand for any figure and a duration's unit for any unit, `…` for any text, line breaks
 * for any spacing, since the report wraps where its figures fall) and matched against a confirming run of the real CLI
 * on the same seed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { serverHeaderName } from './support/server-header';
import { runProcess } from './support/run';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

/** The README's first code block: the sample report. */
function sample(): string {
  const block = /```\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  if (!block?.[1]) throw new Error('README.md has no sample ``` block');
  return block[1];
}

/** One word of the sample as a pattern: any figure for a figure, any unit for a duration's unit, any text for `…`. */
function wordPattern(word: string): string {
  // A duration's unit follows its figure: 75 ms here may be 1.3 s on a slower machine.
  if (/^(µs|ms|s)$/.test(word)) return '(?:µs|ms|s)';
  return word
    .split('…')
    .map((part) =>
      part
        .split(/(\d[\d,.]*(?:-\d\d-\d\d)?)/)
        .map((piece, i) => (i % 2 === 1 ? '[\\d,.-]+' : piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join(''),
    )
    .join('[\\s\\S]*?');
}

/**
 * The longest start of the sample the printed report matches, word by word (any spacing between words, since the
 * report wraps where its figures fall): the whole sample when it matches, else up to the word that differs.
 */
function matchedPrefix(sampleText: string, printed: string): { words: number; of: number; next: string } {
  const words = sampleText.trim().split(/\s+/);
  let matched = 0;
  while (
    matched < words.length &&
    new RegExp(
      words
        .slice(0, matched + 1)
        .map(wordPattern)
        .join('\\s+'),
    ).test(printed)
  )
    matched++;
  return { words: matched, of: words.length, next: words[matched] ?? '' };
}

describe("the README's sample output (real CLI, live)", () => {
  const uri = liveUri();

  it("is what check prints for the demo blog's posts, figures aside", async () => {
    const run = await runProcess(
      process.execPath,
      // 15 s: the sample shows the push timed at 1,450 elements; with 8 s a loaded machine timed only 100.
      [CLI, 'check', uri, '--db', DB, '-c', 'posts', '--no-color', '-q', '--confirm-budget', '15'],
      { timeoutMs: 240_000, env: { MONGODB_URI: '' } },
    );
    expect(run.code, run.err).toBe(1);
    const printed = run.out.split(DB).join('mongo_advisor_demo_blog');
    // The header names the server as what buildInfo says it is: an imitation by its own name, mongod as MongoDB.
    const named = await serverHeaderName(uri);
    expect(printed.split('\n')[0]).toContain(named);
    const m = matchedPrefix(sample(), printed);
    expect(
      m.words,
      `the report differs from the README's sample at word ${m.words + 1} of ${m.of}, "${m.next}":\n${printed}`,
    ).toBe(m.of);
  }, 300_000);
});
