import { OPERATION_SCHEMAS } from '../../contract/operation-schemas';
import type { OperationName } from '../../contract/operations';
import type { SchemaNode } from '../../contract/schema';
import { ADMIN_INPUTS, ADMIN_ROUTES, FILE_RESULTS, type AdminRoute } from '../routes/admin.routes';
import { jsonResponse, ref, withRequestId, type Json } from './components';
import type { JsonSchemas } from './json-schema';

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

/** One query parameter per member of the operation's query schema; an unknown one answers 400. */
function queryParameters(query: SchemaNode | undefined, schemas: JsonSchemas): Json[] {
  if (query?.kind !== 'object') return [];
  return Object.entries(query.properties).map(([name, member]) => {
    const { description, ...schema } = schemas.of({ ...member, name: undefined });
    return {
      name,
      in: 'query',
      required: member.optional !== true,
      ...(typeof description === 'string' ? { description } : {}),
      schema,
    };
  });
}

function success(operation: OperationName, route: AdminRoute, schemas: JsonSchemas): Json {
  const { output } = OPERATION_SCHEMAS[operation];
  if (route.status === 204 || output === null) return { description: 'Done; no content.', headers: withRequestId() };
  if (FILE_RESULTS.has(operation)) {
    return {
      description: 'A file.',
      headers: withRequestId({ 'Content-Disposition': ref('headers', 'ContentDisposition') }),
      content: { 'application/octet-stream': {} },
    };
  }
  const described =
    route.status === 201 ? 'Created; the resource as GET returns it.' : route.status === 202 ? 'Accepted.' : 'OK.';
  return jsonResponse(described, schemas.of(output));
}

function adminOperation(operation: OperationName, route: AdminRoute, schemas: JsonSchemas): Json {
  const { input } = OPERATION_SCHEMAS[operation] as { input?: SchemaNode };
  const readsBody = route.input === ADMIN_INPUTS.body || route.input === ADMIN_INPUTS.idAndBody;
  const readsQuery = route.input === ADMIN_INPUTS.query || route.input === ADMIN_INPUTS.idAndQuery;
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
      ...(readsQuery ? queryParameters(input, schemas) : []),
    ],
    ...(readsBody && input
      ? {
          requestBody: {
            required: route.method !== 'delete',
            content: { 'application/json': { schema: schemas.of(input) } },
          },
        }
      : {}),
    responses: {
      [String(route.status ?? 200)]: success(operation, route, schemas),
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
 * The admin API's paths, read from the router's own table (`ADMIN_ROUTES`) and the contract's
 * schemas (`OPERATION_SCHEMAS`): an operation added there is documented here without a second
 * list to keep in step. Named schemas land in `schemas`, for components.schemas.
 */
export function adminPaths(prefix: string, schemas: JsonSchemas): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [operation, route] of Object.entries(ADMIN_ROUTES) as [OperationName, AdminRoute][]) {
    (paths[`${prefix}${openApiPath(route.path)}`] ??= {})[route.method] = adminOperation(operation, route, schemas);
  }
  return paths;
}
