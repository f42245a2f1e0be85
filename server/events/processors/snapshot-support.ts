import { jsonTooDeep } from '../../json-depth';
import type { FieldError } from '../../contract/errors';
import { EVENT_ID } from '../../ids';
import { eventWrites, type EventRow, type EventSnapshotFilter } from '../../repositories/events.repo';
import type { Queryable } from '../../repositories/db-types';
import type { SnapshotQuery } from '../processor';
import { instantOfWallTime, parseDate, parseIsoDateTime } from '../../time';

export type FilterResult = { ok: true; filters: Record<string, string | number> } | { ok: false; errors: FieldError[] };

/** Filters that take any non-empty text. */
export function textFilters(query: Record<string, string>, names: readonly string[]): FilterResult {
  const filters: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (value === '') errors.push({ path: `/${name}`, message: `${name} must not be empty` });
    else filters[name] = value;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, filters };
}

/**
 * An ISO 8601 query value → ms, or an error at its parameter. Read as payload times are
 * (`parseIsoDateTime`): without an offset on the gateway's clock (`timeZone`), and a date alone
 * as that day's start there, never in the process's own zone, which differs between machines.
 */
export function parseInstant(name: string, value: string, errors: FieldError[], timeZone: string): number | undefined {
  const date = parseDate(value);
  const ms = date ? instantOfWallTime(date, timeZone) : parseIsoDateTime(value, timeZone);
  if (ms === null || !Number.isFinite(ms)) {
    errors.push({ path: `/${name}`, message: `${name} must be an ISO 8601 date-time` });
    return undefined;
  }
  return ms;
}

/** The cursor of `eventSnapshotPage`: the last item's event id. */
export const isEventIdCursor = (cursor: string): boolean => EVENT_ID.test(cursor);

/**
 * A page of stored events for snapshot types backed by the `events` table, newest first, with
 * the id as keyset cursor (ids sort by time). One extra row tells whether a next page exists.
 */
export async function eventSnapshotPage<T>(
  db: Queryable,
  query: SnapshotQuery,
  filter: Omit<EventSnapshotFilter, 'endpointId' | 'since' | 'until' | 'beforeId' | 'limit'>,
  toItem: (row: EventRow) => T,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const beforeId = query.cursor;
  const rows = await eventWrites.snapshotPage(db, {
    ...filter,
    endpointId: query.endpointId,
    since: query.since,
    until: query.until,
    beforeId,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { items: page.map(toItem), nextCursor: rows.length > query.limit && last ? last.id : null };
}

/**
 * Stored JSON text as a value for an answer. Text nested deeper than SPEC §13 allows (stored before
 * the limit existed) comes back as the text itself: parsed, it could not be serialized again and
 * would break every page that holds it.
 */
export const parseStored = (text: string | null): unknown =>
  text === null ? null : jsonTooDeep(text) ? text : (JSON.parse(text) as unknown);
