import { VERSION } from '../../version';
import { EVENT_TYPE } from '../../contract/schemas';
import { adminPaths, adminTags } from './admin-paths';
import { COMPONENTS, type Json } from './components';
import { epcisPaths } from './epcis-paths';
import { gatewayPaths } from './gateway-paths';
import { JsonSchemas } from './json-schema';

export interface OpenApiOptions {
  /** The API root every path hangs under (`/GWENDPOINTAPI`). */
  serverUrl: string;
  /** The admin API's prefix below the root (`/_admin/api`). */
  adminApiPath: string;
}

/**
 * The OpenAPI 3.1 description of the gateway's HTTP interface: the data plane, `/token`, the
 * gateway's own paths and the admin API. It describes code, not configuration, so one build at
 * start serves every request; data routes appear as the templates `/{base}/{route}`, never by
 * their configured names.
 */
export function buildOpenApiDocument(options: OpenApiOptions): Json {
  const schemas = new JsonSchemas();
  const paths = { ...gatewayPaths(), ...epcisPaths(), ...adminPaths(options.adminApiPath, schemas) };
  // The data plane's hand-written schemas refer to it whether or not an admin schema does.
  schemas.of(EVENT_TYPE);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gateway',
      version: VERSION,
      description:
        'Self-hosted ingestion gateway: data routes for mobile clients and UHF RFID readers, and the admin API the web admin uses. Errors are `application/problem+json` (RFC 9457) with a stable `code`.',
    },
    servers: [
      { url: options.serverUrl, description: 'This gateway (the path is relative to the host it is served from).' },
    ],
    tags: [
      {
        name: 'EPCIS',
        description:
          "EPCIS 2.0 repository of EpcisObject routes (GS1's REST binding): capture on HttpPost routes, SimpleEventQuery on HttpGet routes, with the route's own authentication.",
      },
      {
        name: 'Data plane',
        description: "Configured routes: `/{base}/{route}`, authenticated after each route's authType.",
      },
      { name: 'Authentication', description: 'Bearer tokens for dashboard users.' },
      { name: 'Gateway', description: "The gateway's own paths; no authentication." },
      ...adminTags().map((name) => ({ name, description: "Admin API: an admin user's bearer token." })),
    ],
    paths,
    components: { ...COMPONENTS, schemas: mergeSchemas(COMPONENTS.schemas, schemas.components()) },
  };
}

/** The hand-written schemas (problems, data plane) beside the contract's; a name is never in both. */
function mergeSchemas(written: Record<string, Json>, generated: Record<string, Json>): Record<string, Json> {
  const twice = Object.keys(generated).filter((name) => name in written);
  if (twice.length > 0) throw new Error(`Schemas named twice: ${twice.join(', ')}`);
  return { ...written, ...generated };
}
