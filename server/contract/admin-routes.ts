import type { OPERATION_SCHEMAS } from './operation-schemas';

type Table = typeof OPERATION_SCHEMAS;
type OperationName = keyof Table;

/**
 * The admin API (SPEC §6) as plain data, read by the HTTP router (server/http/routes), the
 * OpenAPI document and the web admin's transport (renderer/src/lib/api.ts) alike: one table, no
 * copies. `satisfies` makes a contract operation without a route a compile error, a route
 * cannot name an operation that does not exist, and `input` must say where the operation's
 * schemas (operation-schemas.ts) put its `id` and input.
 */
export interface AdminHttpRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under /GWENDPOINTAPI/_admin/api; `:id` comes from the input's `id`. */
  path: string;
  /** Success status when it is not 200. */
  status?: 201 | 202 | 204;
  /** Where the operation's input travels: the JSON body, the path's `:id`, both, or the query (with the path's `:id`). */
  input?: 'body' | 'id' | 'idAndBody' | 'query' | 'idAndQuery';
}

export const ADMIN_HTTP_ROUTES = {
  listEndpoints: { method: 'GET', path: '/endpoints' },
  getEndpoint: { method: 'GET', path: '/endpoints/:id', input: 'id' },
  createEndpoint: { method: 'POST', path: '/endpoints', status: 201, input: 'body' },
  updateEndpoint: { method: 'PUT', path: '/endpoints/:id', input: 'idAndBody' },
  deleteEndpoint: { method: 'DELETE', path: '/endpoints/:id', status: 204, input: 'id' },

  listRoles: { method: 'GET', path: '/roles' },
  getRole: { method: 'GET', path: '/roles/:id', input: 'id' },
  createRole: { method: 'POST', path: '/roles', status: 201, input: 'body' },
  updateRole: { method: 'PUT', path: '/roles/:id', input: 'idAndBody' },
  deleteRole: { method: 'DELETE', path: '/roles/:id', status: 204, input: 'id' },

  listUsers: { method: 'GET', path: '/users' },
  getUser: { method: 'GET', path: '/users/:id', input: 'id' },
  createUser: { method: 'POST', path: '/users', status: 201, input: 'body' },
  updateUser: { method: 'PUT', path: '/users/:id', input: 'idAndBody' },
  deleteUser: { method: 'DELETE', path: '/users/:id', status: 204, input: 'id' },

  listExternalUsers: { method: 'GET', path: '/external-users' },
  getExternalUser: { method: 'GET', path: '/external-users/:id', input: 'id' },
  createExternalUser: { method: 'POST', path: '/external-users', status: 201, input: 'body' },
  updateExternalUser: { method: 'PUT', path: '/external-users/:id', input: 'idAndBody' },
  deleteExternalUser: { method: 'DELETE', path: '/external-users/:id', status: 204, input: 'id' },

  listAccessTokens: { method: 'GET', path: '/access-tokens' },
  getAccessToken: { method: 'GET', path: '/access-tokens/:id', input: 'id' },
  createAccessToken: { method: 'POST', path: '/access-tokens', status: 201, input: 'body' },
  regenerateAccessToken: { method: 'POST', path: '/access-tokens/:id/regenerate', input: 'id' },
  deleteAccessToken: { method: 'DELETE', path: '/access-tokens/:id', status: 204, input: 'id' },

  listEvents: { method: 'GET', path: '/events', input: 'query' },
  getEvent: { method: 'GET', path: '/events/:id', input: 'id' },
  getEventReads: { method: 'GET', path: '/events/:id/reads', input: 'id' },
  listInventory: { method: 'GET', path: '/inventory', input: 'query' },

  getSettings: { method: 'GET', path: '/settings' },
  updateSettings: { method: 'PUT', path: '/settings', input: 'body' },

  getTls: { method: 'GET', path: '/tls' },
  installTls: { method: 'PUT', path: '/tls', input: 'body' },
  regenerateTls: { method: 'POST', path: '/tls/regenerate' },

  listAudit: { method: 'GET', path: '/audit', input: 'query' },
  listRefusals: { method: 'GET', path: '/refusals', input: 'query' },

  exportBackup: { method: 'POST', path: '/backup/export', input: 'body' },
  importBackup: { method: 'POST', path: '/backup/import', input: 'body' },

  getStatus: { method: 'GET', path: '/status' },
  getTraffic: { method: 'GET', path: '/status/traffic' },

  listDestinations: { method: 'GET', path: '/destinations' },
  getDestination: { method: 'GET', path: '/destinations/:id', input: 'id' },
  createDestination: { method: 'POST', path: '/destinations', status: 201, input: 'body' },
  updateDestination: { method: 'PUT', path: '/destinations/:id', input: 'idAndBody' },
  deleteDestination: { method: 'DELETE', path: '/destinations/:id', status: 204, input: 'id' },
  regenerateDestinationSecret: { method: 'POST', path: '/destinations/:id/regenerate', input: 'id' },
  listDeadLetters: { method: 'GET', path: '/destinations/:id/dead-letters', input: 'idAndQuery' },
  retryDeadLetters: { method: 'POST', path: '/destinations/:id/dead-letters/retry', status: 202, input: 'idAndBody' },
  discardDeadLetters: { method: 'DELETE', path: '/destinations/:id/dead-letters', status: 204, input: 'idAndBody' },
  retryDestinationNow: { method: 'POST', path: '/destinations/:id/retry-now', input: 'id' },
  testDestination: { method: 'POST', path: '/destinations/:id/test', input: 'id' },

  listReaders: { method: 'GET', path: '/readers' },
  getReader: { method: 'GET', path: '/readers/:id', input: 'id' },
  updateReader: { method: 'PUT', path: '/readers/:id', input: 'idAndBody' },
  deleteReader: { method: 'DELETE', path: '/readers/:id', status: 204, input: 'id' },
  getReaderHistory: { method: 'GET', path: '/readers/:id/history', input: 'idAndQuery' },
} as const satisfies { [K in OperationName]: AdminHttpRoute & InputPlace<Table[K]> };

/** Where an operation's input travels, as its schemas allow: a path id, a body or query, both, or none. */
type InputPlace<E> = E extends { id: unknown }
  ? E extends { input: unknown }
    ? { input: 'idAndBody' | 'idAndQuery' }
    : { input: 'id' }
  : E extends { input: unknown }
    ? { input: 'body' | 'query' }
    : { input?: never };
