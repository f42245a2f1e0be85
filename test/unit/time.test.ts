import { describe, expect, it } from 'vitest';
import { tokenValidity } from '../../server/services/access-tokens.service';
import { daysBetween, expiryInstant, iso, parseDate, todayIn } from '../../server/time';

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
