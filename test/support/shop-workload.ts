import type { Db, Document } from 'mongodb';
import { EJSON } from 'bson';
import { prng } from '../../src/core/stats';

/**
 * The shop of issue 20's "Done when": orders queried by status and customer sorted by date, a case-insensitive regex
 * on a SKU, a `$lookup` from customers, updates by status and date range, events by type and time; one index no query
 * uses (`orders.total_1`) and one that already serves its shape (`events.type_1_ts_1`). Values are generated here
 * (seeded), and every query carries a marker string or number so a test can prove none reaches an output.
 */
export const SHOP_MARKER = 'ZZMARKER_SHOP_7f3a';
export const SHOP_MARKER_NUMBER = 7_654_321;

export const SHOP_INDEXES: Record<string, { key: Record<string, 1 | -1>; name: string }[]> = {
  // Holds both fields of the orders shape, in an order that cannot serve `status` sorted by `createdAt`.
  orders: [
    { key: { createdAt: 1, status: 1 }, name: 'createdAt_1_status_1' },
    { key: { total: 1 }, name: 'total_1' },
  ],
  events: [{ key: { type: 1, ts: 1 }, name: 'type_1_ts_1' }],
  customers: [],
};

const STATUSES = ['new', 'paid', 'shipped', 'delivered', 'cancelled'];
const EVENT_TYPES = ['view', 'click', 'cart', 'buy'];
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

export interface ShopSize {
  orders: number;
  customers: number;
  events: number;
}

/** Seeds orders, customers and events with the indexes above. */
export async function seedShop(db: Db, size: ShopSize = { orders: 3000, customers: 300, events: 2000 }): Promise<void> {
  const rnd = prng(20);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const orders: Document[] = [];
  for (let i = 0; i < size.orders; i++) {
    orders.push({
      status: pick(STATUSES),
      customerId: Math.floor(rnd() * size.customers),
      createdAt: new Date(START + Math.floor(rnd() * 300 * DAY)),
      sku: `SKU-${String(Math.floor(rnd() * 500)).padStart(5, '0')}`,
      total: Math.round(rnd() * 50_000) / 100,
    });
  }
  const customers = Array.from({ length: size.customers }, (_, i) => ({ _id: i, name: `customer ${i}` }));
  const events = Array.from({ length: size.events }, () => ({
    type: pick(EVENT_TYPES),
    ts: new Date(START + Math.floor(rnd() * 300 * DAY)),
    customerId: Math.floor(rnd() * size.customers),
  }));
  await db.collection('orders').insertMany(orders);
  await db.collection<{ _id: number; name: string }>('customers').insertMany(customers);
  await db.collection('events').insertMany(events);
  for (const [coll, specs] of Object.entries(SHOP_INDEXES)) {
    if (specs.length) await db.collection(coll).createIndexes(specs.map((s) => ({ key: s.key, name: s.name })));
  }
}

/** The workload, each command as an application sends it; the marker rides in values only. */
export function shopCommands(): { db: 'shop'; command: Document }[] {
  const since = new Date(START + 200 * DAY);
  const until = new Date(START + 210 * DAY);
  const commands: Document[] = [];
  for (let c = 0; c < 6; c++) {
    commands.push({
      find: 'orders',
      filter: { status: STATUSES[c % 5], customerId: c * 7 },
      sort: { createdAt: -1 },
    });
  }
  commands.push({ find: 'orders', filter: { sku: { $regex: `^${SHOP_MARKER}`, $options: 'i' } } });
  commands.push({ find: 'orders', filter: { sku: { $regex: 'sku-0004', $options: 'i' } } });
  commands.push({
    aggregate: 'customers',
    pipeline: [
      { $match: { _id: { $lt: 50 } } },
      { $lookup: { from: 'orders', localField: '_id', foreignField: 'customerId', as: 'orders' } },
    ],
    cursor: {},
  });
  commands.push({
    update: 'orders',
    updates: [
      {
        q: { status: 'new', createdAt: { $gte: since, $lt: until } },
        u: { $set: { note: SHOP_MARKER } },
        multi: true,
      },
    ],
  });
  for (const type of EVENT_TYPES) {
    commands.push({ find: 'events', filter: { type, ts: { $gte: since } }, sort: { ts: 1 } });
  }
  // The marker number rides on customerId, in the shape of the orders query above (no new shape to advise on): no
  // query of the shop reads `total`, so `total_1` serves no shape.
  commands.push({
    find: 'orders',
    filter: { status: 'paid', customerId: SHOP_MARKER_NUMBER },
    sort: { createdAt: -1 },
  });
  return commands.map((command) => ({ db: 'shop', command }));
}

/**
 * Runs the workload with the profiler at level 2 (all operations) and puts the previous level back; test-only: the
 * advisor itself never changes the level unless asked. With `keep`, the level stays 2 until the returned function
 * puts it back (the advisor reads the level the entries were written at: level 2 is a complete workload).
 */
export async function replayShop(db: Db, rounds = 3, keep = false): Promise<() => Promise<void>> {
  const before = await db.command({ profile: -1 });
  const restore = async (): Promise<void> => {
    await db.command({ profile: before.was as number, slowms: before.slowms as number });
  };
  await db.command({ profile: 2 });
  try {
    for (let r = 0; r < rounds; r++) {
      for (const { command } of shopCommands()) await db.command(command);
    }
  } catch (err) {
    await restore();
    throw err;
  }
  if (keep) return restore;
  await restore();
  return async () => undefined;
}

/** Drops the database's profiler entries (a missing system.profile is fine). */
export async function dropProfile(db: Db): Promise<void> {
  await db
    .collection('system.profile')
    .drop()
    .catch(() => undefined);
}

/** Replays the shop on an emptied profiler (level 2 while it runs) and returns the entries it wrote. */
export async function replayShopEntries(db: Db, rounds = 2): Promise<Document[]> {
  await dropProfile(db);
  await replayShop(db, rounds);
  return db.collection('system.profile').find({}).toArray();
}

/**
 * The shop's commands as profiler entries of database `db` (ns, command, millis, ts), `rounds` times over: what
 * slowLogLines writes as a log on a server that has no profiler to read them from (FerretDB).
 */
export function shopProfileDocs(db: string, rounds = 2): Record<string, unknown>[] {
  const docs: Record<string, unknown>[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const { command } of shopCommands()) {
      const coll = String(Object.values(command)[0]);
      docs.push({ ns: `${db}.${coll}`, command: { ...command, $db: db }, millis: 1, ts: new Date() });
    }
  }
  return docs;
}

/**
 * The profiler's entries of a database as mongod's JSON log writes them ("Slow query", id 51803), one line each, with
 * the attribute names of `OpDebug::report` (mongodb/mongo src/mongo/db/curop.cpp): `type`, `ns`, `command`,
 * `durationMillis`, and the counts when the profiler had them. SecantusDB writes no slow-query lines, so a test that
 * wants the same workload in a log file builds it from the profiler this way.
 *
 * With `writes: 'statements'`, an update or delete is written as mongod 4.4+ writes a slow one: each statement on its
 * own line (`"c":"WRITE"`, `type` update/remove, the statement `{q, u, multi, upsert}` or `{q, limit}` as `command`),
 * then the command that carried them (`"c":"COMMAND"`) on the same connection (shared/hints.md; keyhole's
 * mdb/logv2_parser_test.go holds real lines). A profiler entry that already holds one statement (`op` update/remove)
 * is written as that statement's line alone.
 */
export function slowLogLines(
  profileDocs: readonly Record<string, unknown>[],
  opts: { writes?: 'command' | 'statements' } = {},
): string[] {
  const lines: string[] = [];
  for (const [i, d] of profileDocs.entries()) {
    const attr: Record<string, unknown> = {
      type: 'command',
      ns: d.ns,
      command: d.command,
      durationMillis: d.millis ?? 0,
    };
    for (const k of ['planSummary', 'keysExamined', 'docsExamined', 'nreturned', 'hasSortStage', 'usedDisk']) {
      if (d[k] !== undefined) attr[k] = d[k];
    }
    const t = d.ts instanceof Date ? d.ts.toISOString() : new Date().toISOString();
    // One connection per entry, as an application's pool spreads its operations.
    const ctx = `conn${i + 1}`;
    const line = (c: string, a: Record<string, unknown>): string =>
      // Relaxed Extended JSON, as mongod writes its log: dates as {"$date": "…"} (JSON.stringify would write a string).
      EJSON.stringify({ t: { $date: t }, s: 'I', c, id: 51803, ctx, msg: 'Slow query', attr: a }, { relaxed: true });
    const command = (d.command ?? {}) as Document;
    const statements = opts.writes === 'statements' ? statementsOfEntry(d.op, command) : null;
    if (statements === null) {
      lines.push(line('COMMAND', attr));
      continue;
    }
    for (const s of statements.list) lines.push(line('WRITE', { ...attr, type: statements.type, command: s }));
    if (statements.command) lines.push(line('COMMAND', attr));
  }
  return lines;
}

/** An update or delete entry's statements as mongod logs them one by one; null for other operations. */
function statementsOfEntry(
  op: unknown,
  command: Document,
): { type: 'update' | 'remove'; list: Document[]; command: boolean } | null {
  if ((op === 'update' || op === 'remove') && 'q' in command) return { type: op, list: [command], command: false };
  for (const [field, list, type] of [
    ['update', 'updates', 'update'],
    ['delete', 'deletes', 'remove'],
  ] as const) {
    const stmts: unknown = command[list];
    if (command[field] !== undefined && Array.isArray(stmts)) return { type, list: stmts as Document[], command: true };
  }
  return null;
}

/**
 * The shop of issue 27's "Done when", sized so the planner's choices mean something (MongoDB's multi-planner trial
 * reads up to 10,000 works: a collection at or below the proof's copy of 20,000 is copied whole, so the copy behaves
 * like the source). Orders by customer and status sorted by date over an existing `{ customerId: 1 }`; a
 * case-insensitive regex on the SKU; events by type and a time range sorted by time over an existing `{ type: 1 }`;
 * users by country, then a `$lookup` into events by user; a slow update of orders by status and a date range; an
 * index no query uses (`orders.total_1`). Every value is generated here (seeded); the marker rides in values only.
 */
export const DONE_SHOP_INDEXES: Record<string, { key: Record<string, 1 | -1>; name: string }[]> = {
  orders: [
    { key: { customerId: 1 }, name: 'customerId_1' },
    { key: { total: 1 }, name: 'total_1' },
  ],
  events: [{ key: { type: 1 }, name: 'type_1' }],
  users: [],
};

export interface DoneShopSize {
  orders: number;
  customers: number;
  events: number;
  users: number;
  countries: number;
}

export const DONE_SHOP_SIZE: DoneShopSize = {
  orders: 8000,
  customers: 400,
  events: 10_000,
  users: 2000,
  countries: 200,
};
const EVENT_KINDS = ['view', 'click', 'cart', 'buy', 'search', 'login', 'logout', 'share'];

/** Seeds orders, events and users of the Done-when shop with the indexes above. */
export async function seedDoneShop(db: Db, size: DoneShopSize = DONE_SHOP_SIZE): Promise<void> {
  const rnd = prng(27);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const orders = Array.from({ length: size.orders }, () => ({
    status: pick(STATUSES),
    customerId: Math.floor(rnd() * size.customers),
    createdAt: new Date(START + Math.floor(rnd() * 300 * DAY)),
    sku: `SKU-${String(Math.floor(rnd() * 500)).padStart(5, '0')}`,
    total: Math.round(rnd() * 50_000) / 100,
  }));
  const events = Array.from({ length: size.events }, () => ({
    type: pick(EVENT_KINDS),
    at: new Date(START + Math.floor(rnd() * 300 * DAY)),
    userId: Math.floor(rnd() * size.users),
  }));
  const users = Array.from({ length: size.users }, (_, i) => ({ _id: i, country: `C${i % size.countries}` }));
  const all: [string, Document[]][] = [
    ['orders', orders],
    ['events', events],
    ['users', users],
  ];
  for (const [name, docs] of all) {
    for (let i = 0; i < docs.length; i += 2000) await db.collection(name).insertMany(docs.slice(i, i + 2000));
  }
  for (const [coll, specs] of Object.entries(DONE_SHOP_INDEXES)) {
    if (specs.length) await db.collection(coll).createIndexes(specs.map((s) => ({ key: s.key, name: s.name })));
  }
}

/** The Done-when shop's workload, one round, each command as an application sends it. */
export function doneShopCommands(size: DoneShopSize = DONE_SHOP_SIZE): Document[] {
  const day = (d: number): Date => new Date(START + d * DAY);
  const commands: Document[] = [];
  for (let c = 0; c < 4; c++) {
    commands.push({
      find: 'orders',
      filter: { customerId: (c * 37) % size.customers, status: STATUSES[c % 5] },
      sort: { createdAt: -1 },
    });
  }
  commands.push({ find: 'orders', filter: { sku: { $regex: `^${SHOP_MARKER}`, $options: 'i' } } });
  for (let t = 0; t < 3; t++) {
    commands.push({
      find: 'events',
      filter: { type: EVENT_KINDS[t], at: { $gte: day(100 + t * 20), $lt: day(110 + t * 20) } },
      sort: { at: 1 },
    });
  }
  for (let c = 0; c < 2; c++) {
    commands.push({
      aggregate: 'users',
      pipeline: [
        { $match: { country: `C${(c * 7) % size.countries}` } },
        { $lookup: { from: 'events', localField: '_id', foreignField: 'userId', as: 'events' } },
      ],
      cursor: {},
    });
  }
  commands.push({
    update: 'orders',
    updates: [
      {
        q: { status: 'new', createdAt: { $gte: day(150), $lt: day(155) } },
        u: { $set: { note: SHOP_MARKER } },
        multi: true,
      },
    ],
  });
  return commands;
}

/**
 * Runs the Done-when shop's workload `rounds` times with the profiler at level 2, and leaves it at level 2 until the
 * returned function puts the previous level back (a second `check` must see the same shapes and calls).
 */
export async function replayDoneShop(db: Db, rounds = 2): Promise<() => Promise<void>> {
  const before = await db.command({ profile: -1 });
  const restore = async (): Promise<void> => {
    await db.command({ profile: before.was as number, slowms: before.slowms as number });
  };
  await db.command({ profile: 2 });
  try {
    for (let r = 0; r < rounds; r++) for (const command of doneShopCommands()) await db.command(command);
  } catch (err) {
    await restore();
    throw err;
  }
  return restore;
}
