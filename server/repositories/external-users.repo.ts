import { bool, nameKey, num, type Queryable } from './db-types';

export interface ExternalUserRecord {
  id: number;
  firstName: string;
  lastName: string;
  username: string;
  passwordHash: string;
  active: boolean;
  /** Names of the assigned routes. */
  routes: string[];
  routeIds: number[];
}

interface ExternalUserRow {
  id: number;
  first_name: string;
  last_name: string;
  username: string;
  password_hash: string;
  active: unknown;
}

async function load(db: Queryable, id?: number): Promise<ExternalUserRecord[]> {
  const usersQuery = db('external_users').select('*').orderBy('username_key');
  const routesQuery = db('external_user_routes')
    .join('routes', 'routes.id', 'external_user_routes.route_id')
    .select('external_user_routes.external_user_id', 'routes.id', 'routes.name')
    .orderBy('routes.name_key');
  if (id !== undefined) {
    void usersQuery.where('id', id);
    void routesQuery.where('external_user_routes.external_user_id', id);
  }
  // Sequential: inside a transaction both queries share one connection.
  const rows = (await usersQuery) as ExternalUserRow[];
  const routeRows = (await routesQuery) as { external_user_id: number; id: number; name: string }[];
  const routes = new Map<number, { id: number; name: string }[]>();
  for (const row of routeRows) {
    const key = num(row.external_user_id);
    routes.set(key, [...(routes.get(key) ?? []), { id: num(row.id), name: row.name }]);
  }
  return rows.map((row) => {
    const assigned = routes.get(num(row.id)) ?? [];
    return {
      id: num(row.id),
      firstName: row.first_name,
      lastName: row.last_name,
      username: row.username,
      passwordHash: row.password_hash,
      active: bool(row.active),
      routes: assigned.map((route) => route.name),
      routeIds: assigned.map((route) => route.id),
    };
  });
}

export interface ExternalUserWrite {
  firstName: string;
  lastName: string;
  username: string;
  active: boolean;
  routeIds: number[];
  passwordHash?: string;
}

/** The `external_users` row of a user (the one mapping of its columns); without a hash it is left as stored. */
export const externalUserRow = (user: Omit<ExternalUserWrite, 'routeIds'>) => ({
  first_name: user.firstName,
  last_name: user.lastName,
  username: user.username,
  username_key: nameKey(user.username),
  active: user.active,
  ...(user.passwordHash ? { password_hash: user.passwordHash } : {}),
});

/** The `external_user_routes` rows of route assignments. */
export const externalUserRouteRows = (links: readonly { externalUserId: number; routeId: number }[]) =>
  links.map((link) => ({ external_user_id: link.externalUserId, route_id: link.routeId }));

export const externalUsersRepo = {
  list: (db: Queryable): Promise<ExternalUserRecord[]> => load(db),

  async findById(db: Queryable, id: number): Promise<ExternalUserRecord | null> {
    return (await load(db, id))[0] ?? null;
  },

  async usernameTaken(db: Queryable, username: string, exceptId?: number): Promise<boolean> {
    const query = db('external_users').where('username_key', nameKey(username));
    if (exceptId !== undefined) void query.whereNot('id', exceptId);
    return (await query.first('id')) !== undefined;
  },

  async insert(db: Queryable, user: ExternalUserWrite & { passwordHash: string; createdAt: number }): Promise<number> {
    const [row] = await db('external_users')
      .insert({ ...externalUserRow(user), created_at: user.createdAt })
      .returning<{ id: number }[]>('id');
    const id = num(row?.id);
    await setRoutes(db, id, user.routeIds);
    return id;
  },

  async update(db: Queryable, id: number, user: ExternalUserWrite): Promise<void> {
    await db('external_users').where({ id }).update(externalUserRow(user));
    await setRoutes(db, id, user.routeIds);
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('external_users').where({ id }).delete();
  },
};

async function setRoutes(db: Queryable, userId: number, routeIds: number[]): Promise<void> {
  await db('external_user_routes').where({ external_user_id: userId }).delete();
  if (routeIds.length > 0) {
    await db('external_user_routes').insert(
      externalUserRouteRows(routeIds.map((routeId) => ({ externalUserId: userId, routeId }))),
    );
  }
}
