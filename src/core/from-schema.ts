/**
 * The TypeScript type a JSON Schema (written `as const`) describes, for the subset the snapshot's and the collectors'
 * schemas use: `const`, `enum`, `anyOf`/`oneOf` (a union), `type` (one name or a list, `null` included), `properties`
 * with `required` (the rest optional), `items`, and `additionalProperties` of an object without `properties` (a map;
 * with `propertyNames: { enum }`, a map of those keys, each optional). An object with `properties` is typed by them
 * alone: extra keys an open object accepts on load are keys no code reads. `{ type: 'object' }` alone is
 * `Record<string, unknown>`. Like `OptionsOf` in src/core/rule.ts.
 */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] } | { oneOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { type: infer T }
        ? T extends readonly (infer U)[]
          ? OfType<S, U>
          : OfType<S, T>
        : unknown;

/** One type name of `type` (distributes over a union of them). */
type OfType<S, T> = T extends 'object'
  ? ObjectOf<S>
  : T extends 'array'
    ? S extends { items: infer I }
      ? FromSchema<I>[]
      : unknown[]
    : T extends 'string'
      ? string
      : T extends 'number' | 'integer'
        ? number
        : T extends 'boolean'
          ? boolean
          : T extends 'null'
            ? null
            : never;

type Flat<T> = { [K in keyof T]: T[K] };

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

/** Mapped over `keyof P` (filtered with `as`), so each property keeps the doc comment written on it in the schema. */
type ObjectOf<S> = S extends { properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : S extends { additionalProperties: infer A extends object }
    ? S extends { propertyNames: { enum: readonly (infer N extends string)[] } }
      ? { [K in N]?: FromSchema<A> }
      : Record<string, FromSchema<A>>
    : Record<string, unknown>;

/** true when A and B are the same type (not merely assignable either way); for compile-time checks. */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
