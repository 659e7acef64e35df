/**
 * The README is checked against the program, so its tables cannot drift: the option table of `check` against
 * `check --help`, the command table against the program's commands, the exit-code table and the failing-severity
 * defaults against each command's --fail-on, the demo's seed list against what the demo seeds, and the cache folder
 * against the servers' code. (Its sample output and the "Try it in mongosh" block are run against a live server in
 * test/readme-sample.e2e.test.ts and test/first-hour.e2e.test.ts.)
 */
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main';
import { DEMO_POSTS, DEMO_SEEDS, DEMO_TENANTS } from '../src/demo/seed';
import { cacheDir } from '../src/servers/child';

const README = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const flat = (s: string): string => s.replace(/\s+/g, ' ');

/** What the real CLI prints for these arguments (in-process: commander's help text is the program's own). */
async function help(args: string[]): Promise<string> {
  let out = '';
  const code = await main([...args, '--help'], { out: (s) => (out += s), err: (s) => (out += s), isTTY: false });
  expect(code, out).toBe(0);
  return out;
}

/** The long flags of a command's --help (`--no-x` too), --help aside. */
function flagsOfHelp(text: string): Set<string> {
  const options = text.slice(text.indexOf('Options:'));
  return new Set(
    [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1] as string).filter((f) => f !== '--help'),
  );
}

/** The rows of the Markdown table that follows `heading` in the README, as arrays of cells. */
function tableAfter(heading: string): string[][] {
  const at = README.indexOf(heading);
  if (at < 0) throw new Error(`README.md no longer says "${heading}"`);
  const rest = README.slice(at).split('\n');
  const start = rest.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of rest.slice(start)) {
    if (!line.startsWith('|')) break;
    if (/^\|[-| ]+\|$/.test(line)) continue;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim()),
    );
  }
  return rows.slice(1);
}

const codes = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

describe('README.md against the program', () => {
  it('the option table of check names exactly the options of check --help', async () => {
    const inHelp = flagsOfHelp(await help(['check']));
    const inReadme = new Set(
      tableAfter('The options of `check`').flatMap(([cell]) =>
        codes(cell ?? '').flatMap((c) => [...c.matchAll(/--[\w-]+/g)].map((m) => m[0])),
      ),
    );
    expect([...inReadme].sort()).toEqual([...inHelp].sort());
  });

  it("the commands the README lists are the program's commands", async () => {
    const top = await help([]);
    const commands = [...top.slice(top.indexOf('Commands:')).matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1] as string)
      .filter((c) => c !== 'help');
    const listed = tableAfter('Other commands').map(([cell]) => /`mongo-advisor ([a-z]+)/.exec(cell ?? '')?.[1]);
    expect(['check', ...listed].sort()).toEqual(commands.sort());
  });

  it(
    'the exit-code table names every command that judges, and the failing-severity defaults are the ones ' +
      '--help gives',
    async () => {
      const judging: string[] = [];
      const defaults: Record<string, string> = {};
      for (const cmd of ['check', 'demo', 'collect', 'analyze', 'lint', 'audit', 'cleanup', 'server']) {
        const text = flat(await help([cmd]));
        if (!text.includes('--fail-on <severity>')) continue;
        judging.push(cmd);
        defaults[cmd] = /--fail-on <severity> .*?configuration, else (\w+)/.exec(text)?.[1] ?? '?';
      }
      const rows = tableAfter('**Exit codes**');
      expect(rows.map(([code]) => code)).toEqual(['0', '1', '2', '130']);
      for (const [code, when] of rows.slice(0, 2))
        expect(codes(/\(([^)]*)\)/.exec(when ?? '')?.[1] ?? '').sort(), `row ${code ?? ''}`).toEqual(
          [...judging].sort(),
        );
      const said = /else `(\w+)` for the reports a person reads \(([^)]*)\) and `(\w+)` for `(\w+)`/.exec(flat(README));
      expect(said, "the README's sentence on the failing severity").not.toBeNull();
      const [, readDefault, readers, gateDefault, gate] = said as unknown as string[];
      for (const cmd of codes(readers ?? '')) expect(defaults[cmd], cmd).toBe(readDefault);
      expect(defaults[gate ?? ''], gate).toBe(gateDefault);
      expect([...codes(readers ?? ''), gate].sort()).toEqual([...judging].sort());
    },
  );

  it("the demo's seed list is what the demo seeds, and the README says it", () => {
    expect(/The demo seeds `mongo_advisor_demo_blog` with (.*?), and prints the report\./.exec(flat(README))?.[1]).toBe(
      DEMO_SEEDS,
    );
    const counts = DEMO_POSTS.map((p) => p.comments.toLocaleString('en-US'));
    expect(DEMO_SEEDS).toContain(
      `posts with ${counts.slice(0, -1).join(', ')} and ${counts[counts.length - 1] ?? ''} comments`,
    );
    expect(DEMO_SEEDS).toContain(`${DEMO_TENANTS} per-tenant collections`);
  });

  it("MONGO_ADVISOR_CACHE and the default cache folder are the servers' own", () => {
    const saved = process.env.MONGO_ADVISOR_CACHE;
    try {
      delete process.env.MONGO_ADVISOR_CACHE;
      expect(cacheDir()).toBe(join(os.homedir(), '.cache', 'mongo-advisor'));
      process.env.MONGO_ADVISOR_CACHE = '/elsewhere';
      expect(cacheDir()).toBe('/elsewhere');
    } finally {
      if (saved === undefined) delete process.env.MONGO_ADVISOR_CACHE;
      else process.env.MONGO_ADVISOR_CACHE = saved;
    }
    expect(flat(README)).toMatch(/into `~\/\.cache\/mongo-advisor`; set `MONGO_ADVISOR_CACHE=<folder>`/);
  });
});
