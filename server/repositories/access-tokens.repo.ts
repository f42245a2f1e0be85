import { nameKey, num, type Queryable } from './db-types';

export interface AccessTokenRecord {
  id: number;
  name: string;
  roleId: number;
  role: string;
  expiryDate: string;
  description: string;
  tokenHash: string;
  createdAt: number;
}

interface AccessTokenRow {
  id: number;
  name: string;
  role_id: number;
  role_name: string;
  expiry_date: string;
  description: string;
  token_hash: string;
  created_at: unknown;
}

const select = (db: Queryable) =>
  db('access_tokens')
    .join('roles', 'roles.id', 'access_tokens.role_id')
    .select(
      'access_tokens.id',
      'access_tokens.name',
      'access_tokens.role_id',
      'roles.name as role_name',
      'access_tokens.expiry_date',
      'access_tokens.description',
      'access_tokens.token_hash',
      'access_tokens.created_at',
    );

const toRecord = (row: AccessTokenRow): AccessTokenRecord => ({
  id: num(row.id),
  name: row.name,
  roleId: num(row.role_id),
  role: row.role_name,
  expiryDate: row.expiry_date,
  description: row.description,
  tokenHash: row.token_hash,
  createdAt: num(row.created_at),
});

/** An access token's own columns: the record without its role's name. */
export type AccessTokenWrite = Omit<AccessTokenRecord, 'id' | 'role'>;

/** The `access_tokens` row of a token (the one mapping of its columns; a restore adds the id). */
export const accessTokenRow = (token: AccessTokenWrite) => ({
  name: token.name,
  name_key: nameKey(token.name),
  role_id: token.roleId,
  expiry_date: token.expiryDate,
  description: token.description,
  token_hash: token.tokenHash,
  created_at: token.createdAt,
});

export const accessTokensRepo = {
  async list(db: Queryable): Promise<AccessTokenRecord[]> {
    const rows = (await select(db).orderBy('access_tokens.id')) as AccessTokenRow[];
    return rows.map(toRecord);
  },

  async findById(db: Queryable, id: number): Promise<AccessTokenRecord | null> {
    const row = (await select(db).where('access_tokens.id', id).first()) as AccessTokenRow | undefined;
    return row ? toRecord(row) : null;
  },

  /** The hot-path lookup: by SHA-256 of the presented value, through a unique index. */
  async findByHash(db: Queryable, tokenHash: string): Promise<AccessTokenRecord | null> {
    const row = (await select(db).where('access_tokens.token_hash', tokenHash).first()) as AccessTokenRow | undefined;
    return row ? toRecord(row) : null;
  },

  async nameTaken(db: Queryable, name: string): Promise<boolean> {
    return (await db('access_tokens').where('name_key', nameKey(name)).first('id')) !== undefined;
  },

  async insert(db: Queryable, token: AccessTokenWrite): Promise<number> {
    const [row] = await db('access_tokens').insert(accessTokenRow(token)).returning<{ id: number }[]>('id');
    return num(row?.id);
  },

  async replaceHash(db: Queryable, id: number, tokenHash: string): Promise<void> {
    await db('access_tokens').where({ id }).update({ token_hash: tokenHash });
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('access_tokens').where({ id }).delete();
  },
};
