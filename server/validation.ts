import type { FieldError } from './contract/errors';
import { validationFailed } from './errors';

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
    if (rules.required && value.length === 0) this.fail(key, `${label} is required`);
    else if (rules.max !== undefined && value.length > rules.max)
      this.fail(key, `${label} must be at most ${rules.max} characters`);
    else if (rules.pattern && !rules.pattern.test(value))
      this.fail(key, rules.patternMessage ?? `${label} has an invalid format`);
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
  required?: boolean;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
  label?: string;
}

/** Reads a positive integer id from input (`{id}` of the contract), throwing 400 otherwise. */
export function readId(input: unknown): number {
  const id = (input as { id?: unknown } | null)?.id;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return id;
  if (typeof id === 'string' && /^[1-9][0-9]{0,15}$/.test(id)) return Number(id);
  throw validationFailed([{ path: '/id', message: 'id must be a positive integer' }]);
}
