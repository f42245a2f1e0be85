import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../server/delivery/ledger';

describe('DeliveryLedger recount (decision 0425)', () => {
  it('replaces a count that did not change while it was read', () => {
    const ledger = new DeliveryLedger(() => 0);
    ledger.adding(1, 5);
    ledger.added(1, 5, true);
    const mark = ledger.recountMark();
    ledger.recount(new Map([[1, 3]]), new Map([[1, 2]]), mark);
    expect(ledger.backlog(1)).toBe(3);
    expect(ledger.deadLetters(1)).toBe(2);
  });

  it('keeps the running count where items were delivered or credited while the count was read', () => {
    const ledger = new DeliveryLedger(() => 0);
    ledger.adding(1, 100);
    ledger.added(1, 100, true);
    ledger.adding(2, 10);
    ledger.added(2, 10, true);
    const mark = ledger.recountMark();
    // The read saw 100 waiting for 1, then a sender delivered 70 of them before the count came back.
    ledger.delivered(1, 70);
    // The read saw 10 + 4 committed for 2, whose credit came after it.
    ledger.adding(2, 4);
    ledger.added(2, 4, true);
    ledger.recount(
      new Map([
        [1, 100],
        [2, 14],
      ]),
      new Map(),
      mark,
    );
    expect(ledger.backlog(1)).toBe(30);
    expect(ledger.backlog(2)).toBe(14);
    // The next recount, with nothing happening meanwhile, applies.
    ledger.recount(new Map([[1, 30]]), new Map(), ledger.recountMark());
    expect(ledger.backlog(1)).toBe(30);
    expect(ledger.backlog(2)).toBe(0);
  });

  it('counts a destination first seen in the database', () => {
    const ledger = new DeliveryLedger(() => 0);
    ledger.recount(new Map([[7, 12]]), new Map([[7, 1]]), ledger.recountMark());
    expect(ledger.backlog(7)).toBe(12);
    expect(ledger.deadLetters(7)).toBe(1);
  });
});
