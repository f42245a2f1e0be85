import { num, type Queryable } from './db-types';

export interface BearerTokenRecord {
  userId: number;
  expiresAt: number;
}

export const bearerTokensRepo = {
  async insert(
    db: Queryable,
    token: { userId: number; tokenHash: string; createdAt: number; expiresAt: number },
  ): Promise<void> {
    await db('bearer_tokens').insert({
      user_id: token.userId,
      token_hash: token.tokenHash,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    });
  },

  async findByHash(db: Queryable, tokenHash: string): Promise<BearerTokenRecord | null> {
    const row: { user_id: unknown; expires_at: unknown } | undefined = await db('bearer_tokens')
      .where({ token_hash: tokenHash })
      .first('user_id', 'expires_at');
    return row ? { userId: num(row.user_id), expiresAt: num(row.expires_at) } : null;
  },

  async deleteByHash(db: Queryable, tokenHash: string): Promise<number> {
    return db('bearer_tokens').where({ token_hash: tokenHash }).delete();
  },

  /** A user disabled, deleted or given a new password loses every session at once. */
  async deleteForUser(db: Queryable, userId: number): Promise<void> {
    await db('bearer_tokens').where({ user_id: userId }).delete();
  },

  async deleteAll(db: Queryable): Promise<void> {
    await db('bearer_tokens').delete();
  },

  async deleteExpired(db: Queryable, now: number): Promise<number> {
    return db('bearer_tokens').where('expires_at', '<=', now).delete();
  },
};
