import type { DatabaseKind } from '../db';
import { accessTokenRow, type AccessTokenWrite } from './access-tokens.repo';
import { num, type Queryable } from './db-types';
import { endpointRow, routeRoleRows, routeRow, type EndpointWrite, type RouteColumns } from './endpoints.repo';
import { externalUserRouteRows, externalUserRow, type ExternalUserRecord } from './external-users.repo';
import { roleRow, type RoleRecord } from './roles.repo';
import { userRoleRows, userRow, type UserRecord } from './users.repo';

/**
 * The queries only a whole-configuration restore needs: wipe every configuration table and
 * re-insert rows with the ids the backup carries. Everything here runs inside the caller's
 * transaction, so a restore is all or nothing.
 */

/** Child tables first, so no foreign key (RESTRICT on roles) is ever violated midway. */
const WIPE_ORDER = [
  'external_user_routes',
  'route_destinations',
  'route_roles',
  'user_roles',
  'bearer_tokens',
  'access_tokens',
  'external_users',
  'users',
  'routes',
  'endpoints',
  'roles',
  'settings',
] as const;

/** Tables whose `id` is an `increments` column fed by a sequence on PostgreSQL. */
const SERIAL_TABLES = ['roles', 'endpoints', 'routes', 'users', 'external_users', 'access_tokens'] as const;

/** Well under SQLite's bound-variable limit for the widest row (10 columns). */
const CHUNK = 100;

/**
 * Every configuration table's rows as a restore writes them, ids included. Each shape is its
 * repository's (and through it the contract's); each row is laid out by its repository's mapper.
 */
export interface ConfigurationRows {
  roles: RoleRecord[];
  endpoints: (EndpointWrite & { id: number })[];
  routes: (RouteColumns & { id: number; endpointId: number; position: number })[];
  routeRoles: Parameters<typeof routeRoleRows>[0];
  users: (Omit<UserRecord, 'roles'> & { passwordHash: string })[];
  userRoles: Parameters<typeof userRoleRows>[0];
  externalUsers: (Omit<ExternalUserRecord, 'routes' | 'routeIds'> & { createdAt: number })[];
  externalUserRoutes: Parameters<typeof externalUserRouteRows>[0];
  accessTokens: (AccessTokenWrite & { id: number })[];
}

async function insertChunked(db: Queryable, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await db(table).insert(rows.slice(start, start + CHUNK));
  }
}

export const backupRepo = {
  /** External users' creation times (the external-users repository does not expose them). */
  async externalUserCreatedAt(db: Queryable): Promise<Map<number, number>> {
    const rows: { id: unknown; created_at: unknown }[] = await db('external_users').select('id', 'created_at');
    return new Map(rows.map((row) => [num(row.id), num(row.created_at)]));
  },

  /**
   * PostgreSQL: keeps every other writer (an admin saving an endpoint on another instance, a
   * login inserting a bearer token) out of the configuration tables until the restore commits,
   * so the wipe and the explicit-id inserts cannot interleave with them. Plain reads go on.
   * SQLite needs nothing: its single connection already runs one transaction at a time.
   */
  async lockConfiguration(db: Queryable, kind: DatabaseKind): Promise<void> {
    if (kind !== 'postgres') return;
    await db.raw(`lock table ${WIPE_ORDER.join(', ')} in exclusive mode`);
  },

  async wipeConfiguration(db: Queryable): Promise<void> {
    for (const table of WIPE_ORDER) await db(table).delete();
  },

  async insertConfiguration(db: Queryable, rows: ConfigurationRows): Promise<void> {
    await insertChunked(
      db,
      'roles',
      rows.roles.map((role) => ({ id: role.id, ...roleRow(role), built_in: role.builtIn })),
    );
    await insertChunked(
      db,
      'endpoints',
      rows.endpoints.map((endpoint) => ({ id: endpoint.id, ...endpointRow(endpoint) })),
    );
    await insertChunked(
      db,
      'routes',
      rows.routes.map((route) => ({ id: route.id, ...routeRow(route, route.endpointId, route.position) })),
    );
    await insertChunked(db, 'route_roles', routeRoleRows(rows.routeRoles));
    await insertChunked(
      db,
      'users',
      rows.users.map((user) => ({ id: user.id, ...userRow(user), created_at: user.createdAt })),
    );
    await insertChunked(db, 'user_roles', userRoleRows(rows.userRoles));
    await insertChunked(
      db,
      'external_users',
      rows.externalUsers.map((user) => ({ id: user.id, ...externalUserRow(user), created_at: user.createdAt })),
    );
    await insertChunked(db, 'external_user_routes', externalUserRouteRows(rows.externalUserRoutes));
    await insertChunked(
      db,
      'access_tokens',
      rows.accessTokens.map((token) => ({ id: token.id, ...accessTokenRow(token) })),
    );
  },

  /**
   * PostgreSQL sequences do not notice explicit ids, so the next insert would collide. Each one
   * is moved past the largest id, and never backwards: like SQLite's AUTOINCREMENT, an id that
   * was once used is not handed out again (old events still name it).
   */
  async bumpSequences(db: Queryable, kind: DatabaseKind): Promise<void> {
    if (kind !== 'postgres') return;
    for (const table of SERIAL_TABLES) {
      await db.raw(
        `select setval(pg_get_serial_sequence(?, 'id'), greatest(nextval(pg_get_serial_sequence(?, 'id')), (select coalesce(max(id), 0) + 1 from ??)), false)`,
        [table, table, table],
      );
    }
  },

  /**
   * Idempotency keys are stored per route id. A restored id may now name another route, and a
   * replayed answer must never cross routes, so keys of every route id that does not keep its
   * route are dropped (they only protect retries, which then run again).
   */
  async dropIdempotencyKeysExcept(db: Queryable, keptRouteIds: number[]): Promise<void> {
    const query = db('idempotency_keys');
    if (keptRouteIds.length > 0) void query.whereNotIn('route_id', keptRouteIds);
    await query.delete();
  },
};
