import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rules } from '../rules';

const RULES_DIR = join(__dirname, '..', 'rules');
const HEADINGS = ['## What it checks', '## Why', '## Options', '## Confirmation', '## When not to use it'];
const folders = readdirSync(RULES_DIR).filter((f) => statSync(join(RULES_DIR, f)).isDirectory()).sort();

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
        for (const name of Object.keys(rule.meta.options.properties)) expect(readme, `${rule.id}/README.md does not document option ${name}`).toContain(`\`${name}\``);
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
