import { describe, expect, it } from 'vitest';
import { Lockout } from '../../server/auth/lockout';
import type { Logger } from '../../server/logger';

function recordingLogger() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    info: (message, fields) => lines.push({ message, fields }),
    warn: (message, fields) => lines.push({ message, fields }),
    error: (message, fields) => lines.push({ message, fields }),
  };
  return { logger, lines };
}

describe('Lockout', () => {
  it('keeps separate username counters for dashboard and external users (issue 21.10)', () => {
    const lockout = new Lockout(
      () => 3,
      () => 1_000_000,
    );
    // From four addresses, so only the username counter can lock.
    for (let i = 0; i < 4; i++) lockout.recordFailure({ ip: `10.0.0.${i}`, username: 'Shared', space: 'user' });
    expect(lockout.retryAfter({ ip: '10.0.0.9', username: 'shared', space: 'user' })).toBeGreaterThan(0);
    expect(lockout.retryAfter({ ip: '10.0.0.9', username: 'shared', space: 'external' })).toBe(0);
  });

  it('reserves a slot per check: parallel checks beyond limit + 1 wait, then answer locked', async () => {
    const lockout = new Lockout(
      () => 2,
      () => 1_000_000,
    );
    const source = { ip: '10.0.0.1', username: 'u', space: 'external' as const };
    const checks = [lockout.attempt(source), lockout.attempt(source), lockout.attempt(source)];
    for (const check of checks) expect(await check.reserve()).toBe('reserved');
    const fourth = lockout.attempt(source);
    let settled: string | null = null;
    const waiting = fourth.reserve().then((reservation) => (settled = reservation));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBeNull(); // limit + 1 slots are being checked: it waits
    // The first two failures reach the limit, the third takes the counter past it: all three 401.
    expect(checks.map((check) => check.fail())).toEqual([0, 0, 0]);
    expect(await waiting).toBe('locked');
    expect(await lockout.attempt(source).reserve()).toBe('locked');
  });

  it('a counter at the limit is not locked: the next attempt is still checked (SPEC §10)', async () => {
    const lockout = new Lockout(
      () => 2,
      () => 1_000_000,
    );
    const source = { ip: '10.0.0.1', username: 'u', space: 'user' as const };
    lockout.recordFailure(source);
    lockout.recordFailure(source);
    expect(lockout.retryAfter(source)).toBe(0);
    const check = lockout.attempt(source);
    expect(await check.reserve()).toBe('reserved');
    check.done(); // the right password
    expect(lockout.retryAfter(source)).toBe(0);
  });

  it('a failure recorded once the counter is past the limit reports the lockout (answered 429)', () => {
    const lockout = new Lockout(
      () => 1,
      () => 1_000_000,
    );
    const source = { ip: '10.0.0.1', space: 'user' as const };
    // Token checks take no slot: three run in parallel and fail one after another.
    const attempts = [lockout.attempt(source), lockout.attempt(source), lockout.attempt(source)];
    const lockedFor = attempts.map((attempt) => attempt.fail());
    expect(lockedFor.slice(0, 2)).toEqual([0, 0]);
    expect(lockedFor[2]).toBeGreaterThan(0);
  });

  it('a success gives its slot back', async () => {
    const lockout = new Lockout(
      () => 1,
      () => 1_000_000,
    );
    const source = { ip: '10.0.0.1', space: 'user' as const };
    const first = lockout.attempt(source);
    expect(await first.reserve()).toBe('reserved');
    first.done();
    expect(await lockout.attempt(source).reserve()).toBe('reserved');
  });

  it('logs every failure and the lockout with who and from where, never a secret (issue 24.5)', () => {
    const { logger, lines } = recordingLogger();
    const lockout = new Lockout(
      () => 1,
      () => 1_000_000,
      logger,
    );
    lockout.recordFailure({ ip: '10.1.2.3', username: 'alice', space: 'user' });
    lockout.recordFailure({ ip: '10.1.2.3', username: 'alice', space: 'user' });
    expect(lines.map((line) => line.message)).toEqual([
      'authentication failed',
      'authentication failed',
      'authentication locked out',
    ]);
    expect(lines[0]?.fields).toEqual({ sourceIp: '10.1.2.3', username: 'alice', userKind: 'user' });
    expect(lines[2]?.fields).toMatchObject({ sourceIp: '10.1.2.3', username: 'alice', retryAfter: 300 });
  });
});
