import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors';
import { LARGE_BODY_BYTES } from '../../server/events/large-body';
import { BodyBudget } from '../../server/http/data-plane/body-budget';

const MIB = 1024 * 1024;
const LIMIT = 100 * MIB;

describe('BodyBudget: memory for large bodies in flight (issue 38.3)', () => {
  it('admits large bodies up to the budget, then refuses with 503 overloaded and Retry-After', () => {
    const budget = new BodyBudget(25 * MIB);
    budget.admit(10 * MIB, LIMIT);
    budget.admit(10 * MIB, LIMIT);
    expect(() => budget.admit(10 * MIB, LIMIT)).toThrow(
      expect.objectContaining({ code: 'overloaded', status: 503, headers: { 'Retry-After': expect.any(String) } }),
    );
    expect(budget.bytesInFlight).toBe(20 * MIB);
  });

  it('always admits one body when none is in flight, and takes nothing for small or over-limit bodies', () => {
    const budget = new BodyBudget(5 * MIB);
    const ticket = budget.admit(50 * MIB, LIMIT);
    expect(budget.bytesInFlight).toBe(50 * MIB);
    budget.admit(LARGE_BODY_BYTES, LIMIT);
    budget.admit(LIMIT + 1, LIMIT);
    expect(budget.bytesInFlight).toBe(50 * MIB);
    ticket.release();
    ticket.release();
    expect(budget.bytesInFlight).toBe(0);
  });

  it('takes a body without Content-Length once its size is known, and only then', () => {
    const budget = new BodyBudget(15 * MIB);
    budget.admit(10 * MIB, LIMIT);
    const chunked = budget.admit(undefined, LIMIT);
    expect(budget.bytesInFlight).toBe(10 * MIB);
    expect(() => chunked.measured(10 * MIB)).toThrow(AppError);
    const declared = budget.admit(2 * MIB, LIMIT);
    declared.measured(50 * MIB);
    expect(budget.bytesInFlight).toBe(12 * MIB);
  });
});
