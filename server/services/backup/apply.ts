import type { DatabaseKind } from '../../db';
import { backupRepo, type ConfigurationRows } from '../../repositories/backup.repo';
import { nameKey, type Queryable } from '../../repositories/db-types';
import { destinationsRepo, type DestinationWrite } from '../../repositories/destinations.repo';
import { settingsRepo } from '../../repositories/settings.repo';
import type { SecretBox } from '../../secret-box';
import type { BackupConfig, BackupDestination } from './format';

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
    roles: config.roles,
    endpoints: config.endpoints,
    routes: config.endpoints.flatMap((endpoint) =>
      endpoint.routes.map((r, position) => ({
        ...r,
        mqttTopic: r.mqttTopic ?? null,
        endpointId: endpoint.id,
        position,
      })),
    ),
    routeRoles: config.endpoints.flatMap((endpoint) =>
      endpoint.routes.flatMap((r) => r.roles.map((name) => ({ routeId: r.id, roleId: role(name) }))),
    ),
    users: config.users.map((user) => ({ ...user, createdAt: Date.parse(user.createdAt) })),
    userRoles: config.users.flatMap((user) => user.roles.map((name) => ({ userId: user.id, roleId: role(name) }))),
    externalUsers: config.externalUsers.map((user) => ({ ...user, createdAt: Date.parse(user.createdAt) })),
    externalUserRoutes: config.externalUsers.flatMap((user) =>
      user.routes.map((name) => ({ externalUserId: user.id, routeId: route(name) })),
    ),
    accessTokens: config.accessTokens.map((token) => ({
      ...token,
      roleId: role(token.role),
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
  box: SecretBox,
): Promise<void> {
  await backupRepo.wipeConfiguration(trx);
  await backupRepo.insertConfiguration(trx, toRows(next));
  await replaceDestinations(trx, next, box);
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

/** A backup's destination as stored: its credential sealed with this gateway's key. */
const toWrite = (
  { auth, createdAt: _createdAt, ...destination }: BackupDestination,
  box: SecretBox,
): DestinationWrite => ({
  ...destination,
  authType: auth.type,
  authUsername: auth.username ?? null,
  authSecret: auth.secret === undefined ? null : box.seal(auth.secret),
});

/**
 * Destinations are matched by name, not replaced: one the backup keeps keeps its id and with it
 * its outbox (acknowledged events still waiting to be delivered are not dropped by a restore);
 * one the backup lacks goes, with its outbox, as the dry run's `removed` said. Then the routes,
 * just restored with the backup's ids, are linked to them by name.
 */
async function replaceDestinations(trx: Queryable, next: BackupConfig, box: SecretBox): Promise<void> {
  const stored = new Map((await destinationsRepo.list(trx)).map((record) => [nameKey(record.name), record.id]));
  const ids = new Map<string, number>();
  for (const destination of next.destinations) {
    const key = nameKey(destination.name);
    const id = stored.get(key);
    if (id === undefined)
      ids.set(key, await destinationsRepo.insert(trx, toWrite(destination, box), Date.parse(destination.createdAt)));
    else {
      await destinationsRepo.update(trx, id, toWrite(destination, box));
      ids.set(key, id);
    }
  }
  for (const [key, id] of stored) if (!ids.has(key)) await destinationsRepo.delete(trx, id);
  const links = next.endpoints.flatMap((endpoint) =>
    endpoint.routes.flatMap((route) =>
      route.destinations.map((name) => ({ routeId: route.id, destinationId: ids.get(nameKey(name)) ?? 0 })),
    ),
  );
  await destinationsRepo.linkRoutes(trx, links);
}
