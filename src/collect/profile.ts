import { ELEMENT_KIND, type ArrayProfile, type DocProfile, type FieldProfile } from '../core/types';
import {
  type BsonTypeName,
  binaryLength,
  indexKeyBytes,
  isDate,
  isPlainNumberInt32,
  objectIdSeconds,
  utf8Length,
} from './bson-size';

/**
 * One pass over a document: its BSON size, every array path with lengths and bytes, and the field/type
 * census. Keeps no values. This is the advisor's hot path (bench/analyze-throughput).
 */
export class Profiler {
  readonly fields = new Map<string, FieldProfile>();
  private arrays: Map<string, ArrayProfile> | null = null;
  private readonly childPaths = new Map<string, Map<string, string>>();

  constructor(private readonly timeField: string | null) {}

  profile(doc: Record<string, unknown>): DocProfile {
    this.arrays = null;
    let bytes = 5;
    const largest: { path: string; bytes: number }[] = [];
    for (const key in doc) {
      const v = doc[key];
      if (v === undefined) continue;
      const path = this.childPath('', key);
      const fieldBytes = 2 + utf8Length(key) + this.value(v, path);
      bytes += fieldBytes;
      if (largest.length < 3) {
        largest.push({ path, bytes: fieldBytes });
        largest.sort((a, b) => b.bytes - a.bytes);
      } else if (fieldBytes > (largest[2] as { bytes: number }).bytes) {
        largest[2] = { path, bytes: fieldBytes };
        largest.sort((a, b) => b.bytes - a.bytes);
      }
    }
    return {
      bytes,
      createdAt: this.createdAt(doc),
      measuredOnServer: false,
      arrays: this.arrays ? [...(this.arrays as Map<string, ArrayProfile>).values()] : [],
      largestFields: largest,
    };
  }

  private createdAt(doc: Record<string, unknown>): number | null {
    if (this.timeField === null) return null;
    const v = this.timeField === '_id' ? doc._id : doc[this.timeField];
    if (v === null || typeof v !== 'object') return null;
    if (this.timeField === '_id') return (v as { _bsontype?: string })._bsontype === 'ObjectId' ? objectIdSeconds(v) * 1000 : null;
    return isDate(v) ? v.getTime() : null;
  }

  private childPath(parent: string, key: string): string {
    let m = this.childPaths.get(parent);
    if (!m) {
      m = new Map();
      this.childPaths.set(parent, m);
    }
    let p = m.get(key);
    if (p === undefined) {
      p = parent === '' ? key : `${parent}.${key}`;
      m.set(key, p);
    }
    return p;
  }

  private note(path: string, type: BsonTypeName): void {
    let f = this.fields.get(path);
    if (!f) {
      f = { present: 0, types: {} };
      this.fields.set(path, f);
    }
    f.present++;
    f.types[type] = (f.types[type] ?? 0) + 1;
  }

  /** Bytes of the value (without type byte and key); records the field and any arrays under it. */
  private value(v: unknown, path: string): number {
    switch (typeof v) {
      case 'string':
        this.note(path, 'string');
        return 5 + utf8Length(v);
      case 'number':
        if (isPlainNumberInt32(v)) {
          this.note(path, 'int');
          return 4;
        }
        this.note(path, 'double');
        return 8;
      case 'boolean':
        this.note(path, 'bool');
        return 1;
      case 'bigint':
        this.note(path, 'long');
        return 8;
      case 'object':
        break;
      default:
        this.note(path, 'undefined');
        return 0;
    }
    if (v === null) {
      this.note(path, 'null');
      return 0;
    }
    if (Array.isArray(v)) {
      this.note(path, 'array');
      return this.array(v, path);
    }
    const t = (v as { _bsontype?: unknown })._bsontype;
    if (typeof t === 'string') return this.bsonValue(v as Record<string, unknown>, t, path);
    if (isDate(v)) {
      this.note(path, 'date');
      return 8;
    }
    if (v instanceof Uint8Array) {
      this.note(path, 'binData');
      return 5 + v.byteLength;
    }
    if (v instanceof RegExp) {
      this.note(path, 'regex');
      return utf8Length(v.source) + v.flags.length + 2;
    }
    this.note(path, 'object');
    return this.object(v as Record<string, unknown>, path);
  }

  private object(o: Record<string, unknown>, path: string): number {
    let bytes = 5;
    for (const key in o) {
      const child = o[key];
      if (child === undefined) continue;
      bytes += 2 + utf8Length(key) + this.value(child, this.childPath(path, key));
    }
    return bytes;
  }

  private array(a: unknown[], path: string): number {
    let elementBytes = 0;
    let keyBytes = 0;
    let kinds = 0;
    const nested = this.childPath(path, '$[]');
    for (let i = 0; i < a.length; i++) {
      const el = a[i];
      keyBytes += 1 + indexKeyBytes(i);
      if (el !== null && typeof el === 'object') {
        if (Array.isArray(el)) {
          kinds |= ELEMENT_KIND.array;
          this.note(nested, 'array');
          elementBytes += this.array(el, nested);
          continue;
        }
        const bt = (el as { _bsontype?: unknown })._bsontype;
        if (bt === undefined && !isDate(el) && !(el instanceof Uint8Array) && !(el instanceof RegExp)) {
          kinds |= ELEMENT_KIND.object;
          elementBytes += this.object(el as Record<string, unknown>, path);
          continue;
        }
        kinds |= bt === 'ObjectId' ? ELEMENT_KIND.objectId : ELEMENT_KIND.other;
        elementBytes += this.elementScalar(el, nested);
        continue;
      }
      kinds |= typeof el === 'string' ? ELEMENT_KIND.string : typeof el === 'number' || typeof el === 'bigint' ? ELEMENT_KIND.number : ELEMENT_KIND.other;
      elementBytes += this.elementScalar(el, nested);
    }
    const bytes = 5 + keyBytes + elementBytes;
    const arrays = (this.arrays ??= new Map());
    const prev = arrays.get(path);
    if (prev) {
      prev.occurrences++;
      prev.maxLength = Math.max(prev.maxLength, a.length);
      prev.totalLength += a.length;
      prev.bytes += bytes;
      prev.elementBytes += elementBytes;
      prev.kinds |= kinds;
    } else {
      arrays.set(path, { path, occurrences: 1, maxLength: a.length, totalLength: a.length, bytes, elementBytes, kinds });
    }
    return bytes;
  }

  /** Scalars inside arrays are sized but counted in the census under `path.$[]` (their element type). */
  private elementScalar(el: unknown, nestedPath: string): number {
    return this.value(el, nestedPath);
  }

  private bsonValue(v: Record<string, unknown>, t: string, path: string): number {
    switch (t) {
      case 'ObjectId':
      case 'ObjectID':
        this.note(path, 'objectId');
        return 12;
      case 'Binary':
        this.note(path, 'binData');
        return 5 + binaryLength(v);
      case 'Long':
        this.note(path, 'long');
        return 8;
      case 'Int32':
        this.note(path, 'int');
        return 4;
      case 'Double':
        this.note(path, 'double');
        return 8;
      case 'Decimal128':
        this.note(path, 'decimal');
        return 16;
      case 'Timestamp':
        this.note(path, 'timestamp');
        return 8;
      case 'MinKey':
        this.note(path, 'minKey');
        return 0;
      case 'MaxKey':
        this.note(path, 'maxKey');
        return 0;
      case 'BSONRegExp':
        this.note(path, 'regex');
        return utf8Length(String(v.pattern ?? '')) + String(v.options ?? '').length + 2;
      case 'Code': {
        this.note(path, 'javascript');
        const code = 5 + utf8Length(String(v.code ?? ''));
        return v.scope ? code + 4 + this.object(v.scope as Record<string, unknown>, path) : code;
      }
      case 'BSONSymbol':
      case 'Symbol':
        this.note(path, 'symbol');
        return 5 + utf8Length(String(v.value ?? ''));
      case 'DBRef':
        this.note(path, 'object');
        return 5 + 2 + 5 + 5 + utf8Length(String(v.collection ?? '')) + 4 + 12;
      default:
        this.note(path, 'object');
        return 0;
    }
  }
}
