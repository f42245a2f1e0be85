/**
 * A small schema language for the management contract. Each resource writes its shape once, as
 * a value built here; from that one value come the TypeScript type (`TypeOf`), the runtime
 * reading of untrusted input (server/validation.ts `readInput`, with the messages of SPEC §10)
 * and the JSON Schema of the OpenAPI document (server/http/openapi/json-schema.ts).
 *
 * Plain data and no imports: the renderer may import the contract, and this must stay tiny.
 * Why not zod: docs/decisions/0211-contract-schemas-in-our-own-schema-language.md.
 */

declare const TYPE: unique symbol;

/** Rules of a string that the reader enforces and the JSON Schema states. */
export interface StringRules {
  /** In characters (code points), the unit the spec's "1–64 chars" means; also JSON Schema's unit. */
  max?: number;
  /** The reader's minimum, in characters (a passphrase's). */
  min?: number;
  pattern?: RegExp;
  patternMessage?: string;
  /** The field's name in messages ("Role Name is required"); the key when absent. */
  label?: string;
  /** For secrets (passwords, passphrases): whitespace is content, only "" is missing. */
  allowBlank?: boolean;
  /** JSON Schema `format` (`date`, `date-time`, `password`, …). */
  format?: string;
  description?: string;
}

interface Base {
  readonly description?: string;
  /** A component name: the document says `$ref: #/components/schemas/<name>`. */
  readonly name?: string;
  /** Absent from an object is allowed; `fallback` is what the reader then gives. */
  readonly optional?: boolean;
  readonly fallback?: unknown;
}

export type SchemaNode =
  | (Base & { readonly kind: 'string'; readonly rules: StringRules })
  | (Base & { readonly kind: 'password' })
  | (Base & { readonly kind: 'boolean' })
  | (Base & {
      readonly kind: 'integer' | 'number';
      readonly min?: number;
      readonly max?: number;
      readonly message?: string;
    })
  | (Base & { readonly kind: 'literal'; readonly value: string | number | boolean })
  | (Base & {
      readonly kind: 'enum';
      readonly values: readonly string[];
      readonly label?: string;
      readonly message?: string;
    })
  | (Base & {
      readonly kind: 'array';
      readonly items: SchemaNode;
      readonly label?: string;
      readonly minItems?: number;
      readonly maxItems?: number;
      readonly minItemsMessage?: string;
    })
  | (Base & {
      readonly kind: 'object';
      readonly properties: Readonly<Record<string, SchemaNode>>;
      /** Rules between fields, read after the fields (each problem as `fail(key, message)`). */
      readonly refine?: (value: never, fail: (key: string, message: string) => void) => void;
    })
  | (Base & { readonly kind: 'nullable'; readonly inner: SchemaNode })
  | (Base & { readonly kind: 'unknown' })
  | (Base & { readonly kind: 'component'; readonly component: string });

/** A schema node that describes values of type `T` (the phantom member keeps `T` exact). */
export type Schema<T> = SchemaNode & { readonly [TYPE]?: (value: T) => T };

export type TypeOf<S> = S extends { readonly [TYPE]?: (value: infer T) => unknown } ? T : never;

type Prettify<T> = { [K in keyof T]: T[K] } & {};
type OptionalKeys<P> = { [K in keyof P]: P[K] extends { optional: true } ? K : never }[keyof P];
type WithFallbackKeys<P> = {
  [K in keyof P]: P[K] extends { fallback: object | string | number | boolean | null } ? K : never;
}[keyof P];

/** The wire shape: optional members may be left out. */
export type ObjectOf<P> = Prettify<
  { -readonly [K in Exclude<keyof P, OptionalKeys<P>>]: TypeOf<P[K]> } & {
    -readonly [K in OptionalKeys<P>]?: TypeOf<P[K]>;
  }
>;

/** What `readInput` gives: members with a fallback are always there. */
export type ReadOf<S> = [S] extends [{ kind: 'object'; properties: infer P }]
  ? Prettify<
      { -readonly [K in Exclude<keyof P, OptionalKeys<P>> | WithFallbackKeys<P>]: ReadOf<P[K]> } & {
        -readonly [K in Exclude<OptionalKeys<P>, WithFallbackKeys<P>>]?: ReadOf<P[K]>;
      }
    >
  : [S] extends [{ kind: 'array'; items: infer I }]
    ? ReadOf<I>[]
    : TypeOf<S>;

type Props = Record<string, SchemaNode>;
type Meta = { description?: string; name?: string };
type Refine<P> = (
  value: ReadOf<{ kind: 'object'; properties: P }>,
  fail: (key: string, message: string) => void,
) => void;

/** An object schema that keeps its members' types (for `ReadOf`, `extend`, `partial`). */
export interface ObjectSchema<P extends Props, T = ObjectOf<P>> extends Base {
  readonly kind: 'object';
  readonly properties: P;
  readonly refine?: Refine<P>;
  readonly [TYPE]?: (value: T) => T;
}

/** An array schema that keeps its items' type (for `ReadOf`). */
export interface ArraySchema<I extends SchemaNode> extends Base {
  readonly kind: 'array';
  readonly items: I;
  readonly label?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minItemsMessage?: string;
  readonly [TYPE]?: (value: TypeOf<I>[]) => TypeOf<I>[];
}

// The phantom member is optional and never set: a plain node already is a Schema<T> for any T.
const node = <T>(value: SchemaNode): Schema<T> => value;

export const s = {
  string: (rules: StringRules = {}): Schema<string> => node({ kind: 'string', rules, description: rules.description }),

  /** A write-only password (8–72 bytes, SPEC §3), checked by the reader. */
  password: (): Schema<string> => node({ kind: 'password' }),

  boolean: (meta: Meta = {}): Schema<boolean> => node({ kind: 'boolean', ...meta }),

  integer: (rules: { min?: number; max?: number; message?: string; description?: string } = {}): Schema<number> =>
    node({ kind: 'integer', ...rules }),

  number: (meta: Meta = {}): Schema<number> => node({ kind: 'number', ...meta }),

  literal: <const V extends string | number | boolean>(value: V): Schema<V> => node({ kind: 'literal', value }),

  enum: <const V extends string>(
    values: readonly V[],
    rules: { label?: string; message?: string; name?: string; description?: string } = {},
  ): Schema<V> => node({ kind: 'enum', values, ...rules }),

  array: <I extends SchemaNode>(
    items: I,
    rules: {
      label?: string;
      minItems?: number;
      maxItems?: number;
      minItemsMessage?: string;
      description?: string;
    } = {},
  ): ArraySchema<I> => ({ kind: 'array', items, ...rules }),

  object: <const P extends Props>(properties: P, options: Meta & { refine?: Refine<P> } = {}): ObjectSchema<P> => ({
    kind: 'object',
    properties,
    ...options,
  }),

  /** An object with the same member schema under each of `keys`. */
  record: <const K extends string, V extends SchemaNode>(
    keys: readonly K[],
    value: V,
    meta: Meta = {},
  ): ObjectSchema<Record<K, V>> => ({
    kind: 'object',
    properties: Object.fromEntries(keys.map((key) => [key, value])) as Record<K, V>,
    ...meta,
  }),

  nullable: <I extends SchemaNode>(inner: I): Schema<TypeOf<I> | null> => node({ kind: 'nullable', inner }),

  /** Any JSON value; `T` types it where the shape is told in words (`description`). */
  unknown: <T = unknown>(meta: Meta = {}): Schema<T> => node({ kind: 'unknown', ...meta }),

  /** A schema written by hand in the document's components (the problem shapes), typed here. */
  component: <T>(component: string): Schema<T> => node({ kind: 'component', component }),
};

/** The range an integer schema allows: its bounds, else 0 up to the largest safe integer. */
export function integerRange(schema: SchemaNode): { min: number; max: number } {
  const bounds: { min?: number; max?: number } = schema.kind === 'integer' ? schema : {};
  return { min: bounds.min ?? 0, max: bounds.max ?? Number.MAX_SAFE_INTEGER };
}

/** May be left out of its object; the reader then gives `fallback` when one is given. */
export function optional<S extends SchemaNode>(schema: S): S & { optional: true };
export function optional<S extends SchemaNode, F extends TypeOf<S>>(
  schema: S,
  fallback: F,
): S & { optional: true; fallback: F };
export function optional(schema: SchemaNode, fallback?: unknown): SchemaNode {
  return fallback === undefined ? { ...schema, optional: true } : { ...schema, optional: true, fallback };
}

/** Names a schema: the document lists it once under components.schemas and refers to it. */
export const named = <S extends SchemaNode>(name: string, schema: S, description?: string): S => ({
  ...schema,
  name,
  ...(description ? { description } : {}),
});

/** Every member optional and without fallback: a partial update (`PUT /settings`). */
export function partial<P extends Props>(
  schema: ObjectSchema<P>,
  name: string,
): ObjectSchema<{ [K in keyof P]: P[K] & { optional: true } }> {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, member]) => [key, { ...member, optional: true, fallback: undefined }]),
  ) as { [K in keyof P]: P[K] & { optional: true } };
  return { kind: 'object', properties, name };
}

/** An object schema with more or replaced members, under a new name (refinements are kept). */
export function extend<P extends Props, const Q extends Props>(
  schema: ObjectSchema<P>,
  more: Q,
  name: string,
): ObjectSchema<Omit<P, keyof Q> & Q> {
  const properties = { ...schema.properties, ...more } as Omit<P, keyof Q> & Q;
  return { ...schema, properties, name } as ObjectSchema<Omit<P, keyof Q> & Q>;
}
