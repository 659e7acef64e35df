import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const RULES = join(__dirname, '..', '..', 'rules');

/**
 * The `rules` of a configuration (a --config file, or mongosh's `{ rules }`) that turns off every rule but `keep`, for
 * a test that starts the CLI or mongosh on those alone. Read from the folders of rules/ (each is a rule whose id is
 * its name: test/rules-meta.test.ts holds them to the list), not by importing the rules as test/support/only-rules.ts
 * does: that import cost a file that only starts programs several seconds of module loading on a loaded machine.
 */
export function rulesOff(...keep: string[]): Record<string, 'off'> {
  const ids = readdirSync(RULES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(RULES, d.name, 'index.ts')))
    .map((d) => d.name);
  for (const id of keep) if (!ids.includes(id)) throw new Error(`rulesOff: no rule "${id}" under rules/`);
  return Object.fromEntries(ids.filter((id) => !keep.includes(id)).map((id) => [id, 'off' as const]));
}

/**
 * Writes a `--config` file named `name` in `dir` whose `rules` turn off every rule but `keep` (rulesOff), and returns
 * its path: for a test that starts the CLI on those rules alone.
 */
export function rulesOffConfig(dir: string, name: string, ...keep: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ rules: rulesOff(...keep) }));
  return path;
}
