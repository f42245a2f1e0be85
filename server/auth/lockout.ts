import type { Logger } from '../logger';

const WINDOW_MS = 5 * 60 * 1000;

/**
 * Whose names a username counter belongs to: dashboard users (/token, admin API) and external
 * users (Basic on data routes) are separate namespaces (SPEC §10), so are their counters (§13).
 */
export type UsernameSpace = 'user' | 'external';

export interface AttemptSource {
  ip: string;
  username?: string;
  space: UsernameSpace;
}

/** What a request may do before it verifies a password (see `Attempt.reserve`). */
export type Reservation = 'reserved' | 'locked';

/**
 * Brute-force protection (SPEC §4, §10, §13): failed authentications are counted in sliding
 * 5-minute windows per source IP and per username (case-insensitive, one namespace per kind of
 * user). Past `limit`, every request from that IP or for that username is refused with 429 until
 * enough failures have aged out of the window.
 *
 * A counter holding `limit` failures does not lock yet: the next attempt is still checked, and
 * only its failure (the one past the limit, answered 401) locks (SPEC §10).
 *
 * Concurrency: a password check takes a slot in both counters *before* it runs (`reserve`) and
 * gives it back on success, so parallel guesses cannot all pass the check while their bcrypt
 * runs: at most `limit + 1` failed verifications per window (the last one being the failure
 * past the limit), whatever arrives at once; the rest wait for the checks in flight and then
 * answer 429. Token checks (no password) take no slot: a failure recorded once the counter is
 * already past the limit answers 429 instead (`Attempt.fail`). Counters are per process (see
 * docs/decisions/0064-lockout-counters-per-process.md for several instances).
 */
export class Lockout {
  private readonly failures = new Map<string, number[]>();
  /** Slots taken by checks in flight, per counter key. */
  private readonly reserved = new Map<string, number>();
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly limit: () => number,
    private readonly now: () => number = Date.now,
    private readonly logger?: Logger,
  ) {}

  /** One authentication attempt; settle it with `fail`/`release` (or `done` in a finally). */
  attempt(source: AttemptSource): Attempt {
    return new Attempt(this, source);
  }

  /** Seconds until the caller may try again, or 0 when not locked out. */
  retryAfter(source: AttemptSource): number {
    return this.waitFor(keysOf(source));
  }

  recordFailure(source: AttemptSource): void {
    this.fail(keysOf(source), source);
  }

  /** @internal Attempt's side. */
  waitFor(keys: string[]): number {
    const now = this.now();
    return Math.max(0, ...keys.map((key) => this.waitForKey(key, now)));
  }

  /**
   * @internal Counts a failure, and logs it (SPEC §4: who and from where, never the secret), with
   * a second line when it locks the address or the username out. Answers the lockout already in
   * effect before this failure, in seconds (0 when this failure is answered 401).
   */
  fail(keys: string[], source: AttemptSource): number {
    const now = this.now();
    const lockedBefore = this.waitFor(keys);
    for (const key of keys) this.push(key, now);
    const who = { sourceIp: source.ip, username: source.username ?? null, userKind: source.space };
    this.logger?.warn('authentication failed', who);
    const retryAfter = this.waitFor(keys);
    if (lockedBefore === 0 && retryAfter > 0) this.logger?.warn('authentication locked out', { ...who, retryAfter });
    return lockedBefore;
  }

  /**
   * @internal Takes a slot for one password check. `busy`: the slots left are all taken by checks
   * in flight; wait for one to settle (`settled`) and ask again, since each may yet succeed.
   */
  reserve(keys: string[]): Reservation | 'busy' {
    if (this.waitFor(keys) > 0) return 'locked';
    const now = this.now();
    const limit = this.limit();
    // A check may start while the failures and the checks in flight stay within `limit + 1`: if
    // every one of them fails, the last is the failure past the limit (401), never one more.
    if (keys.some((key) => this.prune(key, now).length + (this.reserved.get(key) ?? 0) > limit)) return 'busy';
    for (const key of keys) this.reserved.set(key, (this.reserved.get(key) ?? 0) + 1);
    return 'reserved';
  }

  /** @internal Resolves when some check in flight has given its slot back or failed. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** @internal */
  unreserve(keys: string[]): void {
    for (const key of keys) {
      const count = (this.reserved.get(key) ?? 0) - 1;
      if (count > 0) this.reserved.set(key, count);
      else this.reserved.delete(key);
    }
    // Everyone waiting asks again (rare: only while a counter's last slots are being checked).
    const waiters = this.waiters.splice(0);
    for (const wake of waiters) wake();
  }

  private push(key: string, now: number): void {
    const list = this.prune(key, now);
    list.push(now);
    this.failures.set(key, list);
    // Keep memory bounded under a spray of distinct usernames or addresses.
    if (this.failures.size > 100_000) this.sweep(now);
  }

  private waitForKey(key: string, now: number): number {
    const list = this.prune(key, now);
    const limit = this.limit();
    if (list.length <= limit) return 0;
    // Locked until the failures beyond the limit have left the window.
    const unlockAt = (list[list.length - limit - 1] ?? now) + WINDOW_MS;
    return Math.min(300, Math.max(1, Math.ceil((unlockAt - now) / 1000)));
  }

  private prune(key: string, now: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    let drop = 0;
    while (drop < list.length && (list[drop] ?? 0) <= now - WINDOW_MS) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.failures.delete(key);
    return list;
  }

  private sweep(now: number): void {
    for (const key of [...this.failures.keys()]) this.prune(key, now);
  }
}

function keysOf(source: AttemptSource): string[] {
  const keys = [`ip:${source.ip}`];
  if (source.username) keys.push(`${source.space}:${source.username.toLowerCase()}`);
  return keys;
}

/**
 * One request's authentication against the lockout. `reserve` before a password check; `fail`
 * counts the failure (turning a reserved slot into it); `done` gives back a slot that was not
 * failed (a success, a 403, an error), and is safe to call more than once.
 */
export class Attempt {
  private slot = false;
  private failed = false;
  private readonly keys: string[];

  constructor(
    private readonly lockout: Lockout,
    readonly source: AttemptSource,
  ) {
    this.keys = keysOf(source);
  }

  retryAfter(): number {
    return this.lockout.waitFor(this.keys);
  }

  /** Waits while the counters' last slots are held by checks in flight (they may succeed). */
  async reserve(): Promise<Reservation> {
    if (this.slot) return 'reserved';
    for (;;) {
      const reservation = this.lockout.reserve(this.keys);
      if (reservation === 'busy') {
        await this.lockout.settled();
        continue;
      }
      if (reservation === 'reserved') this.slot = true;
      return reservation;
    }
  }

  /**
   * Counts this attempt's failure. Answers the seconds of a lockout that was already in effect
   * before it (the answer is then 429, SPEC §13), or 0: this failure is answered 401.
   */
  fail(): number {
    if (this.failed) return this.retryAfter();
    this.failed = true;
    this.done();
    return this.lockout.fail(this.keys, this.source);
  }

  done(): void {
    if (!this.slot) return;
    this.slot = false;
    this.lockout.unreserve(this.keys);
  }
}
