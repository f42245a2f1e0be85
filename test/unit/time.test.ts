import { describe, expect, it } from 'vitest';
import { tokenValidity } from '../../server/services/access-tokens.service';
import { daysBetween, expiryInstant, parseDate, todayIn } from '../../server/time';

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
