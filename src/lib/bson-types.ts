/**
 * BSON type names as MongoDB spells them: the aliases `$type` and `$jsonSchema`'s `bsonType` accept (MongoDB manual,
 * "BSON Types", https://www.mongodb.com/docs/manual/reference/bson-types/), and the BSON type of a value as the driver
 * or mongosh hands it back. One list for the profiler's census, the validator dry run, the validator proposal and
 * `lint --spec`, so they never disagree.
 */

/** Every BSON type alias, in the manual's order (deprecated ones included: old data still holds them). */
export const BSON_TYPE_NAMES = [
  'double',
  'string',
  'object',
  'array',
  'binData',
  'undefined',
  'objectId',
  'bool',
  'date',
  'null',
  'regex',
  'dbPointer',
  'javascript',
  'symbol',
  'javascriptWithScope',
  'int',
  'timestamp',
  'long',
  'decimal',
  'minKey',
  'maxKey',
] as const;

export type BsonTypeName = (typeof BSON_TYPE_NAMES)[number];

/** The numeric types: what the alias "number" stands for. */
export const NUMERIC_BSON_TYPES: readonly BsonTypeName[] = ['double', 'int', 'long', 'decimal'];

/** The aliases `$type` and `bsonType` accept: every type name plus "number". */
export const BSON_TYPE_ALIASES: ReadonlySet<string> = new Set<string>([...BSON_TYPE_NAMES, 'number']);

const isNumeric = new Set<string>(NUMERIC_BSON_TYPES);
export const isNumericBsonType = (t: string): boolean => isNumeric.has(t);

/**
 * The js-bson class tag (`_bsontype`) of a host value → its BSON type. Older bson releases (mongosh, old drivers)
 * spell some tags differently (`ObjectID`, `Symbol`); both are here. Recognised by tag, not instanceof, so values
 * from either host's copy of the bson library work.
 */
const TYPE_OF_TAG: Readonly<Record<string, BsonTypeName>> = {
  ObjectId: 'objectId',
  ObjectID: 'objectId',
  Binary: 'binData',
  Long: 'long',
  Int32: 'int',
  Double: 'double',
  Decimal128: 'decimal',
  Timestamp: 'timestamp',
  BSONRegExp: 'regex',
  MinKey: 'minKey',
  MaxKey: 'maxKey',
  BSONSymbol: 'symbol',
  Symbol: 'symbol',
  DBRef: 'object',
  DBPointer: 'dbPointer',
};

/**
 * The BSON type of a value carrying `_bsontype` `tag`. `Code` is javascript, or javascriptWithScope when it carries a
 * scope (BSON type 15); an unknown tag counts as an object.
 */
export function bsonTypeOfTag(tag: string, value: { scope?: unknown }): BsonTypeName {
  if (tag === 'Code') return value.scope ? 'javascriptWithScope' : 'javascript';
  return TYPE_OF_TAG[tag] ?? 'object';
}

/** A date as either host hands it back (their Date may come from another realm, so not only instanceof). */
export function isDate(v: object): v is Date {
  return v instanceof Date || Object.prototype.toString.call(v) === '[object Date]';
}
