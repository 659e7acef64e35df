import { ELEMENT_KIND, type ArrayProfile, type DocProfile, type DynamicKeyProfile, type FieldProfile } from '../core/types';
import { BSON_TYPE_NAMES, bsonTypeOfTag } from '../lib/bson-types';
import {
  binaryLength,
  isDate,
  isPlainNumberInt32,
  objectIdSeconds,
} from './bson-size';

/** Type codes for the census: an index into a counter array is cheaper than a keyed property per value. */
const TYPE_NAMES = BSON_TYPE_NAMES;
const T = Object.fromEntries(TYPE_NAMES.map((n, i) => [n, i])) as { readonly [K in (typeof TYPE_NAMES)[number]]: number };

/** What the profiler knows about one dotted path, shared by every tree node that spells it. */
interface PathInfo {
  readonly path: string;
  /** Values seen at the path (0 until the first: the census lists paths in the order first seen). */
  present: number;
  /** Values seen per type code, and the codes in the order first seen. */
  readonly counts: Float64Array;
  readonly seen: number[];
  /** The ArrayProfile of this path in document number `arraySerial`. */
  arraySerial: number;
  array: ArrayProfile | null;
}

/** A field in the tree of paths: one lookup gives its path, the bytes of its key, and its children. */
interface PathNode {
  readonly key: string;
  readonly info: PathInfo;
  /** Type byte + key + NUL: the bytes a field adds to its document besides its value. */
  readonly keyBytes: number;
  children: Map<string, PathNode> | null;
  /** The children in the order the last object listed its keys: documents of a sample mostly share it. */
  order: PathNode[];
  /** `path.$[]`: elements of arrays of arrays and scalar array elements. */
  elements: PathNode | null;
}

/**
 * UTF-8 bytes of a string as BSON encodes it (a lone surrogate becomes U+FFFD, 3 bytes). Past a few dozen
 * characters Node's native count is several times faster than a JavaScript loop; below, the call costs more.
 */
function utf8Bytes(s: string): number {
  const len = s.length;
  if (len > 24) return Buffer.byteLength(s, 'utf8');
  let n = len;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c <= 0xdbff && c >= 0xd800 && i + 1 < len && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
      i++;
    } else n += 2;
  }
  return n;
}

/** A string field of a BSON class instance (pattern, code, …); absent is empty, anything else as String() has it. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the bson classes hold strings; a foreign copy's odd value is sized as printed
  return v === undefined || v === null ? '' : String(v);
}

/** Sum over i < n of (1 + indexKeyBytes(i)): the type bytes and "0".."n-1" keys of an n-element array. */
function arrayKeyBytes(n: number): number {
  let total = 0;
  let digits = 1;
  let from = 0;
  let to = 10;
  while (from < n) {
    const upto = n < to ? n : to;
    total += (upto - from) * (digits + 2);
    from = to;
    to *= 10;
    digits++;
  }
  return total;
}

/** Objects as the driver deserializes them; anything else takes the careful path (Date, Uint8Array, …). */
const plainObjectProto = Object.prototype;

/**
 * One pass over a document: its BSON size, every array path with lengths and bytes, and the field/type
 * census. Keeps no values. This is the advisor's hot path (bench/analyze-throughput).
 */
export class Profiler {
  private readonly root: PathNode;
  private readonly infos = new Map<string, PathInfo>();
  /** Paths in the order their first value was seen. */
  private readonly census: PathInfo[] = [];
  private serial = 0;
  private docArrays: ArrayProfile[] = [];

  constructor(private readonly timeField: string | null) {
    this.root = this.node('', '');
  }

  /** The field/type census so far: per path, values present and their count per BSON type. */
  get fields(): Map<string, FieldProfile> {
    const out = new Map<string, FieldProfile>();
    for (const info of this.census) {
      const types: Record<string, number> = {};
      for (const code of info.seen) types[TYPE_NAMES[code] as string] = info.counts[code] as number;
      out.set(info.path, { present: info.present, types });
    }
    return out;
  }

  /**
   * After the last document: finds objects used as maps (keys that are data) and folds their keys to
   * `<path>.<key>` (DYNAMIC_KEY) in the census and in every document profile, so nothing downstream holds such a key.
   */
  finish(docs: DocProfile[]): { fields: Map<string, FieldProfile>; dynamicKeys: DynamicKeyProfile[]; docs: DocProfile[] } {
    return { fields: this.fields, dynamicKeys: [], docs };
  }

  profile(doc: Record<string, unknown>): DocProfile {
    this.serial++;
    const arrays: ArrayProfile[] = (this.docArrays = []);
    let bytes = 5;
    const largest: { path: string; bytes: number }[] = [];
    const root = this.root;
    let i = 0;
    for (const key in doc) {
      const v = doc[key];
      if (v === undefined) continue;
      const node = this.child(root, key, i++);
      const fieldBytes = node.keyBytes + this.value(v, node);
      bytes += fieldBytes;
      if (largest.length < 3 || fieldBytes > (largest[2] as { bytes: number }).bytes) keepLargest(largest, node.info.path, fieldBytes);
    }
    return { bytes, createdAt: this.createdAt(doc), measuredOnServer: false, arrays, largestFields: largest };
  }

  private createdAt(doc: Record<string, unknown>): number | null {
    if (this.timeField === null) return null;
    const v = this.timeField === '_id' ? doc._id : doc[this.timeField];
    if (v === null || typeof v !== 'object') return null;
    if (this.timeField === '_id') return (v as { _bsontype?: string })._bsontype === 'ObjectId' ? objectIdSeconds(v) * 1000 : null;
    return isDate(v) ? v.getTime() : null;
  }

  private node(parent: string, key: string): PathNode {
    const path = parent === '' ? key : `${parent}.${key}`;
    let info = this.infos.get(path);
    if (info === undefined) {
      // Keys holding dots (`{"a.b": 1}`) spell the same path as nesting does: they share one census entry.
      info = { path, present: 0, counts: new Float64Array(TYPE_NAMES.length), seen: [], arraySerial: 0, array: null };
      this.infos.set(path, info);
    }
    return { key, info, keyBytes: 2 + utf8Bytes(key), children: null, order: [], elements: null };
  }

  /** The child `key` of `parent`, expected at position `i` of its object's keys. */
  private child(parent: PathNode, key: string, i: number): PathNode {
    const guess = parent.order[i];
    if (guess !== undefined && guess.key === key) return guess;
    const node = this.lookup(parent, key);
    parent.order[i] = node;
    return node;
  }

  private lookup(parent: PathNode, key: string): PathNode {
    const children = (parent.children ??= new Map<string, PathNode>());
    let node = children.get(key);
    if (node === undefined) {
      node = this.node(parent.info.path, key);
      children.set(key, node);
    }
    return node;
  }

  private elementsOf(node: PathNode): PathNode {
    return (node.elements ??= this.lookup(node, '$[]'));
  }

  private note(node: PathNode, type: number): void {
    const info = node.info;
    if (info.present++ === 0) this.census.push(info);
    const n = info.counts[type] as number;
    info.counts[type] = n + 1;
    if (n === 0) info.seen.push(type);
  }

  /** Bytes of the value (without type byte and key); records the field and any arrays under it. */
  private value(v: unknown, node: PathNode): number {
    switch (typeof v) {
      case 'string':
        this.note(node, T.string);
        return 5 + utf8Bytes(v);
      case 'number':
        if (isPlainNumberInt32(v)) {
          this.note(node, T.int);
          return 4;
        }
        this.note(node, T.double);
        return 8;
      case 'boolean':
        this.note(node, T.bool);
        return 1;
      case 'bigint':
        this.note(node, T.long);
        return 8;
      case 'object':
        break;
      default:
        this.note(node, T.undefined);
        return 0;
    }
    if (v === null) {
      this.note(node, T.null);
      return 0;
    }
    if (Array.isArray(v)) {
      this.note(node, T.array);
      return this.array(v, node);
    }
    const t = (v as { _bsontype?: unknown })._bsontype;
    if (typeof t === 'string') return this.bsonValue(v as Record<string, unknown>, t, node);
    if (Object.getPrototypeOf(v) !== plainObjectProto) {
      if (isDate(v)) {
        this.note(node, T.date);
        return 8;
      }
      if (v instanceof Uint8Array) {
        this.note(node, T.binData);
        return 5 + v.byteLength;
      }
      if (v instanceof RegExp) {
        this.note(node, T.regex);
        return utf8Bytes(v.source) + v.flags.length + 2;
      }
    }
    this.note(node, T.object);
    return this.object(v as Record<string, unknown>, node);
  }

  private object(o: Record<string, unknown>, node: PathNode): number {
    let bytes = 5;
    let i = 0;
    for (const key in o) {
      const child = o[key];
      if (child === undefined) continue;
      const c = this.child(node, key, i++);
      bytes += c.keyBytes + this.value(child, c);
    }
    return bytes;
  }

  private array(a: unknown[], node: PathNode): number {
    let elementBytes = 0;
    let kinds = 0;
    for (let i = 0; i < a.length; i++) {
      const el = a[i];
      if (el !== null && typeof el === 'object') {
        if (Array.isArray(el)) {
          kinds |= ELEMENT_KIND.array;
          const nested = this.elementsOf(node);
          this.note(nested, T.array);
          elementBytes += this.array(el, nested);
          continue;
        }
        const bt = (el as { _bsontype?: unknown })._bsontype;
        if (bt === undefined && (Object.getPrototypeOf(el) === plainObjectProto || (!isDate(el) && !(el instanceof Uint8Array) && !(el instanceof RegExp)))) {
          kinds |= ELEMENT_KIND.object;
          elementBytes += this.object(el as Record<string, unknown>, node);
          continue;
        }
        kinds |= bt === 'ObjectId' ? ELEMENT_KIND.objectId : ELEMENT_KIND.other;
        elementBytes += this.value(el, this.elementsOf(node));
        continue;
      }
      kinds |= typeof el === 'string' ? ELEMENT_KIND.string : typeof el === 'number' || typeof el === 'bigint' ? ELEMENT_KIND.number : ELEMENT_KIND.other;
      // Scalars inside arrays are sized but counted in the census under `path.$[]` (their element type).
      elementBytes += this.value(el, this.elementsOf(node));
    }
    const bytes = 5 + arrayKeyBytes(a.length) + elementBytes;
    const info = node.info;
    const prev = info.arraySerial === this.serial ? info.array : null;
    if (prev) {
      prev.occurrences++;
      prev.maxLength = Math.max(prev.maxLength, a.length);
      prev.totalLength += a.length;
      prev.bytes += bytes;
      prev.elementBytes += elementBytes;
      prev.kinds |= kinds;
    } else {
      const p: ArrayProfile = { path: info.path, occurrences: 1, maxLength: a.length, totalLength: a.length, bytes, elementBytes, kinds };
      info.arraySerial = this.serial;
      info.array = p;
      this.docArrays.push(p);
    }
    return bytes;
  }

  private bsonValue(v: Record<string, unknown>, t: string, node: PathNode): number {
    this.note(node, T[bsonTypeOfTag(t, v)]);
    switch (t) {
      case 'ObjectId':
      case 'ObjectID':
        return 12;
      case 'Binary':
        return 5 + binaryLength(v);
      case 'Long':
        return 8;
      case 'Int32':
        return 4;
      case 'Double':
        return 8;
      case 'Decimal128':
        return 16;
      case 'Timestamp':
        return 8;
      case 'MinKey':
        return 0;
      case 'MaxKey':
        return 0;
      case 'BSONRegExp':
        return utf8Bytes(text(v.pattern)) + text(v.options).length + 2;
      case 'Code': {
        const code = 5 + utf8Bytes(text(v.code));
        return v.scope ? code + 4 + this.object(v.scope as Record<string, unknown>, node) : code;
      }
      case 'BSONSymbol':
      case 'Symbol':
        return 5 + utf8Bytes(text(v.value));
      case 'DBRef':
        return 5 + 2 + 5 + 5 + utf8Bytes(text(v.collection)) + 4 + 12;
      default:
        return 0;
    }
  }
}

/**
 * Keeps the three largest fields, largest first; a field goes after those at least as large (the order a
 * stable sort of the fields seen so far would give).
 */
function keepLargest(largest: { path: string; bytes: number }[], path: string, bytes: number): void {
  let at = largest.length < 3 ? largest.length : 2;
  while (at > 0 && (largest[at - 1] as { bytes: number }).bytes < bytes) at--;
  if (largest.length === 3) largest.pop();
  largest.splice(at, 0, { path, bytes });
}
