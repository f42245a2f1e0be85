import type { Db } from '../db';
import { nameKey } from '../repositories/db-types';
import { endpointsRepo, type RouteRecord } from '../repositories/endpoints.repo';
import { ReloadingSnapshot } from '../reloading-snapshot';
import type { ConfigChanges } from '../db/config-changes';

export interface LiveRoute {
  route: RouteRecord;
  endpoint: { id: number; name: string; baseRoutePath: string };
  /** Lower-cased role names mapped to the route (OAuth2). */
  roleKeys: Set<string>;
}

/** Only active routes of active endpoints are reachable; everything else is the same 404. */
export type RouteTable = ReadonlyMap<string, LiveRoute>;

export const routeKey = (base: string, route: string): string => `${nameKey(base)}/${nameKey(route)}`;

/**
 * The in-memory route table, rebuilt whenever an endpoint is submitted and swapped as a whole. A
 * request takes the table once, at its start, so an in-flight request finishes under the
 * configuration it started with; the next request after a change waits for the new table.
 */
export class LiveRoutes extends ReloadingSnapshot<RouteTable> {
  constructor(db: Db, changes: ConfigChanges) {
    super(() => loadRouteTable(db));
    changes.subscribe((resources) => {
      if (resources.has('endpoints') || resources.has('roles')) this.invalidate();
    });
  }

  /**
   * The active route with this id as configured now, waiting while the table reloads after a
   * change (never an answer from a table that is being replaced); null when it is not active.
   */
  async byId(routeId: number | null): Promise<LiveRoute | null> {
    for (const live of (await this.get()).values()) if (live.route.id === routeId) return live;
    return null;
  }
}

async function loadRouteTable(db: Db): Promise<RouteTable> {
  const table = new Map<string, LiveRoute>();
  for (const endpoint of await endpointsRepo.list(db.knex)) {
    if (!endpoint.active) continue;
    for (const route of endpoint.routes) {
      if (!route.active) continue;
      table.set(routeKey(endpoint.baseRoutePath, route.name), {
        route,
        endpoint: { id: endpoint.id, name: endpoint.name, baseRoutePath: endpoint.baseRoutePath },
        roleKeys: new Set(route.roles.map(nameKey)),
      });
    }
  }
  return table;
}
