/**
 * The endpoint editor's draft: the API's shapes plus a stable client key per route row, so ids
 * of inputs (and the errors tied to them) stay put while rows are added and removed.
 */
import {
  AUTH_TYPES,
  EVENT_TYPES,
  PAYLOAD_TYPE_BY_EVENT_TYPE,
  REQUEST_TYPES,
  type Endpoint,
  type EndpointInput,
  type EventType,
  type PayloadType,
} from '../../../server/contract/dto';
import { routePathOf } from '../../../server/contract/paths';
import type { ReadOf } from '../../../server/contract/schema';
import type { ENDPOINT_INPUT, ROUTE_INPUT } from '../../../server/contract/schemas';

// Plain data from the contract (no Node APIs): one list of enum values for server and screens.
export { AUTH_TYPES, EVENT_TYPES, REQUEST_TYPES };

/**
 * A route row of the editor: the contract's route input as the service reads it, plus the row's
 * client key; the MQTT topic is '' where the API says `null`.
 */
export type RouteDraft = Omit<ReadOf<typeof ROUTE_INPUT>, 'mqttTopic'> & { key: string; mqttTopic: string };

export type EndpointDraft = Omit<ReadOf<typeof ENDPOINT_INPUT>, 'routes'> & { id?: number; routes: RouteDraft[] };

let nextKey = 0;
const newKey = (): string => `new${++nextKey}`;

export const payloadTypeOf = (eventType: EventType): PayloadType => PAYLOAD_TYPE_BY_EVENT_TYPE[eventType];
export const isEpcis = (eventType: EventType): boolean => eventType === 'EpcisMessage' || eventType === 'EpcisObject';

export function emptyRoute(): RouteDraft {
  return {
    key: newKey(),
    name: '',
    eventType: 'AllData',
    requestType: 'HttpPost',
    authType: 'noauth',
    active: true,
    async: false,
    roles: [],
    epcisLenient: false,
    mqttTopic: '',
    destinations: [],
  };
}

export function emptyEndpoint(): EndpointDraft {
  return { name: '', baseRoutePath: '', active: true, routes: [emptyRoute()] };
}

export function toDraft(endpoint: Endpoint): EndpointDraft {
  return {
    id: endpoint.id,
    name: endpoint.name,
    baseRoutePath: endpoint.baseRoutePath,
    active: endpoint.active,
    routes: endpoint.routes.map(({ payloadType: _payloadType, ...route }) => ({
      ...route,
      key: `r${route.id}`,
      roles: [...route.roles],
      mqttTopic: route.mqttTopic ?? '',
      destinations: [...route.destinations],
    })),
  };
}

/**
 * What Submit sends. Fields hidden by the form are sent in the state the form implies (roles only
 * for OAuth2, async only for HttpPost, lenient only for EPCIS), so a hidden leftover never
 * surprises the user with an error about a field they cannot see (destinations and the MQTT topic
 * only for HttpPost; an empty topic is none).
 */
export function toInput(draft: EndpointDraft): EndpointInput {
  return {
    name: draft.name.trim(),
    baseRoutePath: draft.baseRoutePath.trim(),
    active: draft.active,
    routes: draft.routes.map((route) => ({
      ...(route.id === undefined ? {} : { id: route.id }),
      name: route.name.trim(),
      eventType: route.eventType,
      requestType: route.requestType,
      authType: route.authType,
      active: route.active,
      async: route.requestType === 'HttpPost' && route.async,
      roles: route.authType === 'OAuth2' ? route.roles : [],
      epcisLenient: isEpcis(route.eventType) && route.epcisLenient,
      mqttTopic: mqttTopicOf(route),
      destinations: route.requestType === 'HttpPost' ? route.destinations : [],
    })),
  };
}

/**
 * The topic filter a route's draft stands for: none on HttpGet routes or when left empty. Spaces
 * around it are trimmed like the names': pasted from a reader's screen they are a slip, not a level.
 */
export function mqttTopicOf(route: RouteDraft): string | null {
  const topic = route.mqttTopic.trim();
  return route.requestType === 'HttpPost' && topic !== '' ? topic : null;
}

/** The data-plane path of a route, as readers and phones must be configured. */
export function routePath(baseRoutePath: string, routeName: string): string {
  return routePathOf(baseRoutePath || '<Base Route Path>', routeName || '<Route Name>');
}
