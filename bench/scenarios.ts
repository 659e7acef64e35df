/**
 * Seeded databases besides the demo's blog (src/demo/seed.ts), for benches that rerun a check with confirmation and
 * compare the figures (issue 17, "Figures that repeat"). Each scenario is seeded like the demo: `seed(client, db)`
 * drops `db` and writes it anew, then `check(adapter, { db, rules, confirm: true, settings })` runs on it.
 *
 * - shop: orders, customers and products — a redundant index pair, an unused index, totals sometimes written as
 *   text, string UUID `_id`s, prices keyed by region (index-usage, mixed-types, id-pattern, dynamic-keys; the
 *   validator rule off);
 * - tenants: 64 per-tenant collections, a compressible audit log, a clustered collection read by `$in` on `_id`, and
 *   a plan catalogue of one shape (collection-count, compression, clustered-trap, validator).
 *
 * The data is generated (nothing fetched, no real personal data). Values come from a seeded generator, so every seed
 * writes the same documents apart from ObjectIds and dates (relative to the time of seeding); shapes and counts
 * never vary.
 */
import { type CreateCollectionOptions, type MongoClient, ObjectId } from 'mongodb';
import type { AnalyzeSettings } from '../src/core/runner';
import { prng as rng } from '../src/core/stats';

export type Settings = AnalyzeSettings;

export interface Scenario {
  name: string;
  /** The database `seed` writes (and drops first). */
  db: string;
  description: string;
  /** Settings the scenario's check runs with, as the demo's DEMO_SETTINGS. */
  settings: Settings;
  seed(client: MongoClient, db: string): Promise<void>;
}

const DAY = 86_400_000;

type Rand = () => number;

/** A canonical UUID v4 string (8-4-4-4-12) from the generator. */
function uuid4(rand: Rand): string {
  const b = Array.from({ length: 16 }, () => Math.floor(rand() * 256));
  b[6] = 0x40 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function pick<T>(rand: Rand, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)] as T;
}

const SHOP_CUSTOMERS = 1500;
const SHOP_ORDERS = 3000;
const SHOP_PRODUCTS = 2000;
/** Region codes such as `eu-west-2`: a digit and a separator, the `code` key shape the profiler folds into a map. */
const REGIONS = [
  'us-east',
  'us-west',
  'eu-west',
  'eu-central',
  'ap-south',
  'ap-northeast',
  'sa-east',
  'ca-central',
].flatMap((area) => Array.from({ length: 25 }, (_, n) => `${area}-${n + 1}`));

/** customers: string UUID `_id`s with a secondary index (id-pattern: uuidAsString). */
async function seedCustomers(client: MongoClient, dbName: string, rand: Rand, now: number): Promise<string[]> {
  const db = client.db(dbName);
  const customers = Array.from({ length: SHOP_CUSTOMERS }, (_, i) => ({
    _id: uuid4(rand),
    handle: `customer-${i}`,
    email: `customer-${i}@example.test`,
    region: pick(rand, REGIONS),
    createdAt: new Date(now - Math.floor(rand() * 700) * DAY),
    marketingOptIn: rand() < 0.4,
  }));
  await db.collection<{ _id: string }>('customers').insertMany(customers);
  await db.collection('customers').createIndex({ region: 1, createdAt: -1 });
  return customers.map((c) => c._id);
}

/**
 * orders: ObjectId `_id`s, a redundant pair {customerId} / {customerId, createdAt}, an index no query uses
 * {couponCode} (index-usage), and a `total` that one order in six holds as a number's text (mixed-types).
 */
async function seedOrders(client: MongoClient, dbName: string, rand: Rand, now: number, ids: string[]): Promise<void> {
  const orders = client.db(dbName).collection('orders');
  const statuses = ['placed', 'paid', 'packed', 'shipped', 'delivered', 'returned'];
  const docs = Array.from({ length: SHOP_ORDERS }, (_, i) => {
    const createdAt = new Date(now - (SHOP_ORDERS - i) * 20 * 60_000);
    const items = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => ({
      sku: `SKU-${String(Math.floor(rand() * SHOP_PRODUCTS)).padStart(5, '0')}`,
      qty: 1 + Math.floor(rand() * 3),
      unitPrice: Math.round(rand() * 9000 + 100) / 100,
    }));
    const sum = Math.round(items.reduce((s, it) => s + it.qty * it.unitPrice, 0) * 100) / 100;
    return {
      _id: ObjectId.createFromTime(Math.floor(createdAt.getTime() / 1000)),
      customerId: pick(rand, ids),
      createdAt,
      status: pick(rand, statuses),
      items,
      // Older checkout code wrote the total as text.
      total: i % 6 === 0 ? sum.toFixed(2) : sum,
      currency: 'EUR',
      couponCode: rand() < 0.1 ? `SPRING${Math.floor(rand() * 90) + 10}` : null,
    };
  });
  await orders.insertMany(docs);
  await orders.createIndex({ customerId: 1 });
  // {customerId} is a prefix of {customerId, createdAt}: redundant.
  await orders.createIndex({ customerId: 1, createdAt: -1 });
  // No query uses it (judged where the server counts index use; SecantusDB does not).
  await orders.createIndex({ couponCode: 1 });
}

/** products: prices keyed by region code, 3 to 8 regions of 200 per product (dynamic-keys: map). */
async function seedProducts(client: MongoClient, dbName: string, rand: Rand): Promise<void> {
  const docs = Array.from({ length: SHOP_PRODUCTS }, (_, i) => {
    const n = 3 + Math.floor(rand() * 6);
    const start = Math.floor(rand() * REGIONS.length);
    const priceByRegion = Object.fromEntries(
      Array.from({ length: n }, (_, k) => [
        REGIONS[(start + k * 23) % REGIONS.length] as string,
        Math.round(rand() * 20000 + 100) / 100,
      ]),
    );
    return { _id: new ObjectId(), sku: `SKU-${String(i).padStart(5, '0')}`, name: `Product ${i}`, priceByRegion };
  });
  await client.db(dbName).collection('products').insertMany(docs);
  await client.db(dbName).collection('products').createIndex({ sku: 1 });
}

async function seedShop(client: MongoClient, dbName: string): Promise<void> {
  await client.db(dbName).dropDatabase();
  const rand = rng(17);
  const now = Date.now();
  const customers = await seedCustomers(client, dbName, rand, now);
  await seedOrders(client, dbName, rand, now, customers);
  await seedProducts(client, dbName, rand);
}

const TENANTS = 64;
const TENANT_DOCS = 8;
const AUDIT_DOCS = 4000;
const METER_READINGS = 5000;
const PLANS = 600;

/**
 * org_<n>_invoices: 64 per-tenant collections of one shape and one index (collection-count: tenantCollections).
 * Each holds fewer documents than the validator rule's minimum sample, so no validator finding per tenant.
 */
async function seedTenantCollections(client: MongoClient, dbName: string, rand: Rand, now: number): Promise<void> {
  const db = client.db(dbName);
  for (let t = 1; t <= TENANTS; t++) {
    const coll = db.collection(`org_${String(t).padStart(3, '0')}_invoices`);
    await coll.insertMany(
      Array.from({ length: TENANT_DOCS }, (_, i) => ({
        number: `INV-${t}-${i}`,
        customerRef: Math.floor(rand() * 50),
        issuedAt: new Date(now - i * DAY),
        amount: Math.round(rand() * 50000) / 100,
        paid: rand() < 0.7,
      })),
    );
    await coll.createIndex({ customerRef: 1, issuedAt: -1 });
  }
}

/** A validator every seeded document passes (strict, error): the validator rule has nothing to say there. */
function enforced(schema: Record<string, unknown>): CreateCollectionOptions {
  return { validator: { $jsonSchema: schema }, validationLevel: 'strict', validationAction: 'error' };
}

/**
 * audit_log: about 4 MB of repetitive JSON-like text, compressible (compression, where the server reports its
 * compressor), under a validator that every document passes.
 */
async function seedAuditLog(client: MongoClient, dbName: string, rand: Rand, now: number): Promise<void> {
  const actions = ['invoice.create', 'invoice.update', 'invoice.send', 'user.login', 'user.logout', 'plan.change'];
  const docs = Array.from({ length: AUDIT_DOCS }, (_, i) => {
    const action = pick(rand, actions);
    const detail = `{"action":"${action}","actor":"service-account-${i % 7}","result":"ok","client":"web/2.4.1"} `;
    const at = new Date(now - (AUDIT_DOCS - i) * 30_000);
    return { at, tenant: 1 + (i % TENANTS), action, detail: detail.repeat(10) };
  });
  // Its writer's schema is enforced (strict, error): no validator finding, so no validator experiment here.
  const schema = {
    bsonType: 'object',
    required: ['at', 'action', 'detail'],
    properties: { at: { bsonType: 'date' }, action: { bsonType: 'string' }, detail: { bsonType: 'string' } },
  };
  await client.db(dbName).createCollection('audit_log', enforced(schema));
  await client.db(dbName).collection('audit_log').insertMany(docs);
}

/**
 * meter_readings: clustered on `_id` where the server keeps the option (clustered-trap: a two-_id `$in` that reads
 * the whole collection; 5,000 documents, past the 2,000 the rule's default examinedRatio allows for two values).
 */
async function seedMeterReadings(client: MongoClient, dbName: string, rand: Rand, now: number): Promise<void> {
  const db = client.db(dbName);
  // Under a validator, so its only finding is the trap's: the demo's readings already has the validator experiment on
  // small clustered documents.
  const schema = { bsonType: 'object', required: ['meter', 'kwh'] };
  const clustered = { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'meter readings clustered key' } };
  await db
    .createCollection('meter_readings', { ...clustered, ...enforced(schema) })
    .catch(() => db.createCollection('meter_readings', enforced(schema)));
  const docs = Array.from({ length: METER_READINGS }, (_, i) => {
    const at = now - (METER_READINGS - i) * 60_000;
    const _id = ObjectId.createFromTime(Math.floor(at / 1000));
    return { _id, meter: i % 40, kwh: Math.round(rand() * 5000) / 1000 };
  });
  await db.collection('meter_readings').insertMany(docs);
}

/** plans: one shape in every document and no validator (validator: missingComplete or missing). */
async function seedPlans(client: MongoClient, dbName: string, rand: Rand, now: number): Promise<void> {
  const tiers = ['free', 'team', 'business', 'enterprise'];
  const docs = Array.from({ length: PLANS }, (_, i) => ({
    _id: new ObjectId(),
    tenant: 1 + (i % TENANTS),
    tier: pick(rand, tiers),
    seats: 1 + Math.floor(rand() * 200),
    monthlyPrice: Math.round(rand() * 100000) / 100,
    startedAt: new Date(now - Math.floor(rand() * 900) * DAY),
    features: { sso: rand() < 0.3, auditExport: rand() < 0.5, apiCallsPerDay: 1000 * (1 + Math.floor(rand() * 50)) },
  }));
  await client.db(dbName).collection('plans').insertMany(docs);
}

async function seedTenants(client: MongoClient, dbName: string): Promise<void> {
  await client.db(dbName).dropDatabase();
  const rand = rng(29);
  const now = Date.now();
  await seedTenantCollections(client, dbName, rand, now);
  await seedAuditLog(client, dbName, rand, now);
  await seedMeterReadings(client, dbName, rand, now);
  await seedPlans(client, dbName, rand, now);
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'shop',
    db: 'mongo_advisor_scenario_shop',
    description:
      'orders (3,000, ObjectId _id, redundant {customerId} / {customerId, createdAt}, unused {couponCode}, total as ' +
      'text in 1 of 6), customers (1,500, string UUID _id, secondary index), products (2,000, prices keyed by ' +
      'region code, 200 codes); validator off',
    // The validator's experiment takes about 30 s per collection on a loaded machine: the tenants scenario has it.
    settings: { rules: { validator: 'off' } },
    seed: seedShop,
  },
  {
    name: 'tenants',
    db: 'mongo_advisor_scenario_tenants',
    description:
      `${TENANTS} org_<n>_invoices collections of ${TENANT_DOCS} documents with one index, audit_log (about 4 MB of ` +
      `repetitive text, a validator all pass), ` +
      `meter_readings (${METER_READINGS.toLocaleString('en-US')}, clustered where kept, a validator all pass), ` +
      `plans (${PLANS}, one shape, no validator)`,
    // As the demo: the compression rule's size floor lowered so the small audit log qualifies.
    settings: { rules: { compression: { options: { minDataBytes: 1024 * 1024 } } } },
    seed: seedTenants,
  },
];
