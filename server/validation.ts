import type { FieldError } from './contract/errors';
import type { ObjectSchema, ReadOf, SchemaNode } from './contract/schema';
import { notFound, validationFailed } from './errors';
import { passwordProblem } from './secrets';

/** Characters as a person counts them (code points): "é" or "🙂" is one, not one or two UTF-16 units. */
export const characterCount = (value: string): number => [...value].length;

/**
 * Reads fields out of untrusted input, collecting every problem with its JSON Pointer path, so a
 * form can show each error next to its field. Services validate every input with it, whatever
 * the transport (HTTP JSON, IPC structured clone, CLI), and never cast.
 */
export class InputReader {
  readonly errors: FieldError[] = [];
  private readonly record: Record<string, unknown>;

  constructor(
    input: unknown,
    private readonly base = '',
  ) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      this.errors.push({ path: base, message: 'Expected a JSON object' });
      this.record = {};
    } else {
      this.record = input as Record<string, unknown>;
    }
  }

  path(key: string | number): string {
    return `${this.base}/${String(key)}`;
  }

  has(key: string): boolean {
    return this.record[key] !== undefined;
  }

  raw(key: string): unknown {
    return this.record[key];
  }

  fail(key: string | number, message: string): void {
    this.errors.push({ path: this.path(key), message });
  }

  /** Fails on keys the caller did not expect (used where an unknown key is a likely typo). */
  onlyKeys(allowed: readonly string[]): void {
    for (const key of Object.keys(this.record)) {
      if (!allowed.includes(key)) this.fail(key, `Unknown field "${key}"`);
    }
  }

  string(key: string, rules: StringRules & { required: true }): string;
  string(key: string, rules?: StringRules): string | undefined;
  string(key: string, rules: StringRules = {}): string | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) {
      if (rules.required) this.fail(key, `${rules.label ?? key} is required`);
      return rules.required ? '' : undefined;
    }
    if (typeof value !== 'string') {
      this.fail(key, `${rules.label ?? key} must be a string`);
      return rules.required ? '' : undefined;
    }
    const label = rules.label ?? key;
    // A required value must say something: only spaces is as missing as nothing at all (a name
    // of blanks cannot be told apart in a list). Secrets opt out, spaces are part of them.
    const blank = rules.allowBlank ? value.length === 0 : value.trim().length === 0;
    if (rules.required && blank) this.fail(key, `${label} is required`);
    else if (rules.max !== undefined && characterCount(value) > rules.max)
      this.fail(key, `${label} must be at most ${rules.max} characters`);
    else if (rules.pattern && !rules.pattern.test(value))
      this.fail(key, rules.patternMessage ?? `${label} has an invalid format`);
    return value;
  }

  /**
   * A write-only password. Omitted (or null) gives undefined: required on create, "keep the
   * current one" on update (SPEC §10). Anything sent, "" included, must be a valid password
   * (8–72 bytes, SPEC §3): an empty field never silently means "unchanged".
   */
  password(key: string, required: boolean): string | undefined {
    const before = this.errors.length;
    const value = this.string(key, { required, allowBlank: true, label: 'Password' });
    if (value === undefined || this.errors.length > before) return value;
    const problem = passwordProblem(value, this.path(key));
    if (problem) this.errors.push(problem);
    return value;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.record[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') {
      this.fail(key, `${key} must be true or false`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], label = key): T {
    const value = this.record[key];
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    this.fail(
      key,
      value === undefined || value === null ? `${label} is required` : `${label} must be one of ${allowed.join(', ')}`,
    );
    return allowed[0];
  }

  stringList(key: string, label = key): string[] {
    const value = this.record[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(key, `${label} must be a list of names`);
      return [];
    }
    const result: string[] = [];
    value.forEach((item: unknown, index) => {
      if (typeof item === 'string' && item.length > 0) result.push(item);
      else
        this.errors.push({ path: `${this.path(key)}/${index}`, message: `${label} entries must be non-empty strings` });
    });
    return result;
  }

  /** Throws 400 `validation_failed` with every collected error, if there are any. */
  check(): void {
    if (this.errors.length > 0) throw validationFailed(this.errors);
  }
}

export interface StringRules {
  /** Present and not blank (whitespace only counts as missing, unless `allowBlank`). */
  required?: boolean;
  /** For secrets (passwords, passphrases): whitespace is content, only "" is missing. */
  allowBlank?: boolean;
  /** In characters (code points), the unit the spec's "1–64 chars" means. */
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
  label?: string;
}

/**
 * Reads untrusted input after a contract schema (server/contract/schemas): every member in the
 * schema's order, then its `refine` rules, collecting each problem at its JSON Pointer. The
 * caller may add rules that need the store before throwing; `parseInput` throws at once.
 */
export function readInput<P extends Members>(
  schema: ObjectSchema<P>,
  input: unknown,
  base = '',
): { value: ReadOf<ObjectSchema<P>>; errors: FieldError[] } {
  const r = new InputReader(input, base);
  const value: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(schema.properties)) value[key] = readMember(r, key, member);
  schema.refine?.(value as never, (key, message) => r.fail(key, message));
  return { value: value as ReadOf<ObjectSchema<P>>, errors: r.errors };
}

/** `readInput`, answering 400 `validation_failed` with every problem when there is one. */
export function parseInput<P extends Members>(schema: ObjectSchema<P>, input: unknown): ReadOf<ObjectSchema<P>> {
  const { value, errors } = readInput(schema, input);
  if (errors.length > 0) throw validationFailed(errors);
  return value;
}

function readMember(r: InputReader, key: string, member: SchemaNode): unknown {
  const required = member.optional !== true;
  switch (member.kind) {
    case 'string': {
      const before = r.errors.length;
      const value = r.string(key, { ...member.rules, required });
      const { min, label = key } = member.rules;
      if (value && min !== undefined && r.errors.length === before && characterCount(value) < min)
        r.fail(key, `${label} must be at least ${min} characters`);
      return value ?? member.fallback;
    }
    case 'password':
      return r.password(key, required);
    case 'boolean':
      return r.boolean(key, member.fallback === true);
    case 'enum':
      return r.oneOf(key, member.values, member.label);
    case 'integer':
      return readInteger(r, key, member);
    case 'array':
      if (member.items.kind === 'object') return readObjectList(r, key, member);
      return member.items.kind === 'integer' ? readIntegerList(r, key, member) : readNameList(r, key, member);
    default:
      return r.raw(key) ?? member.fallback;
  }
}

type Members = Record<string, SchemaNode>;
type Of<K extends SchemaNode['kind']> = Extract<SchemaNode, { kind: K }>;

function readInteger(r: InputReader, key: string, member: Of<'integer' | 'number'>): number | undefined {
  const value = r.raw(key);
  if (value === undefined || value === null) {
    if (member.optional !== true) r.fail(key, `${key} is required`);
    return member.fallback as number | undefined;
  }
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = member;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  r.fail(key, member.message ?? `${key} must be an integer from ${min} to ${max}`);
  return member.fallback as number | undefined;
}

/** A list of names: each entry a non-empty string; `minItems` counts the valid ones. */
function readNameList(r: InputReader, key: string, member: Of<'array'>): string[] {
  const names = r.stringList(key, member.label);
  if (member.minItems !== undefined && names.length < member.minItems)
    r.fail(key, member.minItemsMessage ?? `${member.label ?? key} needs at least ${member.minItems} entries`);
  return names;
}

/** A list of whole numbers (ids), each within the item's range, at its own path (`/destinations/0`). */
function readIntegerList(r: InputReader, key: string, member: Of<'array'>): number[] {
  const list = r.raw(key);
  if (list === undefined || list === null) return (member.fallback as number[] | undefined) ?? [];
  if (!Array.isArray(list)) {
    r.fail(key, `${member.label ?? key} must be a list`);
    return [];
  }
  const item = member.items as Of<'integer' | 'number'>;
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = item;
  return list.flatMap((value: unknown, index) => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return [value];
    r.fail(`${key}/${index}`, item.message ?? `${member.label ?? key} entries must be integers from ${min} to ${max}`);
    return [];
  });
}

/** A list of objects, each read at its own path (`/routes/0/name`); one message when there are too few. */
function readObjectList(r: InputReader, key: string, member: Of<'array'>): unknown[] {
  const list = r.raw(key);
  const items = member.items as ObjectSchema<Members>;
  if (!Array.isArray(list) || list.length < (member.minItems ?? 0)) {
    r.fail(key, member.minItemsMessage ?? `${member.label ?? key} must be a list`);
    return [];
  }
  return list.map((item: unknown, index) => {
    const read = readInput(items, item, `${r.path(key)}/${index}`);
    r.errors.push(...read.errors);
    return read.value;
  });
}

/** Ids are PostgreSQL `increments` columns: 32-bit, so nothing larger can exist. */
const MAX_ID = 2_147_483_647;

/**
 * Reads the id of a stored record (`{id}` of the contract; a path segment arrives as a string).
 * An id that cannot name a record (`abc`, `0`, `1e3`, beyond 32 bits) answers the same 404 as an
 * unknown one (SPEC §6: unknown ids → 404): no such `what` exists, whatever the reason.
 */
export function readId(input: unknown, what: string): number {
  const id = storedId((input as { id?: unknown } | null)?.id);
  if (id === null) throw notFound(what);
  return id;
}

/** A value that can be a stored id (a number, or its decimal digits as text), else null. */
export function storedId(raw: unknown): number | null {
  const id = typeof raw === 'string' && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : raw;
  return typeof id === 'number' && Number.isInteger(id) && id > 0 && id <= MAX_ID ? id : null;
}
