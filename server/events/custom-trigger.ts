import type { FieldError } from '../contract/errors';
import { fail, ok, pointer } from './types';
import type { ReceiveContext, Validation } from './types';
import { parseIsoDateTime } from '../time';

/** A CustomTrigger event as stored and listed. */
export interface TriggerEvent {
  trigger: string;
  /** The sender's own name for itself, else the authenticated principal. */
  source: string;
  /** ISO 8601 in UTC with milliseconds (`2026-03-02T08:20:00.000Z`). */
  occurredAt: string;
  params: Record<string, unknown>;
}

export const TRIGGER_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const MAX_SOURCE_LENGTH = 255;
const KNOWN_KEYS = new Set(['trigger', 'source', 'occurredAt', 'params']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates `{trigger, source?, occurredAt?, params?}`. Optional fields sent as null count as
 * absent. Unknown top-level keys are accepted (SPEC §10 names what makes a trigger invalid, and
 * an extra key is not among it; the raw payload keeps them) but never silently: each comes back
 * as a warning at its own path, so a misspelt `param` or `occuredAt` shows in the answer.
 * `occurredAt` is stored normalized to UTC so the GET snapshot sorts and compares it as text.
 */
export function normalizeCustomTrigger(json: unknown, context: ReceiveContext): Validation<TriggerEvent> {
  if (!isObject(json))
    return fail([{ path: '', message: 'Expected a JSON object {trigger, source?, occurredAt?, params?}' }]);
  const errors: FieldError[] = [];
  const warnings: FieldError[] = Object.keys(json)
    .filter((key) => !KNOWN_KEYS.has(key))
    .map((key) => ({
      path: pointer(key),
      message: `Unknown field "${key}" ignored; a trigger has trigger, source, occurredAt, params`,
    }));

  const trigger = json.trigger;
  if (typeof trigger !== 'string' || !TRIGGER_PATTERN.test(trigger)) {
    const message =
      trigger === undefined || trigger === null
        ? 'trigger is required'
        : 'trigger must start with a letter and contain only letters, digits, "_", "." or "-" (at most 64 characters)';
    errors.push({ path: pointer('trigger'), message });
  }

  let source = context.principal;
  if (json.source !== undefined && json.source !== null) {
    if (typeof json.source !== 'string' || json.source.length === 0 || json.source.length > MAX_SOURCE_LENGTH) {
      errors.push({
        path: pointer('source'),
        message: `source must be a string of 1 to ${String(MAX_SOURCE_LENGTH)} characters`,
      });
    } else {
      source = json.source;
    }
  }

  let occurredAt = new Date(context.receivedAt).toISOString();
  if (json.occurredAt !== undefined && json.occurredAt !== null) {
    const ms = typeof json.occurredAt === 'string' ? parseIsoDateTime(json.occurredAt, context.timeZone) : null;
    if (ms === null) {
      errors.push({
        path: pointer('occurredAt'),
        message: 'occurredAt must be an ISO 8601 date-time, e.g. 2026-03-02T08:20:00Z',
      });
    } else {
      occurredAt = new Date(ms).toISOString();
    }
  }

  let params: Record<string, unknown> = {};
  if (json.params !== undefined && json.params !== null) {
    if (isObject(json.params)) params = json.params;
    else errors.push({ path: pointer('params'), message: 'params must be a JSON object' });
  }

  if (errors.length > 0 || typeof trigger !== 'string') return fail(errors);
  return ok({ trigger, source, occurredAt, params }, warnings);
}
