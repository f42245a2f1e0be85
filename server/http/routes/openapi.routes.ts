import type { Context } from 'koa';
import { buildOpenApiDocument, type OpenApiOptions } from '../openapi/document';

/**
 * GET /GWENDPOINTAPI/_openapi.json, without authentication: the document describes the gateway's
 * interface, which is the same for every installation, and none of its configuration. Built and
 * serialized once, when the app is created.
 */
export function openApiHandler(options: OpenApiOptions) {
  const body = JSON.stringify(buildOpenApiDocument(options));
  return (ctx: Context): void => {
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = body;
    // Changes only with the gateway's version: clients may keep it, but ask before reusing it.
    ctx.set('Cache-Control', 'no-cache');
  };
}
