import { AUTH_TYPES, EVENT_TYPES, PAYLOAD_TYPE_BY_EVENT_TYPE, REQUEST_TYPES, type PayloadType } from '../enums';
import { extend, named, optional, s } from '../schema';

export const BASE_ROUTE_PATH = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const ROUTE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export const EVENT_TYPE = named('EventType', s.enum(EVENT_TYPES));
const PAYLOAD_TYPES = Object.values(PAYLOAD_TYPE_BY_EVENT_TYPE) as PayloadType[];

export const ROUTE = named(
  'Route',
  s.object({
    id: s.integer(),
    name: s.string(),
    eventType: EVENT_TYPE,
    requestType: s.enum(REQUEST_TYPES),
    authType: s.enum(AUTH_TYPES),
    payloadType: s.enum(PAYLOAD_TYPES, { description: 'Follows from the event type; never chosen.' }),
    active: s.boolean(),
    async: s.boolean(),
    roles: s.array(s.string()),
    epcisLenient: s.boolean(),
    mqttTopic: s.nullable(
      s.string({ description: 'The MQTT topic filter its messages arrive on (SPEC §15); null: none.' }),
    ),
    destinations: s.array(s.integer(), { description: 'Ids of the destinations its processed events go to.' }),
  }),
);

export const ENDPOINT = named(
  'Endpoint',
  s.object({
    id: s.integer(),
    name: s.string(),
    baseRoutePath: s.string(),
    active: s.boolean(),
    routes: s.array(ROUTE),
  }),
);

/** Members in the order the reader reports their problems (SPEC §10). */
export const ROUTE_INPUT = named(
  'RouteInput',
  s.object(
    {
      id: optional(
        s.integer({
          min: 1,
          message: 'Route id must be a positive integer',
          description: 'Keeps this stored route (and its assignments) on update; ignored on create.',
        }),
      ),
      name: s.string({
        pattern: ROUTE_NAME,
        label: 'Route Name',
        patternMessage: 'Route Name must start with a letter and use only letters, digits, "_" or "-" (at most 64)',
        description: 'Unique across all endpoints (case-insensitive).',
      }),
      eventType: s.enum(EVENT_TYPES, { label: 'Event Type' }),
      requestType: s.enum(REQUEST_TYPES, { label: 'Request Type' }),
      authType: s.enum(AUTH_TYPES, { label: 'Auth Type' }),
      active: optional(s.boolean(), true),
      async: optional(s.boolean({ description: 'HttpPost routes only.' }), false),
      epcisLenient: optional(s.boolean(), false),
      mqttTopic: optional(
        s.nullable(
          s.string({
            label: 'MQTT topic',
            description:
              'An MQTT topic filter (`/` between levels, `+` one level, `#` only last; 1–256 characters, not starting with `$`); HttpPost routes only.',
          }),
        ),
        null,
      ),
      roles: optional(
        s.array(s.string(), {
          label: 'Roles',
          description: 'Role names: required for OAuth2 routes, refused otherwise.',
        }),
        [],
      ),
      destinations: optional(
        s.array(s.integer({ min: 1, message: 'A destination id must be a positive whole number' }), {
          label: 'Destinations',
          description: 'Destination ids (SPEC §11); HttpPost routes only.',
        }),
        [],
      ),
    },
    {
      refine(route, fail) {
        if (route.async && route.requestType !== 'HttpPost')
          fail('async', 'Async is only available for HttpPost routes');
        if (route.authType === 'OAuth2' && route.roles.length === 0)
          fail('roles', 'OAuth2 routes need at least one role');
        if (route.authType !== 'OAuth2' && route.roles.length > 0)
          fail('roles', 'Roles can only be assigned to OAuth2 routes');
        if (route.mqttTopic !== null && route.mqttTopic !== undefined) {
          const problem = topicFilterProblem(route.mqttTopic);
          if (problem) fail('mqttTopic', problem);
          else if (route.requestType !== 'HttpPost')
            fail('mqttTopic', 'An MQTT topic is only available for HttpPost routes');
        }
        if (route.destinations.length > 0 && route.requestType !== 'HttpPost')
          fail('destinations', 'Destinations are only available for HttpPost routes');
        else if (new Set(route.destinations).size !== route.destinations.length)
          fail('destinations', 'A destination is listed more than once');
      },
    },
  ),
);

/**
 * What is wrong with an MQTT topic filter as a route may name it (SPEC §15), or null: 1–256
 * characters, not starting with `$` (the broker's own topics), `+` alone in its level, `#` alone
 * in the last level.
 */
export function topicFilterProblem(filter: string): string | null {
  if (filter.length < 1 || filter.length > 256) return 'An MQTT topic must be 1 to 256 characters';
  if (filter.startsWith('$')) return 'An MQTT topic must not start with "$"';
  if (filter.includes('\u0000')) return 'An MQTT topic must not contain a NUL character';
  const levels = filter.split('/');
  for (const [index, level] of levels.entries()) {
    if (level.includes('#') && (level !== '#' || index !== levels.length - 1))
      return 'In an MQTT topic, "#" must be a whole level and the last one';
    if (level.includes('+') && level !== '+') return 'In an MQTT topic, "+" must be a whole level';
  }
  return null;
}

export const ENDPOINT_INPUT = named(
  'EndpointInput',
  s.object({
    name: s.string({ max: 64, label: 'Endpoint Name' }),
    baseRoutePath: s.string({
      pattern: BASE_ROUTE_PATH,
      label: 'Base Route Path',
      patternMessage:
        'Base Route Path must start with a letter and use only letters, digits or underscore (at most 64)',
    }),
    active: optional(s.boolean(), true),
    routes: s.array(ROUTE_INPUT, { minItems: 1, minItemsMessage: 'An endpoint needs at least one route' }),
  }),
);

export const ENDPOINT_UPDATE_RESULT = extend(
  ENDPOINT,
  {
    revokedExternalUsers: s.array(s.string(), {
      description: 'External users that lost a route which stopped being `basic`.',
    }),
  },
  'EndpointUpdateResult',
);
