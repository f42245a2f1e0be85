import { bool, dialectOf, nameKey, num, type Queryable } from './db-types';

export interface UserRecord {
  id: number;
  username: string;
  displayName: string;
  passwordHash: string;
  active: boolean;
  createdAt: number;
  roles: string[];
}

interface UserRow {
  id: number;
  username: string;
  display_name: string;
  password_hash: string;
  active: unknown;
  created_at: unknown;
}

async function load(db: Queryable, where?: { id?: number; username_key?: string }): Promise<UserRecord[]> {
  const usersQuery = db('users').select('*').orderBy('username_key');
  const rolesQuery = db('user_roles')
    .join('roles', 'roles.id', 'user_roles.role_id')
    .join('users', 'users.id', 'user_roles.user_id')
    .select('user_roles.user_id', 'roles.name')
    .orderBy('roles.name_key');
  if (where?.id !== undefined) {
    void usersQuery.where('id', where.id);
    void rolesQuery.where('users.id', where.id);
  }
  if (where?.username_key !== undefined) {
    void usersQuery.where('username_key', where.username_key);
    void rolesQuery.where('users.username_key', where.username_key);
  }
  // Sequential: inside a transaction both queries share one connection.
  const rows = (await usersQuery) as UserRow[];
  const roleRows = (await rolesQuery) as { user_id: number; name: string }[];
  const roles = new Map<number, string[]>();
  for (const row of roleRows) roles.set(num(row.user_id), [...(roles.get(num(row.user_id)) ?? []), row.name]);
  return rows.map((row) => ({
    id: num(row.id),
    username: row.username,
    displayName: row.display_name,
    passwordHash: row.password_hash,
    active: bool(row.active),
    createdAt: num(row.created_at),
    roles: roles.get(num(row.id)) ?? [],
  }));
}

export interface UserWrite {
  username: string;
  displayName: string;
  active: boolean;
  roleIds: number[];
  /** Omitted on update: the stored hash is kept. */
  passwordHash?: string;
}

/** The `users` row of a user (the one mapping of its columns); without a hash it is left as stored. */
export const userRow = (user: Omit<UserWrite, 'roleIds'>) => ({
  username: user.username,
  username_key: nameKey(user.username),
  display_name: user.displayName,
  active: user.active,
  ...(user.passwordHash ? { password_hash: user.passwordHash } : {}),
});

/** The `user_roles` rows of role links. */
export const userRoleRows = (links: readonly { userId: number; roleId: number }[]) =>
  links.map((link) => ({ user_id: link.userId, role_id: link.roleId }));

export const usersRepo = {
  list: (db: Queryable): Promise<UserRecord[]> => load(db),

  async findById(db: Queryable, id: number): Promise<UserRecord | null> {
    return (await load(db, { id }))[0] ?? null;
  },

  async findByUsername(db: Queryable, username: string): Promise<UserRecord | null> {
    return (await load(db, { username_key: nameKey(username) }))[0] ?? null;
  },

  async count(db: Queryable): Promise<number> {
    const row = (await db('users').count({ n: '*' }).first()) as { n: unknown } | undefined;
    return num(row?.n ?? 0);
  },

  /** Whether any user (active or not) holds this role. */
  async anyWithRole(db: Queryable, roleId: number): Promise<boolean> {
    return (await db('user_roles').where('role_id', roleId).first('user_id')) !== undefined;
  },

  /**
   * Ids of the active users holding the role named `roleName`. On PostgreSQL the rows are locked
   * until the transaction ends, so two concurrent edits cannot each remove "the other" admin;
   * SQLite has one writer and needs no lock.
   */
  async activeIdsWithRole(db: Queryable, roleName: string): Promise<number[]> {
    const query = db('users')
      .join('user_roles', 'user_roles.user_id', 'users.id')
      .join('roles', 'roles.id', 'user_roles.role_id')
      .where('roles.name_key', nameKey(roleName))
      .andWhere('users.active', true)
      .select('users.id');
    if (dialectOf(db) === 'postgres') void query.forUpdate('users');
    return ((await query) as { id: unknown }[]).map((row) => num(row.id));
  },

  async usernameTaken(db: Queryable, username: string, exceptId?: number): Promise<boolean> {
    const query = db('users').where('username_key', nameKey(username));
    if (exceptId !== undefined) void query.whereNot('id', exceptId);
    return (await query.first('id')) !== undefined;
  },

  async insert(db: Queryable, user: UserWrite & { passwordHash: string; createdAt: number }): Promise<number> {
    const [row] = await db('users')
      .insert({ ...userRow(user), created_at: user.createdAt })
      .returning<{ id: number }[]>('id');
    const id = num(row?.id);
    await setRoles(db, id, user.roleIds);
    return id;
  },

  async update(db: Queryable, id: number, user: UserWrite): Promise<void> {
    await db('users').where({ id }).update(userRow(user));
    await setRoles(db, id, user.roleIds);
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('users').where({ id }).delete();
  },
};

async function setRoles(db: Queryable, userId: number, roleIds: number[]): Promise<void> {
  await db('user_roles').where({ user_id: userId }).delete();
  if (roleIds.length > 0) await db('user_roles').insert(userRoleRows(roleIds.map((roleId) => ({ userId, roleId }))));
}
