const WINDOW_MS = 5 * 60 * 1000;

/**
 * Brute-force protection (SPEC §4, §10): failed authentications are counted in sliding 5-minute
 * windows per source IP and per username (case-insensitive). Past `limit`, every request from that
 * IP or for that username is refused with 429 until enough failures have aged out of the window.
 * Counters are per process (see docs/decisions.md for several instances).
 */
export class Lockout {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the caller may try again, or 0 when not locked out. */
  retryAfter(ip: string, username?: string): number {
    const now = this.now();
    return Math.max(this.waitFor(`ip:${ip}`, now), username ? this.waitFor(`user:${username.toLowerCase()}`, now) : 0);
  }

  recordFailure(ip: string, username?: string): void {
    const now = this.now();
    this.push(`ip:${ip}`, now);
    if (username) this.push(`user:${username.toLowerCase()}`, now);
  }

  private push(key: string, now: number): void {
    const list = this.prune(key, now);
    list.push(now);
    this.failures.set(key, list);
    // Keep memory bounded under a spray of distinct usernames or addresses.
    if (this.failures.size > 100_000) this.sweep(now);
  }

  private waitFor(key: string, now: number): number {
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
