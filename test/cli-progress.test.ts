import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../src/cli/progress';

function stream(isTTY: boolean): { s: NodeJS.WriteStream; written: () => string } {
  let text = '';
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  }) as unknown as NodeJS.WriteStream & { isTTY: boolean; columns: number; cursorTo: () => boolean; clearLine: () => boolean; moveCursor: () => boolean };
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
    for (const [isTTY, enabled] of [[false, true], [true, false]] as const) {
      const { s, written } = stream(isTTY);
      const p = createProgress({ enabled, stream: s });
      p.stage('collecting', 3);
      p.tick('x');
      p.stop();
      expect(written()).toBe('');
    }
  });
});
