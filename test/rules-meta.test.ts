import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';

const RULES_DIR = join(__dirname, '..', 'rules');
const HEADINGS = ['## What it checks', '## Why', '## Options', '## Confirmation', '## When not to use it'];
const folders = readdirSync(RULES_DIR)
  .filter((f) => statSync(join(RULES_DIR, f)).isDirectory())
  .sort();

describe('rules, their folders, READMEs and rules/index.ts stay in step', () => {
  it('rules/index.ts lists every folder once, sorted by id', () => {
    const ids = rules.map((r) => r.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(folders);
  });

  it('rules/index.ts imports each rule from its own folder, one import per folder, sorted', () => {
    const source = readFileSync(join(RULES_DIR, 'index.ts'), 'utf8');
    const imported = [...source.matchAll(/^import \w+ from '\.\/([^']+)';$/gm)].map((m) => m[1]);
    expect(imported).toEqual(folders);
  });

  it('README.md lists every rule once in its rules table, and no rule that does not exist', () => {
    const table = readmeRulesTable(readFileSync(join(__dirname, '..', 'README.md'), 'utf8'));
    expect(
      rulesTableProblems(
        table,
        rules.map((r) => r.id),
      ),
    ).toEqual([]);
  });

  it('the README rules table check fails on a missing, doubled or unknown rule', () => {
    const ids = ['array-growth', 'validator'];
    const row = (id: string) => `| [\`${id}\`](rules/${id}/README.md) | finds | — |`;
    const head = '| rule | finds | confirmation |\n|---|---|---|';
    const readme = (...rows: string[]) => `# x\n\n${README_TABLE_HEADING}\n\n${head}\n${rows.join('\n')}\n\n## Next\n`;
    expect(rulesTableProblems(readmeRulesTable(readme(row('array-growth'), row('validator'))), ids)).toEqual([]);
    const missing = readmeRulesTable(readme(row('array-growth')));
    expect(rulesTableProblems(missing, ids)).toEqual(['rule validator is missing from the table']);
    const twice = readmeRulesTable(readme(row('array-growth'), row('validator'), row('validator')));
    expect(rulesTableProblems(twice, ids)).toEqual(['rule validator is listed 2 times']);
    const unknown = readmeRulesTable(readme(row('array-growth'), row('validator'), row('soft-deletes')));
    expect(rulesTableProblems(unknown, ids)).toEqual(['the table names soft-deletes, which is not in rules/index.ts']);
    const wrongLink = readmeRulesTable(readme(row('array-growth'), '| [`validator`](rules/validators/README.md) |'));
    const want = 'rules/validator/README.md';
    const wrong = `row validator links rules/validators/README.md, not ${want}`;
    expect(rulesTableProblems(wrongLink, ids)).toEqual([wrong]);
    const noLink = readmeRulesTable(readme(row('array-growth'), '| `validator` | finds | — |'));
    expect(rulesTableProblems(noLink, ids)).toEqual([`row validator links nothing, not ${want}`]);
    expect(() => readmeRulesTable('# no table here\n')).toThrow(`README.md has no "${README_TABLE_HEADING}" section`);
  });

  for (const rule of rules) {
    describe(rule.id, () => {
      it('has a README with the fixed headings, in order, naming every option', () => {
        const readme = readFileSync(join(RULES_DIR, rule.id, 'README.md'), 'utf8');
        let at = -1;
        for (const h of HEADINGS) {
          const i = readme.indexOf(`\n${h}\n`);
          expect(i, `${rule.id}/README.md lacks "${h}"`).toBeGreaterThan(at);
          at = i;
        }
        for (const name of Object.keys(rule.meta.options.properties))
          expect(readme, `${rule.id}/README.md does not document option ${name}`).toContain(`\`${name}\``);
      });
      it('links each finding to an https page: per-message pages name real message ids', () => {
        expect(rule.meta.docsUrl).toMatch(/^https:\/\//);
        for (const [id, url] of Object.entries((rule.meta.docsUrls ?? {}) as Record<string, string>)) {
          expect(Object.keys(rule.meta.messages as Record<string, string>), `${rule.id}.docsUrls.${id}`).toContain(id);
          expect(url, `${rule.id}.docsUrls.${id}`).toMatch(/^https:\/\//);
        }
      });
      it('gives every option a default and a description', () => {
        for (const [name, p] of Object.entries(rule.meta.options.properties)) {
          expect(p.default, `${rule.id}.${name}`).not.toBeUndefined();
          expect(p.description.length, `${rule.id}.${name}`).toBeGreaterThan(20);
        }
      });
      it('has tests', () => {
        const files = readdirSync(join(RULES_DIR, rule.id));
        expect(files.some((f) => f.endsWith('.test.ts'))).toBe(true);
      });
    });
  }
});

/** The README section whose table lists the rules, a row each: | [`id`](rules/id/README.md) | finds | … |. */
const README_TABLE_HEADING = '## What it checks';

interface TableRow {
  id: string;
  link: string;
}

/** The rows of the rules table: the first table under README_TABLE_HEADING, its header and divider rows left out. */
function readmeRulesTable(readme: string): TableRow[] {
  const at = readme.indexOf(`\n${README_TABLE_HEADING}\n`);
  if (at < 0) throw new Error(`README.md has no "${README_TABLE_HEADING}" section`);
  const next = readme.indexOf('\n## ', at + 1);
  const section = readme.slice(at, next < 0 ? undefined : next);
  const rows: TableRow[] = [];
  for (const line of section.split('\n')) {
    // a rule's row: its first cell is the id in backticks, linked to its README (or not: then the link is '')
    const m = /^\|\s*\[?`([^`]+)`(?:\]\(([^)]*)\))?\s*\|/.exec(line);
    if (m) rows.push({ id: m[1] as string, link: m[2] ?? '' });
  }
  return rows;
}

/** Every way the table and the rule list disagree; empty when each rule has exactly one row linking its README. */
function rulesTableProblems(rows: readonly TableRow[], ids: readonly string[]): string[] {
  const problems: string[] = [];
  for (const id of ids) {
    const n = rows.filter((r) => r.id === id).length;
    if (n === 0) problems.push(`rule ${id} is missing from the table`);
    if (n > 1) problems.push(`rule ${id} is listed ${n} times`);
  }
  for (const r of rows) {
    if (!ids.includes(r.id)) problems.push(`the table names ${r.id}, which is not in rules/index.ts`);
    else if (r.link !== `rules/${r.id}/README.md`) {
      problems.push(`row ${r.id} links ${r.link || 'nothing'}, not rules/${r.id}/README.md`);
    }
  }
  return [...new Set(problems)];
}
