import {
  DYNAMIC_KEY,
  ELEMENT_KIND,
  type ArrayProfile,
  type DocProfile,
  type DynamicKeyProfile,
  type FieldProfile,
  type KeyShape,
} from '../core/types';
import { BSON_TYPE_NAMES, bsonTypeOfTag } from '../lib/bson-types';
import { joinPath } from '../lib/doc-path';
import { BLANK_OR_NUMBER_TEXT, INTEGER_TEXT } from '../lib/number-text';
import { FOLD_DEFAULTS, foldDocProfile, type FoldOptions, keyShape, KEY_SHAPES, mapReason, PathFolder } from './fold';
import { binaryLength, isDate, isPlainNumberInt32, objectIdSeconds } from '../lib/bson-size';

/** Type codes for the census: an index into a counter array is cheaper than a keyed property per value. */
const TYPE_NAMES = BSON_TYPE_NAMES;
const T = Object.fromEntries(TYPE_NAMES.map((n, i) => [n, i])) as {
  readonly [K in (typeof TYPE_NAMES)[number]]: number;
};

/** The census entry with its string shapes, when any string was blank or a number's text (absent otherwise). */
function withStrings(
  f: FieldProfile,
  s: { blankStrings: number; numericStrings: number; integerStrings: number },
): FieldProfile {
  return s.blankStrings > 0 || s.numericStrings > 0
    ? { ...f, strings: { blank: s.blankStrings, numeric: s.numericStrings, integer: s.integerStrings } }
    : f;
}

/** What the profiler knows about one path (src/lib/doc-path.ts), shared by every tree node that spells it. */
interface PathInfo {
  readonly path: string;
  /** Values seen at the path (0 until the first: the census lists paths in the order first seen). */
  present: number;
  /** Values seen per type code, and the codes in the order first seen. */
  readonly counts: Float64Array;
  readonly seen: number[];
  /** Strings that are blank ('' or whitespace) and strings that read as a number ("12.5"): shapes, never values. */
  blankStrings: number;
  numericStrings: number;
  /** Of the numeric strings, those that are an integer's text (`$convert` to int or long reads them). */
  integerStrings: number;
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
  /**
   * Objects listed at this node (documents' sub-documents, or elements of arrays of objects) per number of keys below
   * WIDE_KEYS, and the key counts of wider objects: the objects and the median keys per object.
   */
  keyCounts: Uint32Array | null;
  wideKeyCounts: number[] | null;
  /**
   * Past maxKeysPerPath children, further keys are not kept: their values go to this `<key>` node (the node the fold
   * would give them anyway) and the keys to a set that counts them (up to OVERFLOW_KEYS_KEPT), dropped at finish.
   */
  overflow: PathNode | null;
  overflowKeys: Set<string> | null;
}

/** Key counts kept per object width below this; wider objects (maps, mostly) keep their count in a list. */
const WIDE_KEYS = 64;
/** Keys past the cap counted as distinct up to this many (a lower bound beyond); they live only until finish. */
const OVERFLOW_KEYS_KEPT = 100_000;

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
  // The bson classes hold strings; a foreign copy's odd value is sized as printed.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- see above
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

  private readonly fold: Readonly<FoldOptions>;

  /** `fold`: when an object is a map (src/collect/fold.ts, FOLD_DEFAULTS). */
  constructor(
    private readonly timeField: string | null,
    fold: Partial<FoldOptions> = {},
  ) {
    this.fold = { ...FOLD_DEFAULTS, ...fold };
    this.root = this.node('', '', '');
  }

  /** The field/type census so far: per path, values present and their count per BSON type. */
  get fields(): Map<string, FieldProfile> {
    const out = new Map<string, FieldProfile>();
    for (const info of this.census) {
      const types: Record<string, number> = {};
      for (const code of info.seen) types[TYPE_NAMES[code] as string] = info.counts[code] as number;
      out.set(info.path, withStrings({ present: info.present, types }, info));
    }
    return out;
  }

  /**
   * After the last document: finds objects used as maps (keys that are data) and folds their keys to
   * `<path>.<key>` (DYNAMIC_KEY) in the census and in every document profile, so nothing downstream holds such a key.
   */
  finish(docs: DocProfile[]): {
    fields: Map<string, FieldProfile>;
    dynamicKeys: DynamicKeyProfile[];
    docs: DocProfile[];
  } {
    const dynamicKeys: DynamicKeyProfile[] = [];
    this.detect([this.root], '', dynamicKeys);
    if (dynamicKeys.length === 0) return { fields: this.fields, dynamicKeys, docs };
    const folder = new PathFolder(dynamicKeys);
    // The census: entries that fold to one path are summed, in the order the first of them was seen.
    const merged = new Map<
      string,
      {
        present: number;
        counts: Float64Array;
        seen: number[];
        blankStrings: number;
        numericStrings: number;
        integerStrings: number;
      }
    >();
    for (const info of this.census) {
      const path = folder.fold(info.path);
      let m = merged.get(path);
      if (m === undefined)
        merged.set(
          path,
          (m = {
            present: 0,
            counts: new Float64Array(TYPE_NAMES.length),
            seen: [],
            blankStrings: 0,
            numericStrings: 0,
            integerStrings: 0,
          }),
        );
      m.present += info.present;
      m.blankStrings += info.blankStrings;
      m.numericStrings += info.numericStrings;
      m.integerStrings += info.integerStrings;
      for (const code of info.seen) {
        if (m.counts[code] === 0) m.seen.push(code);
        m.counts[code] = (m.counts[code] as number) + (info.counts[code] as number);
      }
    }
    const fields = new Map<string, FieldProfile>();
    for (const [path, m] of merged) {
      const types: Record<string, number> = {};
      for (const code of m.seen) types[TYPE_NAMES[code] as string] = m.counts[code] as number;
      fields.set(path, withStrings({ present: m.present, types }, m));
    }
    return { fields, dynamicKeys, docs: docs.map((d) => foldDocProfile(d, folder)) };
  }

  /**
   * Walks the tree from the document down; `group` holds the nodes that fold to `path` (one, until a map merges its
   * keys' nodes). A map's keys become one `<key>` group, judged in turn (a map of maps folds twice).
   */
  private detect(group: readonly PathNode[], path: string, out: DynamicKeyProfile[]): void {
    const byKey = new Map<string, PathNode[]>();
    const elements: PathNode[] = [];
    const overflow: PathNode[] = [];
    let overflowKeys: Set<string> | null = null;
    let objects = 0;
    for (const n of group) {
      objects += objectsOf(n);
      if (n.children) {
        for (const [k, c] of n.children) {
          if (k === '$[]') elements.push(c);
          else {
            const g = byKey.get(k);
            if (g) g.push(c);
            else byKey.set(k, [c]);
          }
        }
      }
      if (n.overflow) overflow.push(n.overflow);
      if (n.overflowKeys) {
        if (overflowKeys === null) overflowKeys = new Set(n.overflowKeys);
        else for (const k of n.overflowKeys) overflowKeys.add(k);
      }
    }
    const join = (key: string): string => joinPath(path, key);
    // The document itself (path ''): its keys besides `_id` are judged as any object's, `_id` stays a field.
    const atRoot = path === '';
    const idGroup = atRoot ? byKey.get('_id') : undefined;
    if (idGroup) byKey.delete('_id');
    if (objects > 0) {
      const profile = this.mapProfile(path, group, byKey, overflow, overflowKeys, objects);
      if (profile) {
        out.push(profile);
        if (idGroup) this.detect(idGroup, '_id', out);
        const members: PathNode[] = [...overflow];
        for (const g of byKey.values()) members.push(...g);
        this.detect(members, join(DYNAMIC_KEY), out);
        if (elements.length) this.detect(elements, join('$[]'), out);
        return;
      }
    }
    if (idGroup) this.detect(idGroup, '_id', out);
    for (const [k, g] of byKey) this.detect(g, join(k), out);
    if (elements.length) this.detect(elements, join('$[]'), out);
  }

  /** The map at `path`, or null when its keys read as a schema's fields (src/collect/fold.ts, mapReason). */
  private mapProfile(
    path: string,
    group: readonly PathNode[],
    byKey: ReadonlyMap<string, PathNode[]>,
    overflow: readonly PathNode[],
    overflowKeys: ReadonlySet<string> | null,
    objects: number,
  ): DynamicKeyProfile | null {
    let distinct = byKey.size;
    if (overflowKeys) for (const k of overflowKeys) if (!byKey.has(k)) distinct++;
    const o = this.fold;
    // Cheap exit for the common case: too few keys for any test (and nothing was capped).
    if (overflow.length === 0 && distinct < Math.min(o.minDistinctKeys, o.minWordKeys)) return null;
    const shapes: Partial<Record<KeyShape, number>> = {};
    const shape = (k: string): void => {
      const s = keyShape(k);
      shapes[s] = (shapes[s] ?? 0) + 1;
    };
    for (const k of byKey.keys()) shape(k);
    if (overflowKeys) for (const k of overflowKeys) if (!byKey.has(k)) shape(k);
    const keyShapes: Partial<Record<KeyShape, number>> = {};
    for (const s of KEY_SHAPES) if (shapes[s]) keyShapes[s] = shapes[s];
    const medianKeys = medianOf(group, objects);
    const reason =
      overflow.length === 0 ? mapReason({ distinctKeys: distinct, medianKeys, keyShapes }, o) : 'many-keys';
    // The document's own word-shaped keys spread thin are a polymorphic collection's fields (each kind of document
    // holds its own few), a pattern MongoDB documents, not a map: at the top level only data-shaped keys or the cap
    // fold.
    if (reason === null || (reason === 'spread' && path === '')) return null;
    // Keys in more than half the objects: the values at a key's nodes (one per object holding it; infos shared by
    // nodes that spell one path, the keys of several maps folded together, counted once). Capped keys count as not
    // shared.
    let shared = 0;
    const valueCounts = new Float64Array(TYPE_NAMES.length);
    const valueSeen: number[] = [];
    const addValues = (info: PathInfo): void => {
      for (const code of info.seen) {
        if (valueCounts[code] === 0) valueSeen.push(code);
        valueCounts[code] = (valueCounts[code] as number) + (info.counts[code] as number);
      }
    };
    for (const g of byKey.values()) {
      let present = 0;
      if (g.length === 1) {
        const info = (g[0] as PathNode).info;
        present = info.present;
        addValues(info);
      } else {
        const infos = new Set(g.map((n) => n.info));
        for (const info of infos) {
          present += info.present;
          addValues(info);
        }
      }
      if (present * 2 > objects) shared++;
    }
    for (const info of new Set(overflow.map((n) => n.info))) addValues(info);
    const valueTypes: Record<string, number> = {};
    for (const code of valueSeen) valueTypes[TYPE_NAMES[code] as string] = valueCounts[code] as number;
    let empty = 0;
    for (const n of group) empty += n.keyCounts ? (n.keyCounts[0] as number) : 0;
    const nonEmpty =
      empty > 0 && empty < objects
        ? { emptyObjects: empty, medianKeysNonEmpty: medianOf(group, objects, empty) }
        : empty > 0
          ? { emptyObjects: empty }
          : {};
    return {
      path,
      objects,
      distinctKeys: distinct,
      medianKeys,
      ...nonEmpty,
      sharedKeyShare: distinct === 0 ? 0 : Math.round((shared / distinct) * 1000) / 1000,
      keyShapes,
      valueTypes,
    };
  }

  profile(doc: Record<string, unknown>): DocProfile {
    this.serial++;
    const arrays: ArrayProfile[] = (this.docArrays = []);
    let bytes = 5;
    const largest: { path: string; bytes: number }[] = [];
    const root = this.root;
    let i = 0;
    let hasId = false;
    for (const key in doc) {
      const v = doc[key];
      if (v === undefined) continue;
      if (key === '_id') hasId = true;
      const node = this.child(root, key, i++);
      // a capped top-level key shares the `<key>` node (keyBytes 0): its own bytes are counted here
      const fieldBytes = (node.keyBytes > 0 ? node.keyBytes : 2 + utf8Bytes(key)) + this.value(v, node);
      bytes += fieldBytes;
      if (largest.length < 3 || fieldBytes > (largest[2] as { bytes: number }).bytes)
        keepLargest(largest, node.info.path, fieldBytes);
    }
    // The document's own keys besides _id, counted as an object's are: a collection whose documents are maps folds too.
    countKeys(root, hasId ? i - 1 : i);
    return { bytes, createdAt: this.createdAt(doc), measuredOnServer: false, arrays, largestFields: largest };
  }

  private createdAt(doc: Record<string, unknown>): number | null {
    if (this.timeField === null) return null;
    const v = this.timeField === '_id' ? doc._id : doc[this.timeField];
    if (v === null || typeof v !== 'object') return null;
    if (this.timeField === '_id')
      return (v as { _bsontype?: string })._bsontype === 'ObjectId' ? objectIdSeconds(v) * 1000 : null;
    return isDate(v) ? v.getTime() : null;
  }

  /** A node for `key` under the path `parent`; `path` is given only for the document's own node (''). */
  private node(parent: string, key: string, path = joinPath(parent, key)): PathNode {
    // A key holding a dot (`{"a.b": 1}`) is quoted in its path (`"a.b"`): it never shares nesting's entry (`a.b`).
    let info = this.infos.get(path);
    if (info === undefined) {
      info = {
        path,
        present: 0,
        counts: new Float64Array(TYPE_NAMES.length),
        seen: [],
        blankStrings: 0,
        numericStrings: 0,
        integerStrings: 0,
        arraySerial: 0,
        array: null,
      };
      this.infos.set(path, info);
    }
    return {
      key,
      info,
      keyBytes: 2 + utf8Bytes(key),
      children: null,
      order: [],
      elements: null,
      keyCounts: null,
      wideKeyCounts: null,
      overflow: null,
      overflowKeys: null,
    };
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
      // `_id` is never folded (src/collect/fold.ts), so it is never capped either.
      if (children.size >= this.fold.maxKeysPerPath && key !== '$[]' && !(key === '_id' && parent === this.root))
        return this.overflowOf(parent, key);
      node = this.node(parent.info.path, key);
      children.set(key, node);
    }
    return node;
  }

  /** A key past the cap: counted, not kept as a node; its value goes to the parent's `<key>` node. */
  private overflowOf(parent: PathNode, key: string): PathNode {
    const keys = (parent.overflowKeys ??= new Set());
    if (keys.size < OVERFLOW_KEYS_KEPT) keys.add(key);
    // keyBytes 0: the key's own bytes are counted where it is read (object()), since one node stands for every key.
    return (parent.overflow ??= { ...this.node(parent.info.path, DYNAMIC_KEY), keyBytes: 0 });
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
        // Only short strings can be blank or a number's text: one length check spares the regex on the rest.
        if (v.length <= 32 && BLANK_OR_NUMBER_TEXT.test(v)) {
          if (v.trim() === '') node.info.blankStrings++;
          else {
            node.info.numericStrings++;
            if (INTEGER_TEXT.test(v)) node.info.integerStrings++;
          }
        }
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
      const keyBytes = c.keyBytes;
      bytes += (keyBytes > 0 ? keyBytes : 2 + utf8Bytes(key)) + this.value(child, c);
    }
    const counts = node.keyCounts;
    if (counts !== null && i < WIDE_KEYS) counts[i] = (counts[i] as number) + 1;
    else countKeys(node, i);
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
        if (
          bt === undefined &&
          (Object.getPrototypeOf(el) === plainObjectProto ||
            (!isDate(el) && !(el instanceof Uint8Array) && !(el instanceof RegExp)))
        ) {
          kinds |= ELEMENT_KIND.object;
          elementBytes += this.object(el as Record<string, unknown>, node);
          continue;
        }
        kinds |= bt === 'ObjectId' ? ELEMENT_KIND.objectId : ELEMENT_KIND.other;
        elementBytes += this.value(el, this.elementsOf(node));
        continue;
      }
      kinds |=
        typeof el === 'string'
          ? ELEMENT_KIND.string
          : typeof el === 'number' || typeof el === 'bigint'
            ? ELEMENT_KIND.number
            : ELEMENT_KIND.other;
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
      const p: ArrayProfile = {
        path: info.path,
        occurrences: 1,
        maxLength: a.length,
        totalLength: a.length,
        bytes,
        elementBytes,
        kinds,
      };
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

/** Off the hot path: the first object of a node, and objects of WIDE_KEYS keys or more. */
function countKeys(node: PathNode, keys: number): void {
  if (keys < WIDE_KEYS) {
    const counts = (node.keyCounts ??= new Uint32Array(WIDE_KEYS));
    counts[keys] = (counts[keys] as number) + 1;
  } else (node.wideKeyCounts ??= []).push(keys);
}

/** Objects listed at a node. */
function objectsOf(node: PathNode): number {
  let n = node.wideKeyCounts?.length ?? 0;
  if (node.keyCounts) for (const c of node.keyCounts) n += c;
  return n;
}

/** The median keys per object over the nodes of a group (the lower middle for an even count). */
/** Median keys per object over the group's objects; `skip` leaves out that many of the smallest (the empty ones). */
function medianOf(group: readonly PathNode[], objects: number, skip = 0): number {
  const rank = skip + Math.floor((objects - skip - 1) / 2); // 0-based
  let seen = 0;
  for (let k = 0; k < WIDE_KEYS; k++) {
    for (const n of group) seen += n.keyCounts ? (n.keyCounts[k] as number) : 0;
    if (seen > rank) return k;
  }
  const wide: number[] = [];
  for (const n of group) if (n.wideKeyCounts) wide.push(...n.wideKeyCounts);
  wide.sort((a, b) => a - b);
  return wide[rank - seen] ?? wide[wide.length - 1] ?? 0;
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
