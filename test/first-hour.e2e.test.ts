/**
 * The first hour, as the README tells it: `mongo-advisor server` starts an embedded server and keeps it, prints what
 * the README's "Try it" block shows (compared line by line, the port and the checkout's path aside), and the real
 * mongosh, started in a temporary directory (not the repository), runs the printed load() line and advisor.check on
 * the seeded posts. Ctrl-C stops the server: exit 0, and the port answers no more.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { runProcess } from './support/run';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const EMBEDDED = ['mongodb-memory-server', 'secantusdb', 'ferretdb'];

/** The README's block that shows `npx mongo-advisor server` and what it prints. */
function readmeServerBlock(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```\n\$ npx mongo-advisor server\n([\s\S]*?)```/.exec(readme);
  if (!block?.[1]) throw new Error('README.md has no ``` block starting with "$ npx mongo-advisor server"');
  return block[1].trimEnd().split('\n');
}

/** The printed lines with the port and this checkout's path as the README writes them. */
function asInReadme(printed: string, uri: string): string[] {
  const base = uri.replace(/\/?(\?.*)?$/, '');
  return printed
    .trimEnd()
    .split('\n')
    .map((l) => l.split(base).join('mongodb://127.0.0.1:<port>').split(ROOT).join('<repository>'));
}

describe('the first hour: mongo-advisor server, then mongosh from any directory (real CLI, real mongosh)', () => {
  const kind = inject('serverKind');

  it(
    "server prints the README's lines; mongosh in a temp dir loads the plugin with them and checks posts; " +
      'Ctrl-C stops it',
    async (ctx) => {
      if (!EMBEDDED.includes(kind))
        ctx.skip(`this run's server is ${kind}, not an embedded one mongo-advisor server can start`);
      let printed = '';
      let shell: { code: number | null; out: string; err: string } | null = null;
      let uri = '';
      const server = await runProcess(process.execPath, [CLI, 'server', '--kind', kind], {
        timeoutMs: 300_000,
        env: { MONGODB_URI: '' },
        onOut: (chunk, child) => {
          printed += chunk;
          if (uri || !printed.includes('Ctrl-C stops the server')) return;
          uri = /^URI: (\S+)$/m.exec(printed)?.[1] ?? 'none';
          // The mongosh line as printed: the checkout's own mongosh by absolute path (none on this PATH), or `mongosh`
          const line = /^ {2}(?:"([^"]+)"|(mongosh)) --quiet "([^"]+)"$/m.exec(printed);
          const mongoshBin = line?.[1] ?? line?.[2] ?? 'none';
          const mongoshUri = line?.[3] ?? '';
          const load = /^ {2}(load\(.+\))$/m.exec(printed)?.[1] ?? '';
          const cwd = mkdtempSync(join(tmpdir(), 'ma-first-hour-'));
          const script = `${load}; advisor.check("posts", { confirm: false })`;
          void runProcess(mongoshBin, [mongoshUri, '--quiet', '--norc', '--json=relaxed', '--eval', script], {
            cwd,
            env: { MONGOSH_NO_UPDATE_CHECK: '1' },
          })
            .then((r) => (shell = r))
            .finally(() => child.kill('SIGINT'));
        },
      });
      expect(uri, printed + server.err).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      // The README's block, after its first line (which server started, and its version), is what the command printed.
      expect(asInReadme(printed, uri).slice(1)).toEqual(readmeServerBlock().slice(1));
      expect(readmeServerBlock()[0]).toMatch(/^mongo-advisor server: .+ at mongodb:\/\/127\.0\.0\.1:<port>\/$/);
      expect(shell, server.err).not.toBeNull();
      const ran = shell as unknown as { code: number | null; out: string; err: string };
      expect(ran.code, ran.err).toBe(0);
      const report = JSON.parse(ran.out) as {
        scope: { db: string; collections: string[] };
        findings: { ruleId: string; target: { collection?: string } }[];
      };
      expect(report.scope).toMatchObject({ db: 'mongo_advisor_demo_blog', collections: ['posts'] });
      expect(
        report.findings.some((f) => f.ruleId === 'array-growth' && f.target.collection === 'posts'),
        ran.out,
      ).toBe(true);
      // Stopped by Ctrl-C: exit 0, said so, and nothing answers on the port any more.
      expect(server.code, server.err).toBe(0);
      expect(server.err).toMatch(/Stopped; its data is deleted\./);
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_500 });
      await expect(client.connect()).rejects.toThrow();
      await client.close().catch(() => undefined);
    },
    300_000,
  );
});
