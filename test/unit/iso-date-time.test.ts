import { describe, it, expect } from 'vitest';
import { parseIsoDateTime } from '../../server/time';

describe('parseIsoDateTime', () => {
  it('reads Zebra offsets without a colon', () => {
    expect(parseIsoDateTime('2025-01-08T15:36:53.123+0000')).toBe(Date.UTC(2025, 0, 8, 15, 36, 53, 123));
    expect(parseIsoDateTime('2025-01-08T16:36:53.123+0100')).toBe(Date.UTC(2025, 0, 8, 15, 36, 53, 123));
  });

  it('truncates nanosecond and microsecond fractions to the millisecond', () => {
    expect(parseIsoDateTime('2024-01-01T12:00:00.123456789Z')).toBe(Date.UTC(2024, 0, 1, 12, 0, 0, 123));
    // .9999 must not round up into the next second.
    expect(parseIsoDateTime('2024-01-01T12:00:00.9999Z')).toBe(Date.UTC(2024, 0, 1, 12, 0, 0, 999));
    expect(parseIsoDateTime('2024-01-01T12:00:00.5Z')).toBe(Date.UTC(2024, 0, 1, 12, 0, 0, 500));
  });

  it('applies offsets with a colon, hours only, and negative ones', () => {
    expect(parseIsoDateTime('2024-01-01T12:00:00+02:00')).toBe(Date.UTC(2024, 0, 1, 10, 0, 0));
    expect(parseIsoDateTime('2024-01-01T12:00:00-05')).toBe(Date.UTC(2024, 0, 1, 17, 0, 0));
    expect(parseIsoDateTime('2024-01-01T12:00Z')).toBe(Date.UTC(2024, 0, 1, 12, 0, 0));
  });

  it('reads a time without an offset on the clock of the zone given, and refuses it without one', () => {
    expect(parseIsoDateTime('2024-01-01T12:00:00')).toBeNull();
    expect(parseIsoDateTime('2024-01-01T12:00:00', 'Europe/Berlin')).toBe(Date.UTC(2024, 0, 1, 11, 0, 0));
    expect(parseIsoDateTime('2024-07-01T12:00:00.250', 'Europe/Berlin')).toBe(Date.UTC(2024, 6, 1, 10, 0, 0, 250));
    expect(parseIsoDateTime('2024-07-01 08:30', 'America/New_York')).toBe(Date.UTC(2024, 6, 1, 12, 30));
    // A wall time a DST change skips lands an hour later; one it repeats, on its later occurrence.
    expect(parseIsoDateTime('2024-03-31T02:30:00', 'Europe/Berlin')).toBe(Date.UTC(2024, 2, 31, 1, 30));
    expect(parseIsoDateTime('2024-10-27T02:30:00', 'Europe/Berlin')).toBe(Date.UTC(2024, 9, 27, 1, 30));
    // An offset sent wins over the zone.
    expect(parseIsoDateTime('2024-01-01T12:00:00Z', 'Europe/Berlin')).toBe(Date.UTC(2024, 0, 1, 12, 0, 0));
  });

  it('refuses impossible dates and other text', () => {
    expect(parseIsoDateTime('2023-02-29T12:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12, 0, 0));
    expect(parseIsoDateTime('2024-13-01T12:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-01-01T24:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-01-01')).toBeNull();
    expect(parseIsoDateTime('yesterday')).toBeNull();
  });
});
