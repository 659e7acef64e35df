/**
 * The report headers name the server as what it is: mongod as "MongoDB <version>" (unchanged), FerretDB by its name,
 * and a product imitating MongoDB (SecantusDB, told by buildInfo's secantusVersion) by its own name first.
 */
import { describe, expect, it } from 'vitest';
import { serverName, topologyName } from '../src/lib/server-name';
import { formatMarkdown } from '../src/report/markdown';
import { formatText } from '../src/report/text';
import { checkResultOf } from './support/fixtures';

describe('the server in the report headers', () => {
  const mongod = checkResultOf([]);
  const secantus = checkResultOf([], {
    server: { ...mongod.server, version: '8.2.11', imitator: 'SecantusDB 0.7.0b3' },
  });

  it(
    'names mongod as MongoDB, FerretDB as FerretDB, an imitation by its own name and the version it answers ' + 'as',
    () => {
      expect(serverName(mongod.server)).toBe('MongoDB 8.0.4');
      expect(serverName({ version: '7.0.77', flavor: 'ferretdb', imitator: 'FerretDB v1.24.0' })).toBe(
        'FerretDB v1.24.0 imitating MongoDB 7.0.77',
      );
      // A snapshot written before the imitator was recorded: the version FerretDB answers as is not its own.
      expect(serverName({ version: '7.0.77', flavor: 'ferretdb' })).toBe('FerretDB imitating MongoDB 7.0.77');
      expect(serverName(secantus.server)).toBe('SecantusDB 0.7.0b3 imitating MongoDB 8.2.11');
    },
  );

  it("says the topology in a DBA's words", () => {
    expect(topologyName('replicaSet')).toBe('replica set');
    expect(topologyName('sharded')).toBe('sharded cluster');
    const member = checkResultOf([], { server: { ...secantus.server, topology: 'replicaSet' } });
    expect(formatText(member, { color: false }).split('\n')[0]).toContain('imitating MongoDB 8.2.11, replica set)');
    expect(formatMarkdown(member, { verbose: false })).toContain('imitating MongoDB 8.2.11, replica set)');
  });

  it('the text and Markdown headers say it', () => {
    expect(formatText(mongod, { color: false }).split('\n')[0]).toBe(
      'mongo-advisor 0.1.0 · app on mongodb://db.example:27017/ (MongoDB 8.0.4, standalone)',
    );
    expect(formatText(secantus, { color: false }).split('\n')[0]).toContain(
      '(SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, standalone)',
    );
    expect(formatMarkdown(secantus, { verbose: false })).toContain(
      'SecantusDB 0.7.0b3 imitating MongoDB 8.2.11, standalone',
    );
  });
});
