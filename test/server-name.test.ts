/**
 * The report headers name the server as what it is: mongod as "MongoDB <version>" (unchanged), FerretDB by its name,
 * and a product imitating MongoDB (SecantusDB, told by buildInfo's secantusVersion) by its own name first.
 */
import { describe, expect, it } from 'vitest';
import { serverName } from '../src/lib/server-name';
import { formatMarkdown } from '../src/report/markdown';
import { formatText } from '../src/report/text';
import { checkResultOf } from './support/fixtures';

describe('the server in the report headers', () => {
  const mongod = checkResultOf([]);
  const secantus = checkResultOf([], { server: { ...mongod.server, version: '8.2.11', imitator: 'SecantusDB 0.7.0b3' } });

  it('names mongod as MongoDB, FerretDB as FerretDB, an imitation by its own name and the version it answers as', () => {
    expect(serverName(mongod.server)).toBe('MongoDB 8.0.4');
    expect(serverName({ version: '7.0.77', flavor: 'ferretdb' })).toBe('FerretDB 7.0.77');
    expect(serverName(secantus.server)).toBe('SecantusDB 0.7.0b3 imitating MongoDB 8.2.11');
  });

  it('the text and Markdown headers say it', () => {
    expect(formatText(mongod, { color: false }).split('\n')[0]).toBe('mongo-advisor 0.1.0 · app on mongodb://db.example:27017/ (MongoDB 8.0.4, standalone)');
    expect(formatText(secantus, { color: false }).split('\n')[0]).toContain('(SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, standalone)');
    expect(formatMarkdown(secantus, { verbose: false })).toContain('SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, standalone');
  });
});
