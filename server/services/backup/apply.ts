import type { DatabaseKind } from '../../db';
import { backupRepo, type ConfigurationRows } from '../../repositories/backup.repo';
import { nameKey, type Queryable } from '../../repositories/db-types';
import { settingsRepo } from '../../repositories/settings.repo';
import type { BackupConfig } from './format';

/** Turns a validated configuration into table rows, resolving names to the backup's own ids. */
export function toRows(config: BackupConfig): ConfigurationRows {
  const roleId = new Map(config.roles.map((role) => [nameKey(role.name), role.id]));
  const routeId = new Map(
    config.endpoints.flatMap((endpoint) => endpoint.routes).map((route) => [nameKey(route.name), route.id]),
  );
  // validateConfig guarantees every reference resolves; 0 would fail the foreign key loudly.
  const role = (name: string) => roleId.get(nameKey(name)) ?? 0;
  const route = (name: string) => routeId.get(nameKey(name)) ?? 0;
  return {
    roles: config.roles.map(({ id, name, description, builtIn }) => ({ id, name, description, builtIn })),
    endpoints: config.endpoints.map(({ id, name, baseRoutePath, active }) => ({ id, name, baseRoutePath, active })),
    routes: config.endpoints.flatMap((endpoint) =>
      endpoint.routes.map((r, position) => ({
        id: r.id,
        endpointId: endpoint.id,
        position,
        name: r.name,
        eventType: r.eventType,
        requestType: r.requestType,
        authType: r.authType,
        active: r.active,
        async: r.async,
        epcisLenient: r.epcisLenient,
      })),
    ),
    routeRoles: config.endpoints.flatMap((endpoint) =>
      endpoint.routes.flatMap((r) => r.roles.map((name) => ({ routeId: r.id, roleId: role(name) }))),
    ),
    users: config.users.map((user) => ({
      id: user.id,
      username: user.username,
      displayName: user.displayName,
      passwordHash: user.passwordHash,
      active: user.active,
      createdAt: Date.parse(user.createdAt),
    })),
    userRoles: config.users.flatMap((user) => user.roles.map((name) => ({ userId: user.id, roleId: role(name) }))),
    externalUsers: config.externalUsers.map((user) => ({
      id: user.id,
      firstName: user.firstName,
      lastName: user.lastName,
      username: user.username,
      passwordHash: user.passwordHash,
      active: user.active,
      createdAt: Date.parse(user.createdAt),
    })),
    externalUserRoutes: config.externalUsers.flatMap((user) =>
      user.routes.map((name) => ({ externalUserId: user.id, routeId: route(name) })),
    ),
    accessTokens: config.accessTokens.map((token) => ({
      id: token.id,
      name: token.name,
      roleId: role(token.role),
      expiryDate: token.expiryDate,
      description: token.description,
      tokenHash: token.tokenHash,
      createdAt: Date.parse(token.createdAt),
    })),
  };
}

/**
 * Replaces the whole configuration with `next`, inside the caller's transaction: every
 * configuration table is emptied (bearer tokens too, which ends every session) and refilled
 * with the backup's rows and ids. `current` is what the tables held, read in the same
 * transaction, used to tell which route ids keep their route.
 */
export async function replaceConfiguration(
  trx: Queryable,
  kind: DatabaseKind,
  current: BackupConfig,
  next: BackupConfig,
): Promise<void> {
  await backupRepo.wipeConfiguration(trx);
  await backupRepo.insertConfiguration(trx, toRows(next));
  await settingsRepo.putMany(trx, next.settings);
  await backupRepo.bumpSequences(trx, kind);
  const before = new Map(
    current.endpoints.flatMap((endpoint) => endpoint.routes).map((route) => [route.id, nameKey(route.name)]),
  );
  const kept = next.endpoints
    .flatMap((endpoint) => endpoint.routes)
    .filter((route) => before.get(route.id) === nameKey(route.name))
    .map((route) => route.id);
  await backupRepo.dropIdempotencyKeysExcept(trx, kept);
}
