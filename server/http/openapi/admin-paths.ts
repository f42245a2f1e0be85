import type { OperationName } from '../../contract/operations';
import { ADMIN_INPUTS, ADMIN_ROUTES, FILE_RESULTS, type AdminRoute } from '../routes/admin.routes';
import { jsonResponse, ref, withRequestId, type Json } from './components';

/** `/endpoints/:id` (the router's syntax) → `/endpoints/{id}` (OpenAPI's). */
const openApiPath = (routerPath: string): string => routerPath.replace(/:([A-Za-z_]\w*)/g, '{$1}');

const pathParameterNames = (routerPath: string): string[] =>
  [...routerPath.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1] ?? '');

/** `listExternalUsers` → `List external users`. */
function summaryOf(operation: string): string {
  const words = operation.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `/external-users/:id` → `Admin: external-users`. */
const adminTag = (routerPath: string): string => `Admin: ${routerPath.split('/')[1] ?? ''}`;

/** One tag per admin resource, in the table's order. */
export const adminTags = (): string[] => [...new Set(Object.values(ADMIN_ROUTES).map((route) => adminTag(route.path)))];

const queryParameters = {
  name: 'query',
  in: 'query',
  required: false,
  description: "The listing's filters and paging (`limit`, `cursor`) as query parameters, e.g. `?limit=50`.",
  style: 'form',
  explode: true,
  schema: { type: 'object', additionalProperties: { type: 'string' } },
};

function success(operation: OperationName, route: AdminRoute): Json {
  if (route.status === 204) return { description: 'Done; no content.', headers: withRequestId() };
  if (FILE_RESULTS.has(operation)) {
    return {
      description: 'A file.',
      headers: withRequestId({ 'Content-Disposition': ref('headers', 'ContentDisposition') }),
      content: { 'application/octet-stream': {} },
    };
  }
  return jsonResponse(route.status === 201 ? 'Created; the resource as GET returns it.' : 'OK.', {});
}

function adminOperation(operation: OperationName, route: AdminRoute): Json {
  const readsBody = route.input === ADMIN_INPUTS.body || route.input === ADMIN_INPUTS.idAndBody;
  const readsQuery = route.input === ADMIN_INPUTS.query;
  const pathNames = pathParameterNames(route.path);
  return {
    operationId: operation,
    summary: summaryOf(operation),
    tags: [adminTag(route.path)],
    security: [{ bearerAuth: [] }],
    parameters: [
      ref('parameters', 'RequestId'),
      ...pathNames.map((name) => ({
        name,
        in: 'path',
        required: true,
        // Ids travel as path text; configuration resources have integer ids, events string ones.
        description: 'The `id` that GET returns for the resource.',
        schema: { type: 'string' },
      })),
      ...(readsQuery ? [queryParameters] : []),
    ],
    ...(readsBody
      ? { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } } }
      : {}),
    responses: {
      [String(route.status ?? 200)]: success(operation, route),
      ...(readsBody || readsQuery ? { '400': ref('responses', 'BadRequest') } : {}),
      '401': ref('responses', 'Unauthorized'),
      '403': ref('responses', 'Forbidden'),
      ...(pathNames.length > 0 ? { '404': ref('responses', 'NotFound') } : {}),
      ...(route.method === 'get' ? {} : { '409': ref('responses', 'Conflict') }),
      ...(readsBody
        ? { '413': ref('responses', 'PayloadTooLarge'), '415': ref('responses', 'UnsupportedMediaType') }
        : {}),
      '429': ref('responses', 'TooManyFailures'),
      '503': ref('responses', 'Unavailable'),
    },
  };
}

/**
 * The admin API's paths, read from the router's own table (`ADMIN_ROUTES`): an operation added
 * there is documented here without a second list to keep in step.
 */
export function adminPaths(prefix: string): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [operation, route] of Object.entries(ADMIN_ROUTES) as [OperationName, AdminRoute][]) {
    (paths[`${prefix}${openApiPath(route.path)}`] ??= {})[route.method] = adminOperation(operation, route);
  }
  return paths;
}
