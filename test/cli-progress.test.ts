import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Io } from '../src/cli/io';
import { createProgress, progressLines } from '../src/cli/progress';
import { heartbeat } from '../src/lib/heartbeat';

function stream(isTTY: boolean): { s: NodeJS.WriteStream; written: () => string } {
  let text = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  }) as unknown as NodeJS.WriteStream & {
    isTTY: boolean;
    columns: number;
    cursorTo: () => boolean;
    clearLine: () => boolean;
    moveCursor: () => boolean;
  };
  w.isTTY = isTTY;
  w.columns = 120;
  w.cursorTo = () => true;
  w.clearLine = () => true;
  w.moveCursor = () => true;
  return { s: w, written: () => text };
}

describe('progress bar', () => {
  it('draws on a terminal', () => {
    const { s, written } = stream(true);
    const p = createProgress({ enabled: true, stream: s });
    p.stage('collecting', 2);
    p.tick('app.posts');
    p.tick('app.events');
    p.stop();
    expect(written()).toMatch(/collecting .*2\/2/);
  });

  it('writes nothing when stderr is not a terminal (CI logs, pipes), or when turned off', () => {
    for (const [isTTY, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { s, written } = stream(isTTY);
      const p = createProgress({ enabled, stream: s });
      p.stage('collecting', 3);
      p.tick('x');
      p.stop();
      expect(written()).toBe('');
    }
  });
});

describe('progress lines where no bar is drawn', () => {
  const lines = (): { io: Io; said: string[] } => {
    const said: string[] = [];
    return { io: { out: () => undefined, err: (s) => said.push(s), isTTY: false }, said };
  };

  it('a step that runs past the interval is beaten, with its seconds; a new step starts the count again', async () => {
    const said: string[] = [];
    const beat = heartbeat((l) => said.push(l), 200);
    beat.say('confirming 1 of 2: array-growth on blog.posts (comments), budget 30 s');
    await sleep(700);
    const first = said.length;
    beat.say('confirming 2 of 2: id-pattern on blog.events, budget 30 s');
    await sleep(300);
    beat.stop();
    const after = said.length;
    await sleep(500);
    expect(first, said.join('\n')).toBeGreaterThanOrEqual(3);
    expect(said[1]).toMatch(
      /^ {2}… 0 s into: confirming 1 of 2: array-growth on blog\.posts \(comments\), budget 30 s$/,
    );
    expect(said.slice(first + 1, after).every((l) => l.includes('into: confirming 2 of 2'))).toBe(true);
    // Stopped: no more beats.
    expect(said.length).toBe(after);
  });

  it(
    'plain lines on a pipe with names escaped, dimmed on a terminal, none with --quiet or where a bar is ' + 'drawn',
    () => {
      const pipe = lines();
      progressLines(pipe.io, { stream: { isTTY: false } })?.say('collecting blog\x1b[31m');
      expect(pipe.said).toEqual(['collecting blog\\u{1b}[31m']);
      const tty = lines();
      const onTty = progressLines(tty.io, { stream: { isTTY: true } });
      onTty?.say('collecting blog');
      onTty?.stop();
      expect(tty.said).toEqual(['\x1b[2mcollecting blog\x1b[0m']);
      expect(progressLines(pipe.io, { quiet: true, stream: { isTTY: false } })).toBeNull();
      expect(progressLines(pipe.io, { barOnTerminal: true, stream: { isTTY: true } })).toBeNull();
      expect(progressLines(pipe.io, { barOnTerminal: true, stream: { isTTY: false } })).not.toBeNull();
    },
  );
});
