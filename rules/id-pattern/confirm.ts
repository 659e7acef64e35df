import { randomBytes } from 'node:crypto';
import type { BsonKit, Doc } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { ratioOf, timeTrials, toMeasurement, verdict } from '../../src/confirm/harness';
import { formatBytes, formatDuration } from '../../src/core/format';
import type { Confirmation, Finding, Measurement } from '../../src/core/types';
import type { IdPatternOptions } from './analyze';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;
const BATCH = 500;

/** UUID v7: 48-bit millisecond time, version 7, random rest; `seq` keeps ids made in one millisecond ordered. */
export function uuid7Hex(ms: number, seq: number): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | ((seq >> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  return b.toString('hex');
}

export function uuid4Hex(): string {
  const b = randomBytes(16);
  b[6] = 0x40 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  return b.toString('hex');
}

/** _ids made like the collection's: same type, same order (monotonic or random), same size for strings. */
export function idGenerator(bson: BsonKit, evidence: Finding['evidence']): { make: () => unknown; describe: string } {
  const label = String(evidence.idType);
  const random = evidence.order === 'random';
  let n = 0;
  let ms = Date.now();
  if (label === 'ObjectId') return { make: () => bson.objectId(), describe: 'new ObjectIds (monotonic)' };
  if (label.startsWith('UUID v7') || (label.startsWith('UUID') && !random)) {
    return {
      make: () => {
        const seq = n++ % 4096;
        if (seq === 4095) ms++;
        return bson.uuid(uuid7Hex(ms, seq));
      },
      describe: 'UUID v7 (time-ordered)',
    };
  }
  if (label.startsWith('UUID')) return { make: () => bson.uuid(uuid4Hex()), describe: 'random UUID v4' };
  if (label === 'string') {
    const len = Math.max(1, Number(evidence.idBytes) - 5);
    return random
      ? { make: () => randomBytes(len).toString('hex').slice(0, len), describe: `random ${len}-character strings` }
      : { make: () => String(n++).padStart(len, '0'), describe: `increasing ${len}-character strings` };
  }
  if (label.includes('integer')) {
    return random
      ? { make: () => Math.floor(Math.random() * 2 ** 31), describe: 'random integers' }
      : { make: () => n++, describe: 'increasing integers' };
  }
  return { make: () => bson.objectId(), describe: 'new ObjectIds (the _id type could not be reproduced)' };
}

function strip(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

const sum = (o: Doc | null, skip: string): number => Object.entries((o?.indexSizes as Doc | undefined) ?? {}).reduce((s, [k, v]) => (k === skip ? s : s + Number(v)), 0);

export async function confirmIdPattern(ctx: ConfirmContext, f: Finding, _o: IdPatternOptions): Promise<Result> {
  if (f.messageId !== 'recommendClustered' && f.messageId !== 'adviseAgainstClustered') {
    return { status: 'not-run', summary: 'Nothing to measure: this finding makes no clustered-vs-regular claim.', measurements: [] };
  }
  const s = ctx.scratch;
  const { db, collection } = f.target;
  await s.drop('id_clustered');
  await s.drop('id_regular');
  let clusteredOptions: Doc;
  try {
    clusteredOptions = await s.create('id_clustered', { clusteredIndex: { key: { _id: 1 }, unique: true } });
  } catch (err) {
    return { status: 'not-run', summary: 'The server refused to create a clustered collection, so nothing was measured.', reason: String((err as Error).message ?? err), measurements: [] };
  }
  if (clusteredOptions.clusteredIndex === undefined) {
    await s.drop('id_clustered');
    return {
      status: 'not-run',
      summary: 'The server accepted clusteredIndex but ignored it (listCollections shows no clusteredIndex on the scratch collection), so nothing was measured.',
      reason: 'clustered collections are not supported by this server',
      measurements: [],
    };
  }
  await s.create('id_regular');
  const source = collection ? (await ctx.sourceDocs(db, collection)).map(strip) : [];
  const bodies = source.length > 0 ? source : Array.from({ length: BATCH }, (_, i) => ({ v: i }));
  const avg = bodies.reduce((t, d) => t + JSON.stringify(d).length, 0) / bodies.length;
  const secondary = (ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((c) => c.name === collection)?.indexes ?? [])
    .filter((i) => i.name !== '_id_' && !i.unique && !Object.values(i.key).some((v) => typeof v === 'string'))
    .map((i) => ({ key: i.key, name: i.name }));
  for (const c of ['id_clustered', 'id_regular']) if (secondary.length) await s.command({ createIndexes: c, indexes: secondary });

  const gen = idGenerator(s.adapter.bson, f.evidence);
  const batch = (): { clustered: Doc[]; regular: Doc[] } => {
    const clustered: Doc[] = [];
    const regular: Doc[] = [];
    for (let i = 0; i < Math.min(BATCH, bodies.length); i++) {
      const body = bodies[(i + clustered.length) % bodies.length] as Doc;
      clustered.push({ _id: gen.make(), ...body });
      regular.push({ _id: gen.make(), ...body });
    }
    return { clustered, regular };
  };
  let next = batch();
  const insertBudget = ctx.budget.slice(0.6);
  const prepare = async (): Promise<void> => {
    next = batch();
  };
  const insertInto = (coll: 'id_clustered' | 'id_regular') => async (): Promise<void> => {
    const docs = coll === 'id_clustered' ? next.clustered : next.regular;
    await s.insertMany(coll, docs, avg);
  };
  const insC = await timeTrials(`insert ${BATCH} docs, clustered`, insertBudget.slice(0.5), insertInto('id_clustered'), undefined, prepare);
  const insR = await timeTrials(`insert ${BATCH} docs, regular`, insertBudget, insertInto('id_regular'), undefined, prepare);

  // an _id range scan over about a tenth of what was inserted
  const ids = (await s.command({ find: 'id_regular', filter: {}, projection: { _id: 1 }, sort: { _id: 1 }, limit: 100000, batchSize: 100000 })) as { cursor?: { firstBatch?: Doc[] } };
  const sorted = ids.cursor?.firstBatch ?? [];
  const lo = sorted[Math.floor(sorted.length * 0.45)]?._id;
  const hi = sorted[Math.floor(sorted.length * 0.55)]?._id;
  const scanBudget = ctx.budget.slice(1);
  const scan = (coll: string) => async (): Promise<void> => {
    await s.command({ find: coll, filter: { _id: { $gte: lo, $lte: hi } }, batchSize: 100000, singleBatch: true });
  };
  const scanC = await timeTrials('_id range scan, clustered', scanBudget.slice(0.5), scan('id_clustered'));
  const scanR = await timeTrials('_id range scan, regular', scanBudget, scan('id_regular'));

  const statC = await s.collStats('id_clustered');
  const statR = await s.collStats('id_regular');
  const secC = sum(statC, '_id_');
  const secR = sum(statR, '_id_');
  await s.drop('id_clustered');
  await s.drop('id_regular');

  const measurements: Measurement[] = [toMeasurement(insC), toMeasurement(insR), toMeasurement(scanC), toMeasurement(scanR)];
  if (secondary.length && secR > 0) {
    measurements.push({ label: 'secondary index bytes, clustered', unit: 'bytes', median: secC, low: secC, high: secC, trials: 1 });
    measurements.push({ label: 'secondary index bytes, regular', unit: 'bytes', median: secR, low: secR, high: secR, trials: 1 });
  }
  const complete = insC.complete && insR.complete && scanC.complete && scanR.complete;
  const insertRatio = ratioOf('insert time, clustered / regular', insC, insR);
  const scanRatio = ratioOf('_id range scan time, clustered / regular', scanC, scanR);
  const fmt = (x: number): string => `${x.toFixed(2)}x`;
  const sizes = secondary.length && secR > 0 ? ` Secondary indexes: ${formatBytes(secC)} clustered vs ${formatBytes(secR)} regular (${Math.round((secC / secR - 1) * 100)}%).` : '';
  const body = `With ${gen.describe} and ${source.length > 0 ? `${source.length} documents copied from ${collection}` : 'filler documents'}: inserts took ${fmt(insertRatio.median)} as long clustered as regular (95% CI ${fmt(insertRatio.low)}–${fmt(insertRatio.high)}, median ${formatDuration(toMeasurement(insC).median)} vs ${formatDuration(toMeasurement(insR).median)} per ${BATCH}); an _id range scan took ${fmt(scanRatio.median)} (${fmt(scanRatio.low)}–${fmt(scanRatio.high)}).${sizes}`;
  if (!complete) return { status: 'inconclusive', summary: `${body} The time budget ran out before five trials of each.`, ratio: insertRatio, measurements };
  if (f.messageId === 'adviseAgainstClustered') {
    const v = verdict(insertRatio, 1);
    const bigger = secondary.length && secR > 0 && secC > secR * 1.05;
    const status = v === 'above' || (v === 'straddles' && bigger) ? 'supported' : v === 'below' && !bigger ? 'refuted' : 'inconclusive';
    return { status, summary: body, ratio: insertRatio, measurements };
  }
  const v = verdict(scanRatio, 1);
  return { status: v === 'below' ? 'supported' : v === 'above' ? 'refuted' : 'inconclusive', summary: body, ratio: scanRatio, measurements };
}
