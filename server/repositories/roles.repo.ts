import type { RoleReference } from '../contract/errors';
import { bool, nameKey, num, type Queryable } from './db-types';

export interface RoleRecord {
  id: number;
  name: string;
  description: string;
  builtIn: boolean;
}

interface RoleRow {
  id: number;
  name: string;
  description: string;
  built_in: unknown;
}

/** The `roles` row of a role's editable columns (the one mapping; insert and restore add more). */
export const roleRow = (role: { name: string; description: string }) => ({
  name: role.name,
  name_key: nameKey(role.name),
  description: role.description,
});

const toRecord = (row: RoleRow): RoleRecord => ({
  id: num(row.id),
  name: row.name,
  description: row.description,
  builtIn: bool(row.built_in),
});

export const rolesRepo = {
  async list(db: Queryable): Promise<RoleRecord[]> {
    const rows = (await db('roles').select('id', 'name', 'description', 'built_in').orderBy('name_key')) as RoleRow[];
    return rows.map(toRecord);
  },

  async findById(db: Queryable, id: number): Promise<RoleRecord | null> {
    const row: RoleRow | undefined = await db('roles').where({ id }).first('id', 'name', 'description', 'built_in');
    return row ? toRecord(row) : null;
  },

  async findByName(db: Queryable, name: string): Promise<RoleRecord | null> {
    const row: RoleRow | undefined = await db('roles')
      .where({ name_key: nameKey(name) })
      .first('id', 'name', 'description', 'built_in');
    return row ? toRecord(row) : null;
  },

  /** Resolves role names (any case) to records; names that do not exist are absent from the map. */
  async findByNames(db: Queryable, names: string[]): Promise<Map<string, RoleRecord>> {
    if (names.length === 0) return new Map();
    const rows: RoleRow[] = await db('roles')
      .whereIn('name_key', names.map(nameKey))
      .select('id', 'name', 'description', 'built_in');
    return new Map(rows.map((row) => [nameKey(row.name), toRecord(row)]));
  },

  async insert(db: Queryable, role: { name: string; description: string; builtIn: boolean }): Promise<number> {
    const [row] = await db('roles')
      .insert({ ...roleRow(role), built_in: role.builtIn })
      .returning<{ id: number }[]>('id');
    return num(row?.id);
  },

  async update(db: Queryable, id: number, role: { name: string; description: string }): Promise<void> {
    await db('roles').where({ id }).update(roleRow(role));
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('roles').where({ id }).delete();
  },

  /** Everything that names the role: it may not be deleted while this list is non-empty. */
  async references(db: Queryable, roleId: number): Promise<RoleReference[]> {
    const routes: { id: number; name: string }[] = await db('route_roles')
      .join('routes', 'routes.id', 'route_roles.route_id')
      .where('route_roles.role_id', roleId)
      .select('routes.id', 'routes.name');
    const users: { id: number; name: string }[] = await db('user_roles')
      .join('users', 'users.id', 'user_roles.user_id')
      .where('user_roles.role_id', roleId)
      .select('users.id', 'users.username as name');
    const tokens: { id: number; name: string }[] = await db('access_tokens')
      .where('role_id', roleId)
      .select('id', 'name');
    return [
      ...routes.map((r) => ({ kind: 'route' as const, id: num(r.id), name: r.name })),
      ...users.map((u) => ({ kind: 'user' as const, id: num(u.id), name: u.name })),
      ...tokens.map((t) => ({ kind: 'accessToken' as const, id: num(t.id), name: t.name })),
    ];
  },
};
