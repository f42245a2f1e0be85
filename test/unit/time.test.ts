import { describe, expect, it } from 'vitest';
import { tokenValidity } from '../../server/services/access-tokens.service';
import {
  daysBetween,
  expiryInstant,
  instantOfWallTime,
  iso,
  parseDate,
  parseIsoDateTime,
  todayIn,
} from '../../server/time';

describe('access token expiry in the gateway time zone', () => {
  it('ends at 00:00 of the next day in the configured zone', () => {
    expect(new Date(expiryInstant('2026-03-10', 'UTC')).toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(new Date(expiryInstant('2026-03-10', 'Europe/Berlin')).toISOString()).toBe('2026-03-10T23:00:00.000Z');
    expect(new Date(expiryInstant('2026-03-10', 'America/New_York')).toISOString()).toBe('2026-03-11T04:00:00.000Z');
    // across a DST change (Berlin switches on 2026-03-29)
    expect(new Date(expiryInstant('2026-03-29', 'Europe/Berlin')).toISOString()).toBe('2026-03-29T22:00:00.000Z');
  });

  it('computes status and whole days left from the current zone', () => {
    const now = Date.parse('2026-03-10T23:30:00Z'); // 00:30 on the 11th in Berlin
    expect(tokenValidity('2026-03-10', 'UTC', now)).toEqual({ status: 'Active', expiryInDays: 0 });
    expect(tokenValidity('2026-03-10', 'Europe/Berlin', now)).toEqual({ status: 'Expired', expiryInDays: -1 });
    expect(tokenValidity('2026-03-12', 'UTC', now)).toEqual({ status: 'Active', expiryInDays: 2 });
  });

  it('parses only real calendar dates', () => {
    expect(parseDate('2026-02-29')).toBeNull();
    expect(parseDate('2028-02-29')).toEqual({ year: 2028, month: 2, day: 29 });
    expect(parseDate('2026-1-01')).toBeNull();
    expect(daysBetween('2026-12-31', '2027-01-02')).toBe(2);
    expect(todayIn('Asia/Tokyo', Date.parse('2026-03-10T16:00:00Z'))).toBe('2026-03-11');
  });
});

describe('wall-clock times in zones east and west of UTC, both hemispheres (Temporal, disambiguation "later")', () => {
  const at = (wall: string, zone: string): string => new Date(parseIsoDateTime(wall, zone) ?? Number.NaN).toISOString();

  it('moves a time skipped by a DST change forward by the gap, in every zone', () => {
    expect(at('2026-03-29T02:30:00', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z'); // 03:30 CEST
    expect(at('2026-03-08T02:30:00', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    expect(at('2026-03-08T02:30:00', 'America/Los_Angeles')).toBe('2026-03-08T10:30:00.000Z'); // 03:30 PDT
    expect(at('2026-10-04T02:30:00', 'Australia/Sydney')).toBe('2026-10-03T16:30:00.000Z'); // 03:30 AEDT
    // Lord Howe springs forward by half an hour: 02:15 does not exist, 02:45 (+11:00) is meant.
    expect(at('2026-10-04T02:15:00', 'Australia/Lord_Howe')).toBe('2026-10-03T15:45:00.000Z');
  });

  it('takes the later occurrence of a repeated time, in every zone', () => {
    expect(at('2026-10-25T02:30:00', 'Europe/Berlin')).toBe('2026-10-25T01:30:00.000Z'); // CET
    expect(at('2026-11-01T01:30:00', 'America/New_York')).toBe('2026-11-01T06:30:00.000Z'); // EST
    expect(at('2026-11-01T01:30:00', 'America/Los_Angeles')).toBe('2026-11-01T09:30:00.000Z'); // PST
    expect(at('2026-04-05T02:30:00', 'Australia/Sydney')).toBe('2026-04-04T16:30:00.000Z'); // AEST
    expect(at('2026-04-05T01:45:00', 'Australia/Lord_Howe')).toBe('2026-04-04T15:15:00.000Z'); // +10:30
    expect(at('2026-04-04T23:30:00', 'America/Santiago')).toBe('2026-04-05T03:30:00.000Z'); // -04:00
  });

  it('ends a token at the first instant of the next day when that day skips its midnight (Santiago)', () => {
    // Chile springs forward at 24:00 on 2025-09-06: the 7th starts at 01:00 -03:00, not 23:00 the day before.
    expect(new Date(expiryInstant('2025-09-06', 'America/Santiago')).toISOString()).toBe('2025-09-07T04:00:00.000Z');
    expect(new Date(expiryInstant('2025-09-05', 'America/Santiago')).toISOString()).toBe('2025-09-06T04:00:00.000Z');
    expect(new Date(expiryInstant('2026-03-10', 'America/Los_Angeles')).toISOString()).toBe('2026-03-11T07:00:00.000Z');
    expect(new Date(expiryInstant('2026-03-10', 'Australia/Lord_Howe')).toISOString()).toBe('2026-03-10T13:00:00.000Z');
  });

  it('keeps years 0-99 literal and answers NaN for impossible dates', () => {
    expect(new Date(instantOfWallTime({ year: 50, month: 1, day: 1 }, 'UTC')).toISOString()).toBe(
      '0050-01-01T00:00:00.000Z',
    );
    expect(instantOfWallTime({ year: 2026, month: 2, day: 30 }, 'UTC')).toBeNaN();
  });
});

describe('iso', () => {
  it('formats exactly as Date#toISOString does, across days, years and leap days', () => {
    const instants = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      951_782_400_000 - 1, // 2000-02-28T23:59:59.999Z, then the leap day
      951_868_800_000,
      1_700_000_000_123,
      1_709_164_800_000, // 2024-02-29
      253_402_300_799_999, // the last instant of year 9999
    ];
    // Deterministic spread over 1970–2100, out of order so the one-day cache is exercised both ways.
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      instants.push(Math.floor((x / 2 ** 31) * 4_102_444_800_000));
    }
    for (const ms of instants) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it('hands anything outside 1970–9999 or not whole to Date', () => {
    for (const ms of [-1, -86_400_001, 253_402_300_800_000, 1.5, 1_700_000_000_000.7])
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    expect(() => iso(Number.NaN)).toThrow(RangeError);
  });
});
