import { randomBytes } from 'node:crypto';
import { type Db, MongoClient, ObjectId, UUID } from 'mongodb';

const DAY = 86_400_000;

/** The database the demo and `mongo-advisor server` seed. */
export const DEMO_DB = 'mongo_advisor_demo_blog';

/** One comment of about 1 KB, as in the field report. */
function comment(i: number, at: Date): Record<string, unknown> {
  return {
    author: `user${i % 500}`,
    at,
    text: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(17).slice(0, 960),
  };
}

/** Posts created `daysAgo` days ago holding n comments each, as the blog field report's table (1 to 10,000). */
export const DEMO_POSTS = [
  { comments: 1, daysAgo: 400 },
  { comments: 10, daysAgo: 300 },
  { comments: 100, daysAgo: 200 },
  { comments: 1000, daysAgo: 120 },
  { comments: 10000, daysAgo: 45 },
];

/** Per-tenant collections the demo seeds (collection-count). */
export const DEMO_TENANTS = 12;

/**
 * What the demo seeds, in the words its first lines and the README use (test/readme.test.ts compares them with the
 * README and with DEMO_POSTS).
 */
export const DEMO_SEEDS =
  'posts with 1, 10, 100, 1,000 and 10,000 comments of 1 KB, sessions (UUID _id), events (ObjectId _id), ' +
  '12 per-tenant collections, logs, carts (string UUID _id, items keyed by SKU), a clustered collection';

/**
 * Seeds `db` so that every rule has something to look at:
 * - posts: embedded comments, 1 to 10,000 per post, plus 15 small posts (array-growth, document-size), with a
 *   redundant index pair {author} / {author, title} (index-usage);
 * - sessions (UUID v4 _id) and events (ObjectId _id), each with a secondary index (id-pattern, validator);
 * - tenant_<n>_events: 12 small per-tenant collections with the same index (collection-count);
 * - logs: repetitive text, compressible (compression, on WiredTiger);
 * - carts: string UUID _ids, items keyed by SKU, a total sometimes written as a string (id-pattern, dynamic-keys,
 *   mixed-types);
 * - readings: a clustered collection where the server has them (clustered-trap; other servers ignore or refuse it).
 * Documents are inserted whole. `extras: false` seeds only posts, sessions and events (tests pin their findings).
 */
export async function seedDemo(client: MongoClient, dbName: string, opts: { extras?: boolean } = {}): Promise<void> {
  const db = client.db(dbName);
  await db.dropDatabase();
  const now = Date.now();
  await seedPosts(db, now);
  await seedSessionsAndEvents(db, now);
  if (opts.extras === false) return;
  await seedExtras(db, now);
}

/** posts: arrays of comments growing with each post's age, inserted in creation order. */
async function seedPosts(db: Db, now: number): Promise<void> {
  const posts = [];
  for (const p of DEMO_POSTS) {
    const created = now - p.daysAgo * DAY;
    posts.push({
      _id: ObjectId.createFromTime(Math.floor(created / 1000)),
      title: `A post with ${p.comments} comments`,
      author: 'demo',
      tags: ['mongodb', 'schema'],
      comments: Array.from({ length: p.comments }, (_, i) =>
        comment(i, new Date(created + ((now - created) * i) / p.comments)),
      ),
    });
  }
  for (let k = 0; k < 15; k++) {
    const created = now - (30 + k * 20) * DAY;
    posts.push({
      _id: ObjectId.createFromTime(Math.floor(created / 1000)),
      title: `Short post ${k}`,
      author: 'demo',
      tags: ['misc'],
      comments: Array.from({ length: 2 + (k % 4) }, (_, i) => comment(i, new Date(created))),
    });
  }
  // Inserted in creation order, as a live blog would have written them.
  posts.sort((a, b) => a._id.getTimestamp().getTime() - b._id.getTimestamp().getTime());
  for (const p of posts) await db.collection('posts').insertOne(p);
  await db.collection('posts').createIndex({ author: 1 });
}

/** sessions (UUID _ids) and events (ObjectId _ids), each with a secondary index. */
async function seedSessionsAndEvents(db: Db, now: number): Promise<void> {
  const sessions = Array.from({ length: 3000 }, (_, i) => ({
    _id: new UUID(uuid4()),
    userId: i % 300,
    startedAt: new Date(now - i * 60_000),
    device: i % 3 === 0 ? 'mobile' : 'desktop',
  }));
  await db.collection<{ _id: UUID }>('sessions').insertMany(sessions);
  await db.collection('sessions').createIndex({ userId: 1 });

  const events = Array.from({ length: 3000 }, (_, i) => ({
    _id: new ObjectId(),
    type: ['view', 'click', 'share'][i % 3],
    at: new Date(now - (3000 - i) * 1000),
    value: i,
  }));
  await db.collection('events').insertMany(events);
  await db.collection('events').createIndex({ type: 1, at: 1 });
}

/** What `extras: false` leaves out: a redundant index, tenant collections, logs, carts and readings. */
async function seedExtras(db: Db, now: number): Promise<void> {
  // {author} is a prefix of {author, title}: redundant.
  await db.collection('posts').createIndex({ author: 1, title: 1 });
  for (let t = 1; t <= DEMO_TENANTS; t++) {
    const tenant = db.collection(`tenant_${t}_events`);
    await tenant.insertMany(
      Array.from({ length: 5 }, (_, i) => ({ userId: i, at: new Date(now - i * 60_000), kind: 'login' })),
    );
    await tenant.createIndex({ userId: 1, at: -1 });
  }

  const line = 'GET /api/v1/posts/42/comments 200 12ms user-agent=Mozilla/5.0 (X11; Linux x86_64) ';
  await db.collection('logs').insertMany(
    Array.from({ length: 3000 }, (_, i) => ({
      at: new Date(now - i * 1000),
      level: i % 50 === 0 ? 'warn' : 'info',
      message: line.repeat(12),
      host: `web-${i % 4}`,
    })),
  );

  // A shop's carts as many apps write them: UUIDs kept as 36-character strings, items keyed by SKU (keys that are
  // data) and a price that older code wrote as a string (id-pattern, dynamic-keys, mixed-types).
  await db.collection<{ _id: string }>('carts').insertMany(
    Array.from({ length: 2000 }, (_, i) => ({
      _id: canonical(uuid4()),
      userId: i % 400,
      itemsBySku: Object.fromEntries(
        Array.from({ length: 1 + (i % 4) }, (_, k) => [
          `SKU-${String((i * 7 + k * 131) % 5000).padStart(5, '0')}`,
          1 + ((i + k) % 3),
        ]),
      ),
      total: i % 5 === 0 ? ((i % 97) + 0.99).toFixed(2) : (i % 97) + 0.99,
      updatedAt: new Date(now - i * 90_000),
    })),
  );

  // Clustered where the server supports it; a server that ignores or refuses the option gets a regular collection.
  await db
    .createCollection('readings', { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'readings clustered key' } })
    .catch(() => db.createCollection('readings'));
  await db
    .collection('readings')
    .insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: new ObjectId(), sensor: i % 10, value: i * 0.5 })));
}

/** Settings the demo runs with: the compression rule's size floor lowered so the small demo logs qualify. */
export const DEMO_SETTINGS = { rules: { compression: { options: { minDataBytes: 1024 * 1024 } } } };

/** 32 hex digits in the canonical 8-4-4-4-12 form. */
function canonical(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function uuid4(): string {
  const b = randomBytes(16);
  b[6] = 0x40 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  return b.toString('hex');
}
