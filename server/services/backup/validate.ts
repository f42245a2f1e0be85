import type { FieldError } from '../../contract/errors';
import { AppError, validationFailed } from '../../errors';
import { nameKey } from '../../repositories/db-types';
import { parseDate } from '../../time';
import { InputReader } from '../../validation';
import { readDestination } from '../destinations.service';
import { readEndpoint } from '../endpoints.service';
import { readExternalUser } from '../external-users.service';
import { ADMIN_ROLE, readRole } from '../roles.service';
import { validateSettings } from '../settings.service';
import { readUser } from '../users.service';
import type {
  BackupAccessToken,
  BackupConfig,
  BackupDestination,
  BackupEndpoint,
  BackupExternalUser,
  BackupRole,
  BackupUser,
} from './format';

/**
 * Checks a backup's configuration against every rule of SPEC §3, reusing the services' own
 * readers for each record and adding the cross-record rules a service normally checks against
 * the database (here the backup *is* the whole database). Every problem is reported at once,
 * with a JSON Pointer into the backup's `config` (`/endpoints/0/routes/1/name`).
 */

/** PostgreSQL `increments` columns are 32-bit. */
const MAX_ID = 2_147_483_647;
/**
 * Costs 04–14, the `bcryptCost` range (SPEC §10): a hash at cost 31 in a crafted backup would make
 * every login of that user, and every guess at it, cost the gateway hours of CPU.
 */
const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|1[0-4])\$[./A-Za-z0-9]{53}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;
type ListKey = 'roles' | 'endpoints' | 'users' | 'externalUsers' | 'accessTokens' | 'destinations';

/** Runs a service reader on one record, re-basing its errors under `base`. */
function within<T>(errors: FieldError[], base: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'validation_failed') throw error;
    for (const problem of error.errors ?? []) errors.push({ path: base + problem.path, message: problem.message });
    return undefined;
  }
}

function readIdField(r: InputReader, key = 'id'): number {
  const value = r.raw(key);
  if (typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_ID) return value;
  r.fail(key, `${key} must be a positive integer (up to ${MAX_ID})`);
  return 0;
}

function readHash(r: InputReader, key: string, pattern: RegExp, what: string): string {
  const value = r.raw(key);
  if (typeof value === 'string' && pattern.test(value)) return value;
  r.fail(key, `${key} must be ${what}`);
  return '';
}

function readInstant(r: InputReader): string {
  const value = r.raw('createdAt');
  if (typeof value === 'string' && ISO_INSTANT.test(value) && Number.isFinite(Date.parse(value)))
    return new Date(value).toISOString();
  r.fail('createdAt', 'createdAt must be an ISO 8601 timestamp');
  return '';
}

/** The extra fields a backup record has beyond what the service reader knows. */
function extras<T>(errors: FieldError[], base: string, input: unknown, read: (r: InputReader) => T): T {
  const r = new InputReader(input, base);
  // A non-object record was already reported by the service reader at the same path.
  const value = read(r);
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) errors.push(...r.errors);
  return value;
}

/** Reports every name (case-insensitively) or id that occurs more than once. */
class UniqueNames {
  private readonly seen = new Map<string, number>();
  constructor(
    private readonly errors: FieldError[],
    private readonly what: string,
  ) {}

  add(value: string | number, path: string): void {
    // 0 and '' stand for a field that failed to read; that failure is already reported.
    if (value === 0 || value === '') return;
    const key = typeof value === 'number' ? String(value) : nameKey(value);
    if (this.seen.has(key))
      this.errors.push({ path, message: `${this.what} "${String(value)}" is used more than once` });
    else this.seen.set(key, 1);
  }
}

/**
 * The `name`s inside a record that failed to read (a role, or an endpoint's routes): references
 * to them are not reported again as "does not exist", the record's own error says enough.
 */
function rawNames(record: unknown, listKey?: string): string[] {
  if (record === null || typeof record !== 'object') return [];
  const items: unknown[] = listKey ? ((record as Record<string, unknown>)[listKey] as unknown[]) : [record];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) => {
    const name = item !== null && typeof item === 'object' ? (item as Record<string, unknown>).name : undefined;
    return typeof name === 'string' ? [nameKey(name)] : [];
  });
}

const dedupe = (names: string[]): string[] => [...new Map(names.map((name) => [nameKey(name), name])).values()];

export function validateConfig(input: unknown): BackupConfig {
  const errors: FieldError[] = [];
  const top = new InputReader(input);
  if (top.errors.length > 0)
    throw validationFailed([{ path: '', message: 'The backup holds no configuration object' }]);
  const list = (key: ListKey): unknown[] => {
    const value = top.raw(key);
    if (Array.isArray(value)) return value;
    errors.push({ path: `/${key}`, message: `${key} must be a list` });
    return [];
  };

  // Roles first: every other resource refers to them by name.
  const roles: BackupRole[] = [];
  const roleNames = new UniqueNames(errors, 'Role name');
  const roleIds = new UniqueNames(errors, 'Role id');
  const unreadRoles = new Set<string>();
  list('roles').forEach((record, index) => {
    const base = `/roles/${index}`;
    const role = within(errors, base, () => readRole(record));
    const id = extras(errors, base, record, (r) => readIdField(r));
    if (!role) {
      for (const name of rawNames(record)) unreadRoles.add(name);
      return;
    }
    roleNames.add(role.name, `${base}/name`);
    roleIds.add(id, `${base}/id`);
    roles.push({ id, ...role, builtIn: nameKey(role.name) === ADMIN_ROLE });
  });
  const roleExists = new Set(roles.map((role) => nameKey(role.name)));
  if (top.has('roles') && !roleExists.has(ADMIN_ROLE) && !unreadRoles.has(ADMIN_ROLE)) {
    errors.push({ path: '/roles', message: `The built-in role "${ADMIN_ROLE}" is missing` });
  }
  const checkRoles = (names: string[], base: string) =>
    names.forEach((name, index) => {
      if (!roleExists.has(nameKey(name)) && !unreadRoles.has(nameKey(name)))
        errors.push({ path: `${base}/${index}`, message: `Role "${name}" does not exist` });
    });

  const destinations = readDestinations(errors, list('destinations'));
  const destinationExists = new Set(destinations.map((destination) => nameKey(destination.name)));

  const endpoints: BackupEndpoint[] = [];
  const endpointNames = new UniqueNames(errors, 'Endpoint name');
  const basePaths = new UniqueNames(errors, 'Base route path');
  const endpointIds = new UniqueNames(errors, 'Endpoint id');
  const routeNames = new UniqueNames(errors, 'Route name');
  const routeIds = new UniqueNames(errors, 'Route id');
  const unreadRoutes = new Set<string>();
  // MQTT topic filters are compared as written (MQTT topics are case-sensitive).
  const topics = new Set<string>();
  list('endpoints').forEach((record, index) => {
    const base = `/endpoints/${index}`;
    const draft = within(errors, base, () => readEndpoint(withoutRouteDestinations(record)));
    const id = extras(errors, base, record, (r) => readIdField(r));
    if (!draft) {
      for (const name of rawNames(record, 'routes')) unreadRoutes.add(name);
      return;
    }
    endpointNames.add(draft.name, `${base}/name`);
    basePaths.add(draft.baseRoutePath, `${base}/baseRoutePath`);
    endpointIds.add(id, `${base}/id`);
    const routes = draft.routes.map((route, routeIndex) => {
      const routeBase = `${base}/routes/${routeIndex}`;
      // The service reader lets a new route omit its id; in a backup every route has one.
      if (route.id === undefined) errors.push({ path: `${routeBase}/id`, message: 'Route id is required in a backup' });
      else if (route.id > MAX_ID)
        errors.push({ path: `${routeBase}/id`, message: `Route id must be at most ${MAX_ID}` });
      else routeIds.add(route.id, `${routeBase}/id`);
      routeNames.add(route.name, `${routeBase}/name`);
      if (route.mqttTopic) {
        if (topics.has(route.mqttTopic))
          errors.push({ path: `${routeBase}/mqttTopic`, message: `MQTT topic "${route.mqttTopic}" is already used` });
        topics.add(route.mqttTopic);
      }
      checkRoles(route.roles, `${routeBase}/roles`);
      // The service reader takes destination ids; a backup names them (ids differ between gateways).
      const names = extras(errors, routeBase, rawRoute(record, routeIndex), (r) => r.stringList('destinations'));
      names.forEach((name, k) => {
        if (!destinationExists.has(nameKey(name)))
          errors.push({ path: `${routeBase}/destinations/${k}`, message: `Destination "${name}" does not exist` });
      });
      if (names.length > 0 && route.requestType !== 'HttpPost')
        errors.push({
          path: `${routeBase}/destinations`,
          message: 'Destinations are only available for HttpPost routes',
        });
      const { destinations: _ids, ...rest } = route;
      return { ...rest, id: route.id ?? 0, roles: dedupe(route.roles), destinations: dedupe(names) };
    });
    endpoints.push({ id, name: draft.name, baseRoutePath: draft.baseRoutePath, active: draft.active, routes });
  });
  // The first route of a name wins; a second one is already reported as a duplicate.
  const routesByName = new Map<string, BackupEndpoint['routes'][number]>();
  for (const route of endpoints.flatMap((endpoint) => endpoint.routes)) {
    if (!routesByName.has(nameKey(route.name))) routesByName.set(nameKey(route.name), route);
  }

  const users: BackupUser[] = [];
  const usernames = new UniqueNames(errors, 'Username');
  const userIds = new UniqueNames(errors, 'User id');
  const userRecords = list('users');
  userRecords.forEach((record, index) => {
    const base = `/users/${index}`;
    // Passwords travel as hashes: the reader sees no `password` and checks the rest.
    const user = within(errors, base, () => readUser(record, false));
    const more = extras(errors, base, record, (r) => ({
      id: readIdField(r),
      passwordHash: readHash(r, 'passwordHash', BCRYPT_HASH, 'a bcrypt hash of cost 4 to 14'),
      createdAt: readInstant(r),
    }));
    if (!user) return;
    usernames.add(user.username, `${base}/username`);
    userIds.add(more.id, `${base}/id`);
    checkRoles(user.roles, `${base}/roles`);
    users.push({
      id: more.id,
      username: user.username,
      displayName: user.displayName,
      active: user.active,
      roles: dedupe(user.roles),
      passwordHash: more.passwordHash,
      createdAt: more.createdAt,
    });
  });

  // SPEC §14: restoring must leave someone able to sign in to the web admin.
  // Only judged when every user was readable: otherwise the unreadable one is reported instead.
  const usersRead = Array.isArray(top.raw('users')) && users.length === userRecords.length;
  if (usersRead && !users.some((u) => u.active && u.roles.some((n) => nameKey(n) === ADMIN_ROLE)))
    errors.push({
      path: '/users',
      message: `No active user holds the "${ADMIN_ROLE}" role: nobody could sign in to the web admin`,
    });

  const externalUsers: BackupExternalUser[] = [];
  const externalNames = new UniqueNames(errors, 'Username');
  const externalIds = new UniqueNames(errors, 'External user id');
  list('externalUsers').forEach((record, index) => {
    const base = `/externalUsers/${index}`;
    // `creating: false`: a stored external user may hold no route (SPEC §10).
    const user = within(errors, base, () => readExternalUser(record, false));
    const more = extras(errors, base, record, (r) => ({
      id: readIdField(r),
      passwordHash: readHash(r, 'passwordHash', BCRYPT_HASH, 'a bcrypt hash of cost 4 to 14'),
      createdAt: readInstant(r),
    }));
    if (!user) return;
    externalNames.add(user.username, `${base}/username`);
    externalIds.add(more.id, `${base}/id`);
    user.routes.forEach((name, routeIndex) => {
      const route = routesByName.get(nameKey(name));
      const path = `${base}/routes/${routeIndex}`;
      if (!route) {
        if (!unreadRoutes.has(nameKey(name))) errors.push({ path, message: `Route "${name}" does not exist` });
      } else if (route.authType !== 'basic')
        errors.push({ path, message: `Route "${name}" does not use basic authentication` });
    });
    externalUsers.push({
      id: more.id,
      firstName: user.firstName,
      lastName: user.lastName,
      username: user.username,
      active: user.active,
      routes: dedupe(user.routes),
      passwordHash: more.passwordHash,
      createdAt: more.createdAt,
    });
  });

  const accessTokens: BackupAccessToken[] = [];
  const tokenNames = new UniqueNames(errors, 'Token name');
  const tokenIds = new UniqueNames(errors, 'Access token id');
  const tokenHashes = new UniqueNames(errors, 'Token hash');
  list('accessTokens').forEach((record, index) => {
    const base = `/accessTokens/${index}`;
    const r = new InputReader(record, base);
    if (r.errors.length > 0) {
      errors.push(...r.errors);
      return;
    }
    const token: BackupAccessToken = {
      id: readIdField(r),
      name: r.string('name', { required: true, max: 128, label: 'Token Name' }),
      role: r.string('role', { required: true, max: 64, label: 'Role' }),
      // Any real date: an expired token is restored as expired, not refused.
      expiryDate: r.string('expiryDate', { required: true, label: 'Expiry Date' }),
      description: r.string('description', { max: 1024, label: 'Description' }) ?? '',
      tokenHash: readHash(r, 'tokenHash', SHA256_HEX, 'a SHA-256 hash in lower-case hex'),
      createdAt: readInstant(r),
    };
    if (token.expiryDate && !parseDate(token.expiryDate))
      r.fail('expiryDate', 'Expiry Date must be a calendar date written YYYY-MM-DD');
    errors.push(...r.errors);
    if (r.errors.length > 0) return;
    tokenNames.add(token.name, `${base}/name`);
    tokenIds.add(token.id, `${base}/id`);
    tokenHashes.add(token.tokenHash, `${base}/tokenHash`);
    if (!roleExists.has(nameKey(token.role)))
      errors.push({ path: `${base}/role`, message: `Role "${token.role}" does not exist` });
    accessTokens.push(token);
  });

  let settings = {};
  if (!top.has('settings')) errors.push({ path: '/settings', message: 'settings must be an object' });
  else settings = within(errors, '/settings', () => validateSettings(top.raw('settings'))) ?? {};

  if (errors.length > 0) throw validationFailed(errors);
  return { destinations, roles, endpoints, users, externalUsers, accessTokens, settings };
}

/** The endpoint for the service's reader, which takes route destinations as ids: here they are names, read apart. */
function withoutRouteDestinations(endpoint: unknown): unknown {
  const routes = (endpoint as { routes?: unknown } | null)?.routes;
  if (!Array.isArray(routes)) return endpoint;
  return {
    ...(endpoint as object),
    routes: routes.map((route: unknown) => {
      if (route === null || typeof route !== 'object' || Array.isArray(route)) return route;
      const { destinations: _names, ...rest } = route as Record<string, unknown>;
      return rest;
    }),
  };
}

/** An endpoint record's route `index`, as it stands in the file. */
function rawRoute(endpoint: unknown, index: number): unknown {
  const routes = (endpoint as { routes?: unknown } | null)?.routes;
  return Array.isArray(routes) ? (routes[index] as unknown) : undefined;
}

/**
 * Destinations, read by the service's own reader. Their credential travels as `auth.secret`
 * (the reader takes it as the password or token it would be sent as), and names are unique.
 */
function readDestinations(errors: FieldError[], records: unknown[]): BackupDestination[] {
  const names = new UniqueNames(errors, 'Destination name');
  const destinations: BackupDestination[] = [];
  records.forEach((record, index) => {
    const base = `/destinations/${index}`;
    const fields = record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : {};
    const auth = (fields.auth ?? {}) as { type?: unknown; username?: unknown; secret?: unknown };
    const asInput = {
      ...fields,
      auth: { type: auth.type, username: auth.username, password: auth.secret, token: auth.secret },
    };
    const draft = within(errors, base, () => readDestination(fieldsOnly(asInput)));
    const more = extras(errors, base, record, (r) => ({ createdAt: readInstant(r) }));
    const secret = typeof auth.secret === 'string' && auth.secret !== '' ? auth.secret : undefined;
    if (draft && draft.auth.type !== 'none' && secret === undefined)
      errors.push({ path: `${base}/auth/secret`, message: 'The destination’s secret is missing' });
    if (!draft) return;
    names.add(draft.name, `${base}/name`);
    destinations.push({
      name: draft.name,
      kind: draft.kind,
      url: draft.url,
      headers: draft.headers,
      auth: {
        type: draft.auth.type,
        ...(draft.auth.type === 'basic' ? { username: draft.auth.username } : {}),
        ...(draft.auth.type === 'none' || secret === undefined ? {} : { secret }),
      },
      timeoutMs: draft.timeoutMs,
      batchMaxEvents: draft.batchMaxEvents,
      batchMaxWaitMs: draft.batchMaxWaitMs,
      maxRetryAgeSeconds: draft.maxRetryAgeSeconds,
      tlsVerify: draft.tlsVerify,
      caCertificatePem: draft.caCertificatePem,
      active: draft.active,
      createdAt: more.createdAt,
    });
  });
  return destinations;
}

/** The auth fields the reader knows for the type, so a `token` beside a Basic password is not read as a problem. */
function fieldsOnly(input: Record<string, unknown> & { auth: Record<string, unknown> }): Record<string, unknown> {
  const { type } = input.auth;
  const auth =
    type === 'basic'
      ? { type, username: input.auth.username, password: input.auth.password }
      : type === 'bearer'
        ? { type, token: input.auth.token }
        : { type };
  return { ...input, auth };
}
