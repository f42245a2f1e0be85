import type { Db } from '../db';
import { bearerTokensRepo } from '../repositories/bearer-tokens.repo';
import { nameKey } from '../repositories/db-types';
import { dummyPasswordHash, safeEqual, sha256Hex, verifyPassword } from '../secrets';
import type { ConfigChanges } from '../db/config-changes';
import type { SettingsService } from '../services/settings.service';
import { expiryInstant } from '../time';
import type { AuthDirectory, DirectoryExternalUser, DirectoryUser } from './directory';
import type { Attempt } from './lockout';

export type Principal =
  | { kind: 'external'; user: DirectoryExternalUser }
  | { kind: 'user'; user: DirectoryUser }
  | { kind: 'token'; id: number; name: string; role: string }
  | { kind: 'anonymous' };

/** The principal as events and audit entries name it (SPEC §10). */
export function principalName(principal: Principal): string {
  switch (principal.kind) {
    case 'external':
      return `external:${principal.user.username}`;
    case 'user':
      return `user:${principal.user.username}`;
    case 'token':
      return `token:${principal.name}`;
    case 'anonymous':
      return 'anonymous';
  }
}

/**
 * A credential as presented, whatever carried it (SPEC §4, §15): an HTTP `Authorization` header
 * and an MQTT CONNECT's username and password both map onto it.
 * - `token`: a `gwbt_` bearer token or a `gwat_` access token; `bearer` tells whether it came
 *   after `Bearer ` (HTTP), which a bearer token must (an access token may come alone).
 * - `malformed`: something was presented that names nobody (counts as a failure).
 */
export type Credential =
  | { kind: 'none' }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'token'; value: string; bearer: boolean }
  | { kind: 'malformed' };

/** A token check: no password, so the lockout never stops it (it only counts its failures). */
export type TokenVerification<P> =
  { ok: true; principal: P } | { ok: false; code: 'credentials_invalid' | 'token_expired' };

export type Verification<P> =
  | TokenVerification<P>
  /** The lockout refused to let this password be checked (SPEC §13). */
  | { ok: false; code: 'too_many_failures'; retryAfter: number };

/**
 * Takes the attempt's lockout slot before a password check; the refusal to answer instead, or
 * null when the check may run.
 */
async function refuseUnreserved(attempt: Attempt): Promise<Verification<never> | null> {
  const reservation = await attempt.reserve();
  if (reservation === 'locked') return { ok: false, code: 'too_many_failures', retryAfter: attempt.retryAfter() };
  return null;
}

const BASIC_CACHE_TTL_MS = 60_000;
const CACHE_LIMIT = 10_000;

/**
 * Verifies presented credentials against the in-memory directory. bcrypt runs only on a cache
 * miss: verified Basic credentials are remembered (by SHA-256 of the pair) for a minute, and every
 * cache is dropped the moment users, external users or tokens change.
 */
export class CredentialVerifier {
  private readonly basicCache = new Map<string, { username: string; passwordHash: string; expiresAt: number }>();
  private readonly sessionCache = new Map<string, { userId: number; expiresAt: number }>();
  private readonly expiryCache = new Map<string, number>();
  private readonly basicInFlight = new Map<string, Promise<boolean>>();

  constructor(
    private readonly deps: { db: Db; directory: AuthDirectory; settings: SettingsService; now: () => number },
    changes: ConfigChanges,
  ) {
    changes.subscribe((resources) => {
      if (resources.has('externalUsers') || resources.has('users')) this.basicCache.clear();
      if (resources.has('users') || resources.has('sessions')) this.sessionCache.clear();
    });
  }

  /**
   * Basic credentials of an external user (data routes). A username and password verified in the last
   * minute are answered from the cache (a success: it cannot add a failure, and the caller has already
   * refused a locked-out source); any other check takes a lockout slot first.
   */
  async verifyExternal(
    credential: { username: string; password: string },
    attempt: Attempt,
  ): Promise<Verification<DirectoryExternalUser>> {
    // The pair as one string: a colon cannot end a username, so no two pairs share a key.
    const cacheKey = sha256Hex(`${credential.username}:${credential.password}`);
    const cachedUser = await this.cachedExternal(credential.username, cacheKey);
    if (cachedUser) return { ok: true, principal: cachedUser };
    // Every request takes its own slot, even one that rides on a check already running: each
    // failure counts, and attempts past the limit wait and then answer 429 (SPEC §13).
    const refused = await refuseUnreserved(attempt);
    if (refused) return refused;
    // While this request waited for its slot, a parallel one may have verified the same pair.
    const verifiedMeanwhile = await this.cachedExternal(credential.username, cacheKey);
    if (verifiedMeanwhile) return { ok: true, principal: verifiedMeanwhile };
    const user = (await this.deps.directory.get()).externalUsersByName.get(nameKey(credential.username));
    // Concurrent misses for one pair (a reader's parallel connections, at its first request or
    // when the entry expires) share one bcrypt run instead of each paying a full bcrypt's CPU: a
    // herd of them stalled every request behind it (figures: docs/performance.md,
    // P06). Keyed by the stored hash too, so after a password change nobody rides on a
    // check against the old one.
    const flightKey = `${cacheKey}:${user?.passwordHash ?? 'unknown'}`;
    let check = this.basicInFlight.get(flightKey);
    if (!check) {
      const storedHash = user?.passwordHash;
      check = (async () => verifyPassword(credential.password, storedHash ?? (await this.dummyHash())))().finally(() =>
        this.basicInFlight.delete(flightKey),
      );
      this.basicInFlight.set(flightKey, check);
    }
    const valid = await check;
    if (!user || !valid) return { ok: false, code: 'credentials_invalid' };
    if (this.basicCache.size >= CACHE_LIMIT) this.basicCache.clear();
    this.basicCache.set(cacheKey, {
      username: user.username,
      passwordHash: user.passwordHash,
      expiresAt: this.deps.now() + BASIC_CACHE_TTL_MS,
    });
    return { ok: true, principal: user };
  }

  /** The external user a Basic pair was verified for in the last minute, if its hash is unchanged. */
  private async cachedExternal(username: string, cacheKey: string): Promise<DirectoryExternalUser | null> {
    const cached = this.basicCache.get(cacheKey);
    if (!cached || cached.expiresAt <= this.deps.now()) return null;
    const user = (await this.deps.directory.get()).externalUsersByName.get(nameKey(username));
    return user && safeEqual(cached.passwordHash, user.passwordHash) ? user : null;
  }

  /** A dashboard user's password (/token): never cached, logins are rare. Disabled users fail. */
  async verifyUserPassword(username: string, password: string, attempt: Attempt): Promise<Verification<DirectoryUser>> {
    const directory = await this.deps.directory.get();
    const user = directory.usersByName.get(nameKey(username));
    const refused = await refuseUnreserved(attempt);
    if (refused) return refused;
    const valid = await verifyPassword(password, user?.passwordHash ?? (await this.dummyHash()));
    if (!user || !valid || !user.active) return { ok: false, code: 'credentials_invalid' };
    return { ok: true, principal: user };
  }

  /** What an unknown username is checked against: a hash at the current `bcryptCost`. */
  private dummyHash(): Promise<string> {
    return dummyPasswordHash(this.deps.settings.current().bcryptCost);
  }

  /** A `gwbt_` bearer token from /token: alive while unexpired and its user active. */
  async verifyBearer(token: string): Promise<TokenVerification<DirectoryUser>> {
    const hash = sha256Hex(token);
    let session = this.sessionCache.get(hash);
    if (!session) {
      const row = await bearerTokensRepo.findByHash(this.deps.db.knex, hash);
      if (!row) return { ok: false, code: 'credentials_invalid' };
      session = row;
      if (this.sessionCache.size >= CACHE_LIMIT) this.sessionCache.clear();
      this.sessionCache.set(hash, session);
    }
    if (session.expiresAt <= this.deps.now()) return { ok: false, code: 'token_expired' };
    const user = (await this.deps.directory.get()).usersById.get(session.userId);
    if (!user || !user.active) return { ok: false, code: 'credentials_invalid' };
    return { ok: true, principal: user };
  }

  /** A `gwat_` access token: valid until 00:00 after its expiry date in the current time zone. */
  async verifyAccessToken(token: string): Promise<TokenVerification<{ id: number; name: string; role: string }>> {
    const entry = (await this.deps.directory.get()).accessTokensByHash.get(sha256Hex(token));
    if (!entry) return { ok: false, code: 'credentials_invalid' };
    if (this.deps.now() >= this.expiryOf(entry.expiryDate, this.deps.settings.current().timeZone)) {
      return { ok: false, code: 'token_expired' };
    }
    return { ok: true, principal: entry };
  }

  /**
   * The instant a token dated `expiryDate` expires in `timeZone`. Still derived at every check
   * from the date and the *current* zone, but remembered per (date, zone) pair: the Intl
   * calendar arithmetic is a large share of a request on the data plane (figures:
   * docs/performance.md, P06).
   */
  private expiryOf(expiryDate: string, timeZone: string): number {
    const key = `${expiryDate} ${timeZone}`;
    let instant = this.expiryCache.get(key);
    if (instant === undefined) {
      instant = expiryInstant(expiryDate, timeZone);
      if (this.expiryCache.size >= CACHE_LIMIT) this.expiryCache.clear();
      this.expiryCache.set(key, instant);
    }
    return instant;
  }

  /**
   * The principal a credential verified earlier stands for now, or null when it stopped being
   * valid (a token deleted, regenerated or expired; a user disabled, deleted or given a new
   * password). For clients that authenticate once and submit for long after (MQTT, SPEC §15):
   * directory lookups and hashes, never bcrypt.
   */
  async stillValid(principal: Principal, credential: Credential): Promise<Principal | null> {
    switch (principal.kind) {
      case 'anonymous':
        return principal;
      case 'external': {
        const user = (await this.deps.directory.get()).externalUsersByName.get(nameKey(principal.user.username));
        const same = user && user.id === principal.user.id && user.passwordHash === principal.user.passwordHash;
        return same && user.active ? { kind: 'external', user } : null;
      }
      case 'token': {
        if (credential.kind !== 'token') return null;
        const verified = await this.verifyAccessToken(credential.value);
        return verified.ok ? { kind: 'token', ...verified.principal } : null;
      }
      case 'user': {
        if (credential.kind !== 'token') return null;
        const verified = await this.verifyBearer(credential.value);
        return verified.ok ? { kind: 'user', user: verified.principal } : null;
      }
    }
  }

  /** Called by /token after issuing a session, so its first use needs no database read. */
  rememberSession(token: string, userId: number, expiresAt: number): void {
    this.sessionCache.set(sha256Hex(token), { userId, expiresAt });
  }
}
