import { PAYLOAD_TYPE_BY_EVENT_TYPE, type Endpoint, type EndpointUpdateResult, type Route } from '../contract/dto';
import type { ReadOf } from '../contract/schema';
import { ENDPOINT_INPUT } from '../contract/schemas';
import type { FieldError } from '../contract/errors';
import type { CallContext } from '../contract/operations';
import { AppError, notFound, validationFailed } from '../errors';
import { isUniqueViolation, nameKey, type Queryable } from '../repositories/db-types';
import { endpointsRepo, type EndpointRecord, type RouteRecord, type RouteWrite } from '../repositories/endpoints.repo';
import { destinationsRepo } from '../repositories/destinations.repo';
import { rolesRepo } from '../repositories/roles.repo';
import { parseInput, readId } from '../validation';
import type { ServiceDeps } from './service-deps';

export { BASE_ROUTE_PATH, ROUTE_NAME } from '../contract/schemas';

export const routeToDto = ({ endpointId: _endpointId, ...route }: RouteRecord): Route => ({
  ...route,
  // Never stored: always derived, so a client can neither choose nor corrupt it.
  payloadType: PAYLOAD_TYPE_BY_EVENT_TYPE[route.eventType],
});

export const endpointToDto = (endpoint: EndpointRecord): Endpoint => ({
  id: endpoint.id,
  name: endpoint.name,
  baseRoutePath: endpoint.baseRoutePath,
  active: endpoint.active,
  routes: endpoint.routes.map(routeToDto),
});

type EndpointDraft = ReadOf<typeof ENDPOINT_INPUT>;

/** Shape and per-field rules (400, after the contract's schema); cross-record rules (409, role existence) come after. */
export function readEndpoint(input: unknown): EndpointDraft {
  return parseInput(ENDPOINT_INPUT, input);
}

export function createEndpointsService(deps: ServiceDeps) {
  const { db } = deps;

  async function getEndpoint(input: unknown): Promise<Endpoint> {
    const endpoint = await endpointsRepo.findById(db.knex, readId(input, 'Endpoint'));
    if (!endpoint) throw notFound('Endpoint');
    return endpointToDto(endpoint);
  }

  /** The rules that need the database: role existence, route ids, and every uniqueness rule. */
  async function checkAgainstStore(
    trx: Queryable,
    draft: EndpointDraft,
    existing: EndpointRecord | null,
  ): Promise<RouteWrite[]> {
    const roleNames = [...new Set(draft.routes.flatMap((route) => route.roles))];
    const roles = await rolesRepo.findByNames(trx, roleNames);
    const destinations = await destinationsRepo.existingIds(trx, [
      ...new Set(draft.routes.flatMap((route) => route.destinations)),
    ]);
    const errors: FieldError[] = [];
    draft.routes.forEach((route, index) => {
      route.destinations.forEach((destinationId, k) => {
        if (!destinations.has(destinationId))
          errors.push({
            path: `/routes/${index}/destinations/${k}`,
            message: `Destination ${destinationId} does not exist`,
          });
      });
    });
    draft.routes.forEach((route, index) => {
      route.roles.forEach((role, roleIndex) => {
        if (!roles.has(nameKey(role)))
          errors.push({ path: `/routes/${index}/roles/${roleIndex}`, message: `Role "${role}" does not exist` });
      });
    });
    // On create, ids are ignored; on update they say which stored route each entry is.
    if (existing) errors.push(...routeIdProblems(draft, existing));
    if (errors.length > 0) throw validationFailed(errors);

    if (await endpointsRepo.findConflict(trx, 'name', draft.name, existing?.id)) {
      throw new AppError('endpoint_name_taken', `An endpoint named "${draft.name}" already exists`, {
        errors: [{ path: '/name', message: 'This endpoint name is already used' }],
      });
    }
    if (await endpointsRepo.findConflict(trx, 'base_route_path', draft.baseRoutePath, existing?.id)) {
      throw new AppError('base_route_path_taken', `The base route path "${draft.baseRoutePath}" is already used`, {
        errors: [{ path: '/baseRoutePath', message: 'This base route path is already used by another endpoint' }],
      });
    }
    const writes: RouteWrite[] = draft.routes.map(({ roles: names, destinations: destinationIds, ...route }) => ({
      ...route,
      destinationIds,
      id: existing ? route.id : undefined,
      // One row per role: ["admin", "ADMIN"] names one role, and route_roles is unique per pair.
      roleIds: [...new Set(names.map((name) => roles.get(nameKey(name))?.id ?? 0))],
    }));
    // A route name is unique across the whole client: against other endpoints' routes (this
    // endpoint's routes are being replaced; the ids kept are among them) and within the
    // submission itself.
    const taken = await endpointsRepo.takenRouteNames(
      trx,
      writes.map((route) => route.name),
      existing?.routes.map((route) => route.id) ?? [],
    );
    const seen = new Set<string>();
    const nameErrors: FieldError[] = [];
    writes.forEach((route, index) => {
      const key = nameKey(route.name);
      const holder = taken.get(key);
      if (holder !== undefined)
        nameErrors.push({
          path: `/routes/${index}/name`,
          message: `Route name "${route.name}" is already used by endpoint "${holder}"`,
        });
      else if (seen.has(key))
        nameErrors.push({
          path: `/routes/${index}/name`,
          message: `Route name "${route.name}" is used twice in this endpoint`,
        });
      seen.add(key);
    });
    if (nameErrors.length > 0) {
      throw new AppError('route_name_taken', nameErrors[0]?.message ?? 'Route name already used', {
        errors: nameErrors,
      });
    }
    // Two routes never share an MQTT topic filter (SPEC §15), across endpoints or in one submit.
    const topics = writes.flatMap((route) => (route.mqttTopic === null ? [] : [route.mqttTopic]));
    const takenTopics = await endpointsRepo.takenTopics(trx, topics, existing?.routes.map((route) => route.id) ?? []);
    const seenTopics = new Set<string>();
    const topicErrors: FieldError[] = [];
    writes.forEach((route, index) => {
      if (route.mqttTopic === null) return;
      if (takenTopics.has(route.mqttTopic) || seenTopics.has(route.mqttTopic))
        topicErrors.push({
          path: `/routes/${index}/mqttTopic`,
          message: `MQTT topic "${route.mqttTopic}" is already used`,
        });
      seenTopics.add(route.mqttTopic);
    });
    if (topicErrors.length > 0) {
      throw new AppError('mqtt_topic_taken', topicErrors[0]?.message ?? 'MQTT topic already used', {
        errors: topicErrors,
      });
    }
    return writes;
  }

  return {
    listEndpoints: async (): Promise<Endpoint[]> => (await endpointsRepo.list(db.knex)).map(endpointToDto),
    getEndpoint,

    async createEndpoint(input: unknown, context: CallContext): Promise<Endpoint> {
      const draft = readEndpoint(input);
      const id = await db.knex
        .transaction(async (trx) => {
          const routes = await checkAgainstStore(trx, draft, null);
          const newId = await endpointsRepo.insert(trx, draft);
          await endpointsRepo.replaceRoutes(trx, newId, routes);
          await deps.audit.record(
            trx,
            context,
            'create',
            'endpoints',
            newId,
            `Created endpoint ${draft.name} with ${routes.length} route(s)`,
          );
          return newId;
        })
        .catch(raceToConflict);
      deps.changes.publish('endpoints');
      return getEndpoint({ id });
    },

    async updateEndpoint(input: unknown, context: CallContext): Promise<EndpointUpdateResult> {
      const id = readId(input, 'Endpoint');
      const draft = readEndpoint(input);
      const revoked = await db.knex
        .transaction(async (trx) => {
          const existing = await endpointsRepo.findById(trx, id);
          if (!existing) throw notFound('Endpoint');
          const routes = await checkAgainstStore(trx, draft, existing);
          const lost = await endpointsRepo.unassignExternalUsers(trx, basicRoutesLost(existing, routes));
          await endpointsRepo.update(trx, id, draft);
          await endpointsRepo.replaceRoutes(trx, id, routes);
          await deps.audit.record(
            trx,
            context,
            'update',
            'endpoints',
            id,
            `Updated endpoint ${draft.name} (${routes.length} route(s))`,
          );
          return lost;
        })
        .catch(raceToConflict);
      deps.changes.publish('endpoints', 'externalUsers');
      return { ...(await getEndpoint({ id })), revokedExternalUsers: revoked };
    },

    async deleteEndpoint(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'Endpoint');
      await db.knex.transaction(async (trx) => {
        const existing = await endpointsRepo.findById(trx, id);
        if (!existing) throw notFound('Endpoint');
        await endpointsRepo.delete(trx, id);
        await deps.audit.record(trx, context, 'delete', 'endpoints', id, `Deleted endpoint ${existing.name}`);
      });
      deps.changes.publish('endpoints', 'externalUsers');
    },
  };
}

/**
 * On update, each route id must be one of this endpoint's routes and name one entry only: two
 * entries with one id would silently merge into one route. The second occurrence is the error.
 */
function routeIdProblems(draft: EndpointDraft, existing: EndpointRecord): FieldError[] {
  const ownRouteIds = new Set(existing.routes.map((route) => route.id));
  const seen = new Set<number>();
  const errors: FieldError[] = [];
  draft.routes.forEach((route, index) => {
    if (route.id === undefined) return;
    const path = `/routes/${index}/id`;
    if (!ownRouteIds.has(route.id))
      errors.push({ path, message: `Route ${route.id} does not belong to this endpoint` });
    else if (seen.has(route.id)) errors.push({ path, message: `Route ${route.id} appears more than once` });
    seen.add(route.id);
  });
  return errors;
}

/**
 * The stored `basic` routes that stop being one, for the external users assigned to them
 * (SPEC §3): those moved to another auth type, and those deleted, which includes a route sent
 * again without its id (it is replaced by a new route). A route that keeps its id and stays
 * `basic` keeps its users.
 */
function basicRoutesLost(existing: EndpointRecord, routes: RouteWrite[]): number[] {
  const staysBasic = new Set(routes.filter((route) => route.authType === 'basic').map((route) => route.id));
  return existing.routes
    .filter((route) => route.authType === 'basic' && !staysBasic.has(route.id))
    .map((route) => route.id);
}

/** Two submits racing past the checks meet the unique index; answer as the check would have. */
function raceToConflict(error: unknown): never {
  if (!isUniqueViolation(error)) throw error;
  const message = String((error as Error).message);
  if (message.includes('base_route_path'))
    throw new AppError('base_route_path_taken', 'The base route path is already used');
  if (message.includes('endpoints')) throw new AppError('endpoint_name_taken', 'The endpoint name is already used');
  if (message.includes('mqtt_topic')) throw new AppError('mqtt_topic_taken', 'An MQTT topic is already used');
  throw new AppError('route_name_taken', 'A route name is already used');
}
