import type { AdminHttpRoute } from '../../../server/contract/admin-routes';

/** What the web transport sends for one operation: the path under the admin API, method and body. */
export interface HttpRequest {
  method: AdminHttpRoute['method'];
  /** Path and query string, under /GWENDPOINTAPI/_admin/api. */
  url: string;
  /** JSON text, or undefined for a request without a body. */
  body: string | undefined;
}

/** Query parameters from an input's fields; empty values are left out (an absent filter). */
function queryString(fields: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, typeof value === 'number' || typeof value === 'boolean' ? String(value) : (value as string));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Lays one contract call out as the route table says (server/contract/admin-routes.ts): `:id`
 * from the input's `id`; the rest of the input as the query (`query`, `idAndQuery`) or as the
 * JSON body (`body`, `idAndBody`, whatever the method: discarding dead letters is a DELETE with
 * `{ids}`). The id stays out of the query: the path carries it, and the server would refuse a
 * second one only by luck of spreading order.
 */
export function httpRequestOf(route: AdminHttpRoute, input: unknown): HttpRequest {
  const { id, ...rest } = (input ?? {}) as { id?: unknown } & Record<string, unknown>;
  const path = route.path.includes(':id') ? route.path.replace(':id', encodeURIComponent(String(id))) : route.path;
  switch (route.input) {
    case 'query':
      return { method: route.method, url: `${path}${queryString({ id, ...rest })}`, body: undefined };
    case 'idAndQuery':
      return { method: route.method, url: `${path}${queryString(rest)}`, body: undefined };
    case 'body':
    case 'idAndBody':
      return { method: route.method, url: path, body: JSON.stringify(input ?? {}) };
    default:
      // No input, or the id alone (in the path). A POST without input still sends `{}`: the
      // admin API takes JSON bodies only, and an empty object is the body that says nothing.
      return {
        method: route.method,
        url: path,
        body: route.method === 'POST' || route.method === 'PUT' ? '{}' : undefined,
      };
  }
}
