import type { Db } from '../db';
import type { CredentialVerifier } from '../auth/credentials';
import { bearerTokensRepo } from '../repositories/bearer-tokens.repo';
import { generateToken, sha256Hex } from '../secrets';
import type { SettingsService } from './settings.service';

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

    /** Housekeeping: expired sessions are useless rows. */
    pruneExpired: (): Promise<number> => bearerTokensRepo.deleteExpired(deps.db.knex, deps.now()),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
