import { tagged, versionOfReply } from './tag';
import {
  Long,
  MongoClient,
  type MongoClientOptions,
  ObjectId,
  ReadPreference,
  type RunCommandCursor,
  UUID,
} from 'mongodb';
import { redactUri } from '../core/format';
import { APP_NAME } from '../core/names';
import { type HostCursor, readHostCursor } from './cursor';
import { readOnly } from './read-only';
import type { Adapter, BsonKit, CommandOptions, CursorOptions, CursorRead, Doc } from './types';

const bson: BsonKit = {
  objectId: (hex?: string) => (hex === undefined ? new ObjectId() : new ObjectId(hex)),
  uuid: (hex) => new UUID(hex),
  long: (v) => Long.fromString(String(v)),
};

export interface DriverAdapterOptions {
  /** How long to wait for a server before giving up (ms). */
  serverSelectionTimeoutMS?: number;
  /** Driver command monitoring (`commandStarted` events on `client`): tests read the sessions each command carried. */
  monitorCommands?: boolean;
}

/**
 * Adapter over the Node driver. Call `connect` first; commands go through `db.command`, cursors through
 * `db.runCursorCommand` (driver 6.0+): the driver sends each getMore and the killCursors on the cursor's own session
 * and server.
 */
export class DriverAdapter implements Adapter {
  readonly kind = 'driver' as const;
  readonly bson = bson;
  readonly source: string;
  private count = 0;
  /** Direct connections to replica-set members, by host (connectMember); failures are cached too. */
  private readonly members = new Map<string, Promise<DriverAdapter>>();

  private constructor(
    /** The driver client (tests listen to its command monitoring events). */
    readonly client: MongoClient,
    uri: string,
    private readonly parent: DriverAdapter | null = null,
  ) {
    this.source = redactUri(uri);
  }

  static async connect(uri: string, opts: DriverAdapterOptions = {}): Promise<DriverAdapter> {
    const client = new MongoClient(uri, {
      appName: APP_NAME,
      serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
      connectTimeoutMS: opts.serverSelectionTimeoutMS ?? 5000,
      ...(opts.monitorCommands ? { monitorCommands: true } : {}),
    });
    try {
      await client.connect();
    } catch (err) {
      // The driver closes its topology on a failed connect; closing the client as well leaves no timer behind.
      await client.close().catch(() => undefined);
      throw err;
    }
    return new DriverAdapter(client, uri);
  }

  get roundTrips(): number {
    return this.count;
  }

  async command(db: string, cmd: Doc, opts: CommandOptions = {}): Promise<Doc> {
    this.counted();
    const reply = await this.client
      .db(db)
      .command(
        tagged(cmd, this.version ?? this.parent?.version),
        opts.readPreference ? { readPreference: opts.readPreference } : {},
      );
    this.learnVersion(cmd, reply);
    return reply;
  }

  /** The server's version, once a buildInfo reply said it (the probe sends it first): count and distinct get tagged. */
  private version: number[] | undefined;

  private learnVersion(cmd: Doc, reply: Doc): void {
    const v = versionOfReply(cmd, reply);
    if (v) {
      this.version = v;
      if (this.parent) this.parent.version ??= v;
    }
  }

  async cursor(db: string, cmd: Doc, opts: CursorOptions = {}): Promise<CursorRead> {
    // A ReadPreference instance, not the mode's name: the driver's cursors (AbstractCursor) drop a string and read from
    // the primary, where `db.command` accepts either (seen on the wire: test/exact-commands.live.test.ts).
    const cursor = this.client
      .db(db)
      .runCursorCommand(
        tagged(cmd, this.version ?? this.parent?.version),
        opts.readPreference ? { readPreference: ReadPreference.fromString(opts.readPreference) } : {},
      );
    if (opts.getMoreBatchSize !== undefined) cursor.setBatchSize(opts.getMoreBatchSize);
    return await readHostCursor(driverCursor(cursor), opts, () => this.counted());
  }

  private counted(): void {
    this.count++;
    if (this.parent) this.parent.count++;
  }

  /**
   * A direct connection to one member with this client's credentials and TLS settings; cached per host. It is
   * handed out read-only (src/adapters/read-only.ts): members are only ever read ($indexStats on each).
   */
  async connectMember(host: string): Promise<Adapter> {
    return readOnly(await this.memberConnection(host));
  }

  private memberConnection(host: string): Promise<DriverAdapter> {
    if (this.parent) return this.parent.memberConnection(host);
    let member = this.members.get(host);
    if (!member) {
      member = (async () => {
        const client = new MongoClient(`mongodb://${host}/`, memberOptions(this.client.options));
        try {
          await client.connect();
        } catch (err) {
          await client.close().catch(() => undefined);
          throw err;
        }
        return new DriverAdapter(client, `mongodb://${host}/`, this);
      })();
      member.catch(() => undefined);
      this.members.set(host, member);
    }
    return member;
  }

  async close(): Promise<void> {
    const members = [...this.members.values()];
    this.members.clear();
    await Promise.all(members.map(async (m) => (await m.catch(() => null))?.client.close().catch(() => undefined)));
    await this.client.close();
  }
}

function driverCursor(c: RunCommandCursor): HostCursor {
  return {
    buffered: () => c.bufferedCount(),
    take: (n) => Promise.resolve(c.readBufferedDocuments(n)),
    fetch: () => c.tryNext(),
    done: () => c.closed,
    close: () => c.close(),
  };
}

/** The options of a direct connection to one member: same credentials and TLS, no replica-set discovery. */
function memberOptions(o: MongoClient['options']): MongoClientOptions {
  const out: MongoClientOptions = {
    appName: APP_NAME,
    directConnection: true,
    serverSelectionTimeoutMS: o.serverSelectionTimeoutMS,
    connectTimeoutMS: o.connectTimeoutMS,
    tls: o.tls,
  };
  if (o.tlsCAFile) out.tlsCAFile = o.tlsCAFile;
  if (o.tlsCertificateKeyFile) out.tlsCertificateKeyFile = o.tlsCertificateKeyFile;
  if (o.tlsCRLFile) out.tlsCRLFile = o.tlsCRLFile;
  // tlsInsecure may not be combined with the two it implies
  if (o.tlsInsecure) out.tlsInsecure = true;
  else {
    if (o.tlsAllowInvalidCertificates) out.tlsAllowInvalidCertificates = true;
    if (o.tlsAllowInvalidHostnames) out.tlsAllowInvalidHostnames = true;
  }
  for (const k of ['ca', 'cert', 'key', 'passphrase', 'crl'] as const)
    if (o[k] !== undefined) (out as Record<string, unknown>)[k] = o[k];
  const cred = o.credentials;
  if (cred) {
    if (cred.username) out.auth = { username: cred.username, ...(cred.password ? { password: cred.password } : {}) };
    out.authSource = cred.source;
    if (cred.mechanism && cred.mechanism !== 'DEFAULT') out.authMechanism = cred.mechanism;
    if (cred.mechanismProperties && Object.keys(cred.mechanismProperties).length > 0)
      out.authMechanismProperties = cred.mechanismProperties;
  }
  return out;
}
