import { describe, it, expect } from 'vitest';
import { parseIsoDateTime } from '../../../server/events/uhf';

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

  it('refuses times without an offset, impossible dates and other text', () => {
    expect(parseIsoDateTime('2024-01-01T12:00:00')).toBeNull();
    expect(parseIsoDateTime('2023-02-29T12:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-02-29T12:00:00Z')).toBe(Date.UTC(2024, 1, 29, 12, 0, 0));
    expect(parseIsoDateTime('2024-13-01T12:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-01-01T24:00:00Z')).toBeNull();
    expect(parseIsoDateTime('2024-01-01')).toBeNull();
    expect(parseIsoDateTime('yesterday')).toBeNull();
  });
});
