import type { AuthType, EventType, RequestType } from '../contract/dto';
import type { DatabaseKind } from '../db';
import { nameKey, num, type Queryable } from './db-types';

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

export interface ConfigurationRows {
  roles: { id: number; name: string; description: string; builtIn: boolean }[];
  endpoints: { id: number; name: string; baseRoutePath: string; active: boolean }[];
  routes: {
    id: number;
    endpointId: number;
    position: number;
    name: string;
    eventType: EventType;
    requestType: RequestType;
    authType: AuthType;
    active: boolean;
    async: boolean;
    epcisLenient: boolean;
    mqttTopic: string | null;
  }[];
  routeRoles: { routeId: number; roleId: number }[];
  users: {
    id: number;
    username: string;
    displayName: string;
    passwordHash: string;
    active: boolean;
    createdAt: number;
  }[];
  userRoles: { userId: number; roleId: number }[];
  externalUsers: {
    id: number;
    firstName: string;
    lastName: string;
    username: string;
    passwordHash: string;
    active: boolean;
    createdAt: number;
  }[];
  externalUserRoutes: { externalUserId: number; routeId: number }[];
  accessTokens: {
    id: number;
    name: string;
    roleId: number;
    expiryDate: string;
    description: string;
    tokenHash: string;
    createdAt: number;
  }[];
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
      rows.roles.map((role) => ({
        id: role.id,
        name: role.name,
        name_key: nameKey(role.name),
        description: role.description,
        built_in: role.builtIn,
      })),
    );
    await insertChunked(
      db,
      'endpoints',
      rows.endpoints.map((endpoint) => ({
        id: endpoint.id,
        name: endpoint.name,
        name_key: nameKey(endpoint.name),
        base_route_path: endpoint.baseRoutePath,
        base_route_path_key: nameKey(endpoint.baseRoutePath),
        active: endpoint.active,
      })),
    );
    await insertChunked(
      db,
      'routes',
      rows.routes.map((route) => ({
        id: route.id,
        endpoint_id: route.endpointId,
        position: route.position,
        name: route.name,
        name_key: nameKey(route.name),
        event_type: route.eventType,
        request_type: route.requestType,
        auth_type: route.authType,
        active: route.active,
        async: route.async,
        epcis_lenient: route.epcisLenient,
        mqtt_topic: route.mqttTopic,
      })),
    );
    await insertChunked(
      db,
      'route_roles',
      rows.routeRoles.map((link) => ({ route_id: link.routeId, role_id: link.roleId })),
    );
    await insertChunked(
      db,
      'users',
      rows.users.map((user) => ({
        id: user.id,
        username: user.username,
        username_key: nameKey(user.username),
        display_name: user.displayName,
        password_hash: user.passwordHash,
        active: user.active,
        created_at: user.createdAt,
      })),
    );
    await insertChunked(
      db,
      'user_roles',
      rows.userRoles.map((link) => ({ user_id: link.userId, role_id: link.roleId })),
    );
    await insertChunked(
      db,
      'external_users',
      rows.externalUsers.map((user) => ({
        id: user.id,
        first_name: user.firstName,
        last_name: user.lastName,
        username: user.username,
        username_key: nameKey(user.username),
        password_hash: user.passwordHash,
        active: user.active,
        created_at: user.createdAt,
      })),
    );
    await insertChunked(
      db,
      'external_user_routes',
      rows.externalUserRoutes.map((link) => ({ external_user_id: link.externalUserId, route_id: link.routeId })),
    );
    await insertChunked(
      db,
      'access_tokens',
      rows.accessTokens.map((token) => ({
        id: token.id,
        name: token.name,
        name_key: nameKey(token.name),
        role_id: token.roleId,
        expiry_date: token.expiryDate,
        description: token.description,
        token_hash: token.tokenHash,
        created_at: token.createdAt,
      })),
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
