import type { Db } from '../db';
import type { CredentialVerifier } from './credentials';
import { bearerTokensRepo } from '../repositories/bearer-tokens.repo';
import { generateToken, sha256Hex } from '../secrets';
import type { ConfigChanges } from '../db/config-changes';
import type { SettingsService } from '../services/settings.service';

export interface IssuedBearer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  roles: string[];
}

/** Issues `gwbt_` bearer tokens to dashboard users (POST /token); only the hash is stored. */
export function createSessionsService(deps: {
  db: Db;
  settings: SettingsService;
  verifier: CredentialVerifier;
  changes: ConfigChanges;
  now: () => number;
}) {
  return {
    async issue(user: { id: number; roleNames: string[] }): Promise<IssuedBearer> {
      const ttl = deps.settings.current().bearerTokenTtlSeconds;
      const token = generateToken('gwbt_');
      const now = deps.now();
      const expiresAt = now + ttl * 1000;
      await bearerTokensRepo.insert(deps.db.knex, {
        userId: user.id,
        tokenHash: sha256Hex(token),
        createdAt: now,
        expiresAt,
      });
      deps.verifier.rememberSession(token, user.id, expiresAt);
      return { access_token: token, token_type: 'Bearer', expires_in: ttl, roles: user.roleNames };
    },

    /**
     * Sign-out (POST /token/revoke): the token ends here and, through the change feed, on every
     * instance. Unknown values change nothing, so they cannot be used to flush the caches.
     */
    async revoke(token: string): Promise<void> {
      const removed = await bearerTokensRepo.deleteByHash(deps.db.knex, sha256Hex(token));
      if (removed > 0) deps.changes.publish('sessions');
    },

    /** Housekeeping: expired sessions are useless rows. */
    pruneExpired: (): Promise<number> => bearerTokensRepo.deleteExpired(deps.db.knex, deps.now()),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
