import { describe, expect, it } from 'vitest';
import { EVENT_ID, eventIdFloor, newEventId } from '../../server/ids';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const timeOf = (id: string) => [...id.slice(0, 10)].reduce((t, c) => t * 32 + ALPHABET.indexOf(c), 0);

describe('newEventId', () => {
  it('is 26 Crockford base32 chars that start with the time and sort in creation order', () => {
    let previous = '';
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      // Many ids per millisecond, as under load: the random part counts up within one.
      const now = 1_700_000_000_000 + Math.floor(i / 100);
      const id = newEventId(now);
      expect(id).toMatch(EVENT_ID);
      expect(timeOf(id)).toBe(now);
      expect(id > previous).toBe(true);
      // A new millisecond draws fresh random bits: its high half must not repeat.
      if (i % 100 === 0) seen.add(id.slice(10, 18));
      previous = id;
    }
    expect(seen.size).toBe(200);
  });
});

describe('eventIdFloor', () => {
  it('is at or below every id made at that millisecond or later, and above every id made before', () => {
    const at = 1_800_000_000_000;
    const floor = eventIdFloor(at);
    expect(floor).toMatch(EVENT_ID);
    expect(timeOf(floor)).toBe(at);
    for (const later of [at, at + 1, at + 86_400_000]) expect(newEventId(later) >= floor).toBe(true);
    // The clock went back: the id keeps the later time, still above the floor of the earlier one.
    expect(newEventId(at - 5_000) >= eventIdFloor(at - 5_000)).toBe(true);
    expect(eventIdFloor(at - 1) < floor).toBe(true);
  });
});
