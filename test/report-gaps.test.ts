import { describe, expect, it } from 'vitest';
import { COLLSTATS_ZERO_SIZES, gapOf } from '../src/core/gaps';
import type { CheckResult, Note } from '../src/core/types';
import { collapseGaps } from '../src/report/group';
import { formatHtml } from '../src/report/html';
import { ticketSummary } from '../src/report/html-data';
import { formatJson } from '../src/report/json';
import { formatMarkdown } from '../src/report/markdown';
import { formatText } from '../src/report/text';
import { runNotes } from '../src/collect/index';
import { outlierSearch } from '../src/collect/outliers';
import { checkResultOf, collectionOf, sampleOf, snapshotOf, withData } from './support/fixtures';

// One server gap ($collStats reading 0 bytes, as SecantusDB does) reported by the core read and by index-usage, as
// `check` gathers them (rules' notes first), between notes of other causes.
const CORE: Note = {
  level: 'skipped',
  target: { db: 'app' },
  message:
    'storage sizes were not read (2 collections: posts, users): $collStats counted their documents but reported ' +
    '0 bytes of data and storage, so their sizes are unknown, not 0 B',
  gap: gapOf(COLLSTATS_ZERO_SIZES, 'storage sizes of 2 collections: posts, users'),
};
const RULE: Note = {
  level: 'skipped',
  ruleId: 'index-usage',
  target: { db: 'app' },
  message:
    'index-usage: index sizes could not be read for 2 collections (posts, users: $collStats gave no index ' +
    'sizes for them), ' +
    'so they were not compared with the cache.',
  gap: gapOf(COLLSTATS_ZERO_SIZES, 'indexes against the WiredTiger cache'),
};
const OTHER: Note = {
  level: 'skipped',
  ruleId: 'compression',
  message: 'compression: no wiredTiger.creationString, so the block compressor could not be read',
};
const ALONE: Note = {
  level: 'skipped',
  ruleId: 'x',
  message: 'x: a gap only one place hit',
  gap: { key: 'only-here', cause: 'the cause', effect: 'one thing' },
};

const result = (notes: Note[]): CheckResult => checkResultOf([], { notes });
/** The lines of a report that state the gap: there must be exactly one. */
const GAP_WORDS = /reported sizes of 0 bytes|0 bytes of data and storage|index sizes could not be read/;
const gapLines = (out: string): string[] => out.split('\n').filter((l) => GAP_WORDS.test(l));

/** The HTML page's "Could not check" list, one item per line. */
const section = (html: string): string =>
  (html.split('<h2>Could not check</h2>')[1] ?? '').split('</ul>')[0]?.replace(/<li>/g, '\n<li>') ?? '';

describe('server gaps: one line per gap in the human reports', () => {
  it('collapses the notes of one gap where the first stood, naming every place; others pass as they are', () => {
    const out = collapseGaps([RULE, OTHER, CORE, ALONE]);
    expect(out).toHaveLength(3);
    expect(out[0]?.message).toBe(
      '$collStats counted documents but reported sizes of 0 bytes: this server does not measure them, so those sizes ' +
        'are unknown, not 0 B. Not checked because of it: storage sizes of 2 collections: posts, users; ' +
        'index-usage: indexes against the WiredTiger cache.',
    );
    expect(out[0]?.target).toEqual({ db: 'app' });
    expect(out.slice(1)).toEqual([OTHER, ALONE]);
  });

  it('prints the gap once in text, Markdown, HTML and the ticket summary; JSON keeps both notes whole', () => {
    const r = result([RULE, OTHER, CORE, ALONE]);
    const outputs = {
      // the terminal wraps an item over several lines: one item per line here
      text: formatText(r, { color: false }).replace(/\n {2}(?!- )/g, ' '),
      markdown: formatMarkdown(r),
      // the section itself (the page also embeds the ticket summary, checked on its own below)
      html: section(formatHtml({ result: r, snapshot: snapshotOf([]) })),
      ticket: ticketSummary({ result: r, snapshot: snapshotOf([]) }),
    };
    for (const [name, out] of Object.entries(outputs)) {
      const lines = gapLines(out);
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toContain('index-usage: indexes against the WiredTiger cache');
      expect(lines[0], name).toContain('storage sizes of 2 collections');
      expect(out, name).toContain('a gap only one place hit');
    }
    expect(outputs.ticket).toContain('Not checked (3):');
    const json = JSON.parse(formatJson(r)) as { notes: Note[] };
    expect(json.notes.map((n) => n.message)).toEqual([RULE, OTHER, CORE, ALONE].map((n) => n.message));
  });

  it('keeps notes of one gap apart when their levels differ', () => {
    const info: Note = { ...RULE, level: 'info' };
    expect(collapseGaps([CORE, info])).toEqual([CORE, info]);
  });
});

// Audit 2026-11-26, item 12: in a run over several databases a line with no target named no collection ("the
// largest documents … (1 collection)"). Every line that concerns a collection names it.
describe('gap and run-wide lines name where they apply', () => {
  it('a gap across databases names each place beside its effect', () => {
    const zero = (db: string, collection: string): Note => ({
      level: 'skipped',
      ruleId: 'index-usage',
      target: { db, collection },
      message: `index-usage: index sizes could not be read for ${collection}`,
      gap: gapOf(COLLSTATS_ZERO_SIZES, 'indexes against the WiredTiger cache'),
    });
    const [line] = collapseGaps([zero('app', 'users'), zero('shop', 'orders'), zero('shop', 'carts')]);
    expect(line?.target).toBeUndefined();
    expect(line?.message).toContain(
      'Not checked because of it: index-usage: indexes against the WiredTiger cache (app.users, shop.orders, ' +
        'shop.carts).',
    );
    // on one database the line targets it, and each effect names its collections
    const [one] = collapseGaps([zero('shop', 'orders'), zero('shop', 'carts')]);
    expect(one?.target).toEqual({ db: 'shop' });
    expect(one?.message).toContain('index-usage: indexes against the WiredTiger cache (orders, carts).');
  });

  it('the run-wide notes of collect name db.collection when the run spans databases', () => {
    const unsupported = { status: 'unsupported' as const, reason: 'the server lacks $bsonSize', docs: [] };
    const byIds = { ...sampleOf([]), method: 'random-ids' as const };
    const users = withData(collectionOf('users', { sample: byIds }), outlierSearch, unsupported);
    const orders = { ...withData(collectionOf('orders'), outlierSearch, unsupported), db: 'shop' };
    const snap = snapshotOf([users], {
      databases: [
        { name: 'app', collections: [users] },
        { name: 'shop', collections: [orders] },
      ],
    });
    const notes: Note[] = [];
    runNotes(snap, notes);
    const text = formatText(checkResultOf([], { notes }), { color: false }).replace(/\n {2}(?!- )/g, ' ');
    expect(text).toContain(
      '- the largest documents and longest arrays were not searched for beyond the samples (2 collections: ' +
        'app.users, shop.orders): the server lacks $bsonSize; the largest sampled ones are lower bounds',
    );
    expect(text).toContain('fetched by _id, not with $sample (1 collection: app.users)');
    expect(notes.every((n) => n.target === undefined)).toBe(true);
    // one database: the note targets it, and the names go without it
    const single: Note[] = [];
    runNotes(snapshotOf([users]), single);
    expect(single[1]).toMatchObject({ target: { db: 'app' } });
    expect(single[1]?.message).toContain('(1 collection: users)');
  });
});
