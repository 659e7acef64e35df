/**
 * The three pairs of issue 30's Done-when, seeded small and with the workload that reads and writes them, as records
 * (the Node API's given workload) and as mongod 4.4+ JSON slow-query log lines:
 * (a) orders and 1-5 order_items each, read together by a `$lookup` on every order view, items rarely updated alone;
 * (b) posts and 10-5,000 comments each, growing daily, written far more than read with the post;
 * (c) users and audit_events, each read by `_id` alone;
 * and, beyond the Done-when, (d) invoices and 1-3 invoice_lines each, read by a `$lookup` that keeps two fields of each
 * line (an extended reference), with line writes far more than reads: the proof's refuted path.
 */
import { EJSON } from 'bson';
import { type Db, ObjectId } from 'mongodb';
import { makeRecord, type WorkloadRecord } from '../../src/workload/record';

const DAY_S = 86_400;

export const ORDERS = 40;
export const POST_COMMENTS = [10, 60, 400, 1500, 5000] as const;
export const USERS = 30;
export const INVOICES = 30;

export interface EmbedSeed {
  orders: ObjectId[];
  items: { id: ObjectId; orderId: ObjectId }[];
  posts: ObjectId[];
  comments: ObjectId[];
  users: ObjectId[];
  events: ObjectId[];
  invoices: ObjectId[];
  lines: ObjectId[];
}

/** An ObjectId made `daysAgo` days before now (its time dates the child: the pace comes from it). */
function idAt(daysAgo: number, i: number): ObjectId {
  const id = ObjectId.createFromTime(Math.floor(Date.now() / 1000 - daysAgo * DAY_S));
  // createFromTime zeroes the other 8 bytes: make each one distinct
  const bytes = Buffer.from(id.id);
  bytes.writeUInt32BE(i + 1, 8);
  return new ObjectId(bytes);
}

export async function seedEmbedPairs(db: Db): Promise<EmbedSeed> {
  const seed: EmbedSeed = {
    orders: [],
    items: [],
    posts: [],
    comments: [],
    users: [],
    events: [],
    invoices: [],
    lines: [],
  };
  let n = 0;
  const orders = [];
  const items = [];
  for (let o = 0; o < ORDERS; o++) {
    const age = 60 - o; // placed over the last two months, items with the order, none since
    const _id = idAt(age, n++);
    seed.orders.push(_id);
    orders.push({ _id, customer: `c${o % 7}`, total: 10 + o, status: 'paid' });
    for (let k = 0; k < 1 + (o % 5); k++) {
      const id = idAt(age, n++);
      seed.items.push({ id, orderId: _id });
      items.push({ _id: id, orderId: _id, sku: `sku-${k}`, qty: 1 + k, price: 3.5 * (k + 1) });
    }
  }
  await db.collection('orders').insertMany(orders);
  await db.collection('order_items').insertMany(items);
  await db.collection('order_items').createIndex({ orderId: 1 });

  const posts = [];
  const comments = [];
  for (const [p, count] of POST_COMMENTS.entries()) {
    const _id = idAt(50, n++);
    seed.posts.push(_id);
    posts.push({ _id, title: `post ${p}`, body: 'text '.repeat(40) });
    // spread over the 50 days since the post: comments arrive daily
    for (let c = 0; c < count; c++) {
      const id = idAt(50 - (50 * c) / count, n++);
      seed.comments.push(id);
      comments.push({ _id: id, postId: _id, author: `u${c % 13}`, text: 'nice '.repeat(8) });
    }
  }
  await db.collection('posts').insertMany(posts);
  await db.collection('comments').insertMany(comments);
  await db.collection('comments').createIndex({ postId: 1 });

  const users = [];
  const events = [];
  for (let u = 0; u < USERS; u++) {
    const _id = idAt(90, n++);
    seed.users.push(_id);
    users.push({ _id, name: `user ${u}` });
    for (let e = 0; e < 10; e++) {
      const id = idAt(90 - e * 9, n++);
      seed.events.push(id);
      events.push({ _id: id, userId: _id, action: 'login' });
    }
  }
  await db.collection('users').insertMany(users);
  await db.collection('audit_events').insertMany(events);

  // (d) beyond the Done-when: invoices and 1-3 lines each, placed with the invoice, bounded
  const invoices = [];
  const lines = [];
  for (let v = 0; v < INVOICES; v++) {
    const _id = idAt(30, n++);
    seed.invoices.push(_id);
    invoices.push({ _id, number: v, total: 20 + v });
    for (let k = 0; k < 1 + (v % 3); k++) {
      const id = idAt(30, n++);
      seed.lines.push(id);
      lines.push({ _id: id, invoiceId: _id, sku: `sku-${k}`, qty: 1 + k, note: 'line '.repeat(6) });
    }
  }
  await db.collection('invoices').insertMany(invoices);
  await db.collection('invoice_lines').insertMany(lines);
  await db.collection('invoice_lines').createIndex({ invoiceId: 1 });
  return seed;
}

/** The workload's operations, as the application sends them (values are the seed's own ids). */
export interface EmbedOperation {
  coll: string;
  command: Record<string, unknown>;
  millis: number;
}

/** How often each kind runs, per pair: the mix the decision weighs. */
export const MIX = {
  orderViews: 120,
  itemInserts: 8,
  itemUpdates: 2,
  postViews: 12,
  commentInserts: 300,
  commentUpdates: 30,
  userReads: 60,
  eventReads: 40,
  eventInserts: 100,
} as const;

export function embedOperations(db: string, s: EmbedSeed): EmbedOperation[] {
  const out: EmbedOperation[] = [];
  const at = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
  const op = (coll: string, command: Record<string, unknown>, millis: number): void =>
    void out.push({ coll, command: { ...command, $db: db }, millis });
  for (let i = 0; i < MIX.orderViews; i++)
    op(
      'orders',
      {
        aggregate: 'orders',
        pipeline: [
          { $match: { _id: at(s.orders, i) } },
          { $lookup: { from: 'order_items', localField: '_id', foreignField: 'orderId', as: 'items' } },
        ],
        cursor: {},
      },
      4,
    );
  for (let i = 0; i < MIX.itemInserts; i++)
    op('order_items', { insert: 'order_items', documents: [{ orderId: at(s.orders, i), sku: 'x', qty: 1 }] }, 1);
  for (let i = 0; i < MIX.itemUpdates; i++)
    op(
      'order_items',
      { update: 'order_items', updates: [{ q: { _id: at(s.items, i).id }, u: { $set: { qty: 2 } } }] },
      1,
    );
  for (let i = 0; i < MIX.postViews; i++)
    op(
      'posts',
      {
        aggregate: 'posts',
        pipeline: [
          { $match: { _id: at(s.posts, i) } },
          { $lookup: { from: 'comments', localField: '_id', foreignField: 'postId', as: 'comments' } },
        ],
        cursor: {},
      },
      30,
    );
  for (let i = 0; i < MIX.commentInserts; i++)
    op('comments', { insert: 'comments', documents: [{ postId: at(s.posts, i), text: 'hi' }] }, 1);
  for (let i = 0; i < MIX.commentUpdates; i++)
    op('comments', { update: 'comments', updates: [{ q: { _id: at(s.comments, i) }, u: { $inc: { likes: 1 } } }] }, 1);
  for (let i = 0; i < MIX.userReads; i++) op('users', { find: 'users', filter: { _id: at(s.users, i) } }, 1);
  for (let i = 0; i < MIX.eventReads; i++)
    op('audit_events', { find: 'audit_events', filter: { _id: at(s.events, i) } }, 1);
  for (let i = 0; i < MIX.eventInserts; i++)
    op('audit_events', { insert: 'audit_events', documents: [{ userId: at(s.users, i), action: 'x' }] }, 1);
  return out;
}

/** (d)'s workload: 12 invoice views keeping `lines.sku` and `lines.qty`, 300 line inserts, 30 line updates by `_id`. */
export const EXTENDED_MIX = { views: 12, inserts: 300, updates: 30 } as const;

export function extendedOperations(db: string, s: EmbedSeed): EmbedOperation[] {
  const out: EmbedOperation[] = [];
  const at = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
  const op = (coll: string, command: Record<string, unknown>, millis: number): void =>
    void out.push({ coll, command: { ...command, $db: db }, millis });
  for (let i = 0; i < EXTENDED_MIX.views; i++)
    op(
      'invoices',
      {
        aggregate: 'invoices',
        pipeline: [
          { $match: { _id: at(s.invoices, i) } },
          { $lookup: { from: 'invoice_lines', localField: '_id', foreignField: 'invoiceId', as: 'lines' } },
          { $project: { total: 1, 'lines.sku': 1, 'lines.qty': 1 } },
        ],
        cursor: {},
      },
      4,
    );
  for (let i = 0; i < EXTENDED_MIX.inserts; i++)
    op(
      'invoice_lines',
      { insert: 'invoice_lines', documents: [{ invoiceId: at(s.invoices, i), sku: 'x', qty: 1 }] },
      1,
    );
  for (let i = 0; i < EXTENDED_MIX.updates; i++)
    op(
      'invoice_lines',
      { update: 'invoice_lines', updates: [{ q: { _id: at(s.lines, i) }, u: { $inc: { qty: 1 } } }] },
      1,
    );
  return out;
}

const OP_KIND = { aggregate: 'aggregate', insert: 'insert', update: 'update', find: 'find' } as const;

/** The operations as workload records (a queries file's source), the way the Node API is given them. */
export function embedRecords(db: string, ops: readonly EmbedOperation[]): WorkloadRecord[] {
  return ops.map((o) => {
    const kind = Object.keys(o.command)[0] as keyof typeof OP_KIND;
    return makeRecord(
      { source: 'file', ns: { db, coll: o.coll }, op: OP_KIND[kind], durationMillis: o.millis },
      o.command,
    );
  });
}

/**
 * The operations as mongod 4.4+ writes them to its JSON log when each runs past slowms (id 51803, "Slow query"):
 * reads and inserts as `"c":"COMMAND"` lines with the command as sent (an insert's documents travel in an OP_MSG
 * document sequence, so the logged command holds none: `ninserted` counts them), each update statement as a
 * `"c":"WRITE"` line whose `command` is the statement (`q`, `u`, `multi`, `upsert`), as keyhole's
 * mdb/logv2_parser_test.go shows them.
 */
export function embedLogLines(db: string, ops: readonly EmbedOperation[]): string[] {
  const t = { $date: new Date().toISOString() };
  return ops.map((o, i) => {
    const ns = `${db}.${o.coll}`;
    const { $db: _db, documents, updates, ...rest } = o.command;
    let entry: Record<string, unknown>;
    if (Array.isArray(updates)) {
      const st = updates[0] as Record<string, unknown>;
      const command = { q: st.q, u: st.u, multi: false, upsert: false };
      const attr = { type: 'update', ns, command, durationMillis: o.millis, nMatched: 1, nModified: 1 };
      entry = { t, s: 'I', c: 'WRITE', id: 51803, ctx: `conn${i}`, msg: 'Slow query', attr };
    } else {
      const command = { ...rest, $db: db };
      const inserted = Array.isArray(documents) ? { ninserted: documents.length } : {};
      const attr = { type: 'command', ns, command, durationMillis: o.millis, ...inserted };
      entry = { t, s: 'I', c: 'COMMAND', id: 51803, ctx: `conn${i}`, msg: 'Slow query', attr };
    }
    return EJSON.stringify(entry, { relaxed: true });
  });
}
