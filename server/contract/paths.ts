/**
 * The gateway's HTTP paths (SPEC §4, §6): every one hangs under `API_ROOT`. Plain data, read by
 * the HTTP app, the OpenAPI document, the CLI's banner and the web admin alike.
 */
export const API_ROOT = '/GWENDPOINTAPI';

/** The web admin (built renderer) and, under it, the admin API. */
export const ADMIN_ROOT = `${API_ROOT}/_admin`;
export const ADMIN_API_ROOT = `${ADMIN_ROOT}/api`;

/** The data-plane path of a route: `/GWENDPOINTAPI/<base>/<route>`. */
export const routePathOf = (baseRoutePath: string, routeName: string): string =>
  `${API_ROOT}/${baseRoutePath}/${routeName}`;
