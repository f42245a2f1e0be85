import { describe, expect, it } from 'vitest';
import { formatZonedTime, readablePath, resultSummary } from '../../renderer/src/events/event-text';

describe('event inspector wording', () => {
  it('formats an instant in a named zone with milliseconds, across daylight saving time', () => {
    expect(formatZonedTime('2026-01-15T10:42:07.123Z', 'Europe/Berlin')).toBe('2026-01-15 11:42:07.123');
    expect(formatZonedTime('2026-07-15T10:42:07.005Z', 'Europe/Berlin')).toBe('2026-07-15 12:42:07.005');
    // Midnight is 00, not 24; the day follows the zone, not UTC.
    expect(formatZonedTime('2026-11-23T23:00:00.000Z', 'Europe/Berlin')).toBe('2026-11-24 00:00:00.000');
    expect(formatZonedTime('2026-11-24T02:00:00.999Z', 'America/Los_Angeles')).toBe('2026-11-23 18:00:00.999');
    expect(formatZonedTime('not a time', 'UTC')).toBe('not a time');
  });

  it('reads JSON Pointers as words: the root is the whole document', () => {
    expect(readablePath('')).toBe('the whole document');
    expect(readablePath('/')).toBe('the whole document');
    expect(readablePath(null)).toBe('the whole document');
    expect(readablePath('/0/epc')).toBe('[0] › epc');
    expect(readablePath('/events/3/bizStep')).toBe('events[3] › bizStep');
    expect(readablePath('/T/0/rows/12')).toBe('T[0] › rows[12]');
    expect(readablePath('/a~1b/c~0d')).toBe('a/b › c~d');
  });

  it('sums up an event’s result in one line', () => {
    const base = { status: 'processed' as const, errors: null };
    expect(resultSummary({ ...base, result: { reads: 1, uniqueEpcs: 2, duplicatesSuppressed: 0 } })).toBe(
      '1 read · 2 unique EPCs · 0 duplicates suppressed',
    );
    expect(resultSummary({ ...base, result: { eventCount: 2, eventIds: ['a', 'b'] } })).toBe('2 events');
    expect(resultSummary({ ...base, result: { trigger: 'door-open' } })).toBe('trigger door-open');
    expect(resultSummary({ ...base, result: { someNewCount: 1234 } })).toBe('1,234 some new count');
    expect(resultSummary({ ...base, result: null })).toBe('Stored');
    expect(resultSummary({ status: 'queued', result: null, errors: null })).toBe('Waiting to be processed');
    expect(
      resultSummary({
        status: 'rejected',
        result: null,
        errors: [
          { path: '/0/epc', message: 'epc must be hex' },
          { path: '/1/epc', message: 'epc must be hex' },
        ],
        errorCount: 250,
      }),
    ).toBe('[0] › epc: epc must be hex (+249 more)');
  });
});
