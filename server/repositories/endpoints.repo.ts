import type { Endpoint, Route } from '../contract/dto';
import type { ReadOf } from '../contract/schema';
import type { ENDPOINT_INPUT, ROUTE_INPUT } from '../contract/schemas';
import { bool, nameKey, num, type Queryable } from './db-types';
import { destinationsRepo } from './destinations.repo';

/** A route as stored: the contract's route without its derived payload type, with its endpoint. */
export type RouteRecord = Omit<Route, 'payloadType'> & { endpointId: number };

export type EndpointRecord = Omit<Endpoint, 'routes'> & { routes: RouteRecord[] };

/** An endpoint's own columns. */
export type EndpointWrite = Omit<ReadOf<typeof ENDPOINT_INPUT>, 'routes'>;

/** A route's own columns: the contract's route input as read, without its links. */
export type RouteColumns = Omit<ReadOf<typeof ROUTE_INPUT>, 'id' | 'roles' | 'destinations'>;

/** A route to store, its role and destination names already resolved to ids. */
export type RouteWrite = RouteColumns & { id?: number; roleIds: number[]; destinationIds: number[] };

/** The `endpoints` row of an endpoint (the one mapping of its columns; a restore adds the id). */
export const endpointRow = (endpoint: EndpointWrite) => ({
  name: endpoint.name,
  name_key: nameKey(endpoint.name),
  base_route_path: endpoint.baseRoutePath,
  base_route_path_key: nameKey(endpoint.baseRoutePath),
  active: endpoint.active,
});

/** The `routes` row of a route at `position` in its endpoint (a restore adds the id). */
export const routeRow = (route: RouteColumns, endpointId: number, position: number) => ({
  endpoint_id: endpointId,
  position,
  name: route.name,
  name_key: nameKey(route.name),
  event_type: route.eventType,
  request_type: route.requestType,
  auth_type: route.authType,
  active: route.active,
  async: route.async,
  epcis_lenient: route.epcisLenient,
  mqtt_topic: route.mqttTopic,
});

/** The `route_roles` rows of role links. */
export const routeRoleRows = (links: readonly { routeId: number; roleId: number }[]) =>
  links.map((link) => ({ route_id: link.routeId, role_id: link.roleId }));

interface EndpointRow {
  id: number;
  name: string;
  base_route_path: string;
  active: unknown;
}

/** A `routes` row as read back: what `routeRow` writes, booleans and integers as the dialect hands them. */
type RouteRow = { id: unknown } & {
  [K in keyof ReturnType<typeof routeRow>]: K extends 'active' | 'async' | 'epcis_lenient' | 'endpoint_id'
    ? unknown
    : ReturnType<typeof routeRow>[K];
};

/** A stored route, its role names and destination ids given. */
const routeFromRow = (row: RouteRow, roles: string[], destinations: number[]): RouteRecord => ({
  id: num(row.id),
  endpointId: num(row.endpoint_id),
  name: row.name,
  eventType: row.event_type,
  requestType: row.request_type,
  authType: row.auth_type,
  active: bool(row.active),
  async: bool(row.async),
  epcisLenient: bool(row.epcis_lenient),
  mqttTopic: row.mqtt_topic ?? null,
  roles,
  destinations,
});

/** Loads endpoints with their routes and role names in three queries, whatever their number. */
async function load(db: Queryable, endpointId?: number): Promise<EndpointRecord[]> {
  const endpointsQuery = db('endpoints').select('id', 'name', 'base_route_path', 'active').orderBy('name_key');
  const routesQuery = db('routes').select('*').orderBy(['endpoint_id', 'position', 'id']);
  const rolesQuery = db('route_roles')
    .join('roles', 'roles.id', 'route_roles.role_id')
    .join('routes', 'routes.id', 'route_roles.route_id')
    .select('route_roles.route_id', 'roles.name')
    .orderBy('roles.name_key');
  const destinationsQuery = db('route_destinations')
    .join('routes', 'routes.id', 'route_destinations.route_id')
    .select('route_destinations.route_id', 'route_destinations.destination_id')
    .orderBy(['route_destinations.route_id', 'route_destinations.destination_id']);
  if (endpointId !== undefined) {
    void endpointsQuery.where('id', endpointId);
    void routesQuery.where('endpoint_id', endpointId);
    void rolesQuery.where('routes.endpoint_id', endpointId);
    void destinationsQuery.where('routes.endpoint_id', endpointId);
  }
  // One after the other: inside a transaction the three share one connection.
  const endpointRows = (await endpointsQuery) as EndpointRow[];
  const routeRows = (await routesQuery) as RouteRow[];
  const roleRows = (await rolesQuery) as { route_id: number; name: string }[];
  const destinationRows = (await destinationsQuery) as { route_id: unknown; destination_id: unknown }[];
  const destinationsByRoute = new Map<number, number[]>();
  for (const row of destinationRows) {
    const list = destinationsByRoute.get(num(row.route_id)) ?? [];
    list.push(num(row.destination_id));
    destinationsByRoute.set(num(row.route_id), list);
  }
  const rolesByRoute = new Map<number, string[]>();
  for (const row of roleRows) {
    const list = rolesByRoute.get(num(row.route_id)) ?? [];
    list.push(row.name);
    rolesByRoute.set(num(row.route_id), list);
  }
  const routesByEndpoint = new Map<number, RouteRecord[]>();
  for (const row of routeRows) {
    const route = routeFromRow(row, rolesByRoute.get(num(row.id)) ?? [], destinationsByRoute.get(num(row.id)) ?? []);
    const list = routesByEndpoint.get(route.endpointId) ?? [];
    list.push(route);
    routesByEndpoint.set(route.endpointId, list);
  }
  return endpointRows.map((row) => ({
    id: num(row.id),
    name: row.name,
    baseRoutePath: row.base_route_path,
    active: bool(row.active),
    routes: routesByEndpoint.get(num(row.id)) ?? [],
  }));
}

export const endpointsRepo = {
  list: (db: Queryable): Promise<EndpointRecord[]> => load(db),

  async findById(db: Queryable, id: number): Promise<EndpointRecord | null> {
    const [endpoint] = await load(db, id);
    return endpoint ?? null;
  },

  /** The endpoint (other than `exceptId`) already using this name or base path, if any. */
  async findConflict(
    db: Queryable,
    field: 'name' | 'base_route_path',
    value: string,
    exceptId?: number,
  ): Promise<{ id: number } | null> {
    const query = db('endpoints').where(`${field}_key`, nameKey(value));
    if (exceptId !== undefined) void query.whereNot('id', exceptId);
    const row: { id: number } | undefined = await query.first('id');
    return row ?? null;
  },

  /** MQTT topic filters (as stored) that are taken by routes other than `exceptRouteIds`. */
  async takenTopics(db: Queryable, topics: string[], exceptRouteIds: number[]): Promise<Set<string>> {
    if (topics.length === 0) return new Set();
    const query = db('routes').whereIn('mqtt_topic', topics);
    if (exceptRouteIds.length > 0) void query.whereNotIn('id', exceptRouteIds);
    const rows: { mqtt_topic: string }[] = await query.select('mqtt_topic');
    return new Set(rows.map((row) => row.mqtt_topic));
  },

  /**
   * Route names (by name key) taken by routes other than `exceptRouteIds`, each with the name of
   * the endpoint that holds it (a clash says where the name is in use).
   */
  async takenRouteNames(db: Queryable, names: string[], exceptRouteIds: number[]): Promise<Map<string, string>> {
    if (names.length === 0) return new Map();
    const query = db('routes')
      .join('endpoints', 'endpoints.id', 'routes.endpoint_id')
      .whereIn('routes.name_key', names.map(nameKey));
    if (exceptRouteIds.length > 0) void query.whereNotIn('routes.id', exceptRouteIds);
    const rows: { name_key: string; endpoint: string }[] = await query.select(
      'routes.name_key',
      'endpoints.name as endpoint',
    );
    return new Map(rows.map((row) => [row.name_key, row.endpoint]));
  },

  async insert(db: Queryable, endpoint: EndpointWrite): Promise<number> {
    const [row] = await db('endpoints').insert(endpointRow(endpoint)).returning<{ id: number }[]>('id');
    return num(row?.id);
  },

  async update(db: Queryable, id: number, endpoint: EndpointWrite): Promise<void> {
    await db('endpoints').where({ id }).update(endpointRow(endpoint));
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('endpoints').where({ id }).delete();
  },

  /**
   * Makes the endpoint's routes exactly `routes`: those with an id are updated in place (keeping
   * their external-user assignments), new ones inserted, missing ones deleted. Deletions run
   * first so a name can move from a removed route to a new one in the same submit.
   */
  async replaceRoutes(db: Queryable, endpointId: number, routes: RouteWrite[]): Promise<void> {
    const keepIds = routes.flatMap((route) => (route.id === undefined ? [] : [route.id]));
    const removed = db('routes').where('endpoint_id', endpointId);
    if (keepIds.length > 0) void removed.whereNotIn('id', keepIds);
    await removed.delete();
    // Renames inside one submit (a↔b) would trip the unique indexes midway; park names and
    // topics first.
    for (const id of keepIds)
      await db('routes')
        .where({ id })
        .update({ name_key: `#${id}`, mqtt_topic: null });
    for (const [position, route] of routes.entries()) {
      const row = routeRow(route, endpointId, position);
      let routeId: number;
      if (route.id === undefined) {
        const [inserted] = await db('routes').insert(row).returning<{ id: number }[]>('id');
        routeId = num(inserted?.id);
      } else {
        routeId = route.id;
        await db('routes').where({ id: routeId }).update(row);
        await db('route_roles').where({ route_id: routeId }).delete();
        await db('route_destinations').where({ route_id: routeId }).delete();
      }
      if (route.roleIds.length > 0)
        await db('route_roles').insert(routeRoleRows(route.roleIds.map((roleId) => ({ routeId, roleId }))));
      await destinationsRepo.linkRoutes(
        db,
        route.destinationIds.map((destinationId) => ({ routeId, destinationId })),
      );
    }
  },

  /**
   * Removes these routes from every external user, answering the usernames that lost one: each
   * once, sorted case-insensitively in code (SQL collations order differently per dialect).
   */
  async unassignExternalUsers(db: Queryable, routeIds: number[]): Promise<string[]> {
    if (routeIds.length === 0) return [];
    const rows: { username: string; username_key: string }[] = await db('external_user_routes')
      .join('external_users', 'external_users.id', 'external_user_routes.external_user_id')
      .whereIn('external_user_routes.route_id', routeIds)
      .distinct('external_users.username', 'external_users.username_key');
    await db('external_user_routes').whereIn('route_id', routeIds).delete();
    rows.sort((a, b) => (a.username_key < b.username_key ? -1 : a.username_key > b.username_key ? 1 : 0));
    return rows.map((row) => row.username);
  },
};
