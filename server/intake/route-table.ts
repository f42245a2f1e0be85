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
  /** Each table's topic index, built when a message first asks. */
  private readonly topics = new WeakMap<RouteTable, TopicRoutes>();

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
  /** The route an MQTT topic goes to now (SPEC §15), or null when no active route's filter matches. */
  async forTopic(topic: string): Promise<LiveRoute | null> {
    const table = await this.get();
    let topics = this.topics.get(table);
    if (!topics) {
      topics = new TopicRoutes(table);
      this.topics.set(table, topics);
    }
    return topics.route(topic);
  }

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

interface TopicFilter {
  live: LiveRoute;
  levels: string[];
  wildcards: number;
}

/** Topics answered per table: readers publish to a handful of topics over and over. */
const MAX_REMEMBERED_TOPICS = 10_000;

/**
 * Which route an MQTT topic goes to (SPEC §15): among the active routes whose `mqttTopic` filter
 * matches, the one with the fewest wildcard levels (`+` and `#` count one each); a tie goes to
 * the route created first (the lower id: an endpoint's routes are inserted in list order).
 * Built once per route table; the answer per topic is remembered.
 */
export class TopicRoutes {
  private readonly filters: TopicFilter[];
  private readonly answers = new Map<string, LiveRoute | null>();

  constructor(table: RouteTable) {
    this.filters = [...table.values()]
      .flatMap((live) => {
        const filter = live.route.mqttTopic;
        if (filter === null) return [];
        const levels = filter.split('/');
        return [{ live, levels, wildcards: levels.filter((level) => level === '+' || level === '#').length }];
      })
      .sort((a, b) => a.wildcards - b.wildcards || a.live.route.id - b.live.route.id);
  }

  /** Whether any route takes MQTT messages at all. */
  get isEmpty(): boolean {
    return this.filters.length === 0;
  }

  route(topic: string): LiveRoute | null {
    const known = this.answers.get(topic);
    if (known !== undefined) return known;
    const found = this.filters.find((filter) => matches(filter.levels, topic.split('/')))?.live ?? null;
    if (this.answers.size >= MAX_REMEMBERED_TOPICS) this.answers.clear();
    this.answers.set(topic, found);
    return found;
  }
}

/** MQTT 3.1.1 §4.7: `+` takes one level, `#` the rest (the parent level included); `$` topics match no wildcard at the start. */
function matches(filter: string[], topic: string[]): boolean {
  if ((filter[0] === '+' || filter[0] === '#') && topic[0]?.startsWith('$')) return false;
  for (let i = 0; i < filter.length; i++) {
    const level = filter[i];
    if (level === '#') return true;
    if (i >= topic.length) return false;
    if (level !== '+' && level !== topic[i]) return false;
  }
  return filter.length === topic.length;
}
