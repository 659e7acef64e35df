import { describe, expect, it } from 'vitest';
import { connectionError } from './errors';

/** What the driver throws when nothing listens (a MongoServerSelectionError caused by ECONNREFUSED), in shape. */
function refused(port: number): Error {
  const cause = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { name: 'MongoNetworkError' });
  return Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), {
    name: 'MongoServerSelectionError',
    cause,
  });
}

describe('connectionError', () => {
  it('names the flag of a second connection string, so the user knows which server failed', () => {
    const uri = 'mongodb://u:secret@127.0.0.1:1/';
    const scratch = connectionError(refused(1), uri, null, '--scratch-uri connection string').message;
    expect(scratch).toMatch(/^Could not reach the --scratch-uri server at mongodb:\/\/u:\*+@127\.0\.0\.1:1\/: /);
    const main = connectionError(refused(1), uri).message;
    expect(main).toMatch(/^Could not reach a MongoDB server at mongodb:\/\/u:\*+@127\.0\.0\.1:1\/: /);
    for (const m of [scratch, main]) expect(m).not.toContain('secret');
  });

  it('names it in an authentication failure too', () => {
    const err = Object.assign(new Error('Authentication failed.'), { name: 'MongoServerError', code: 18 });
    const m = connectionError(err, 'mongodb://u:pw@h:27017/', null, '--scratch-uri connection string').message;
    expect(m).toMatch(/^Authentication failed at mongodb:\/\/u:\*+@h:27017\/ \(--scratch-uri\) /);
  });
});
