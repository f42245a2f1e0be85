import { accessTokensRepo } from '../../repositories/access-tokens.repo';
import { backupRepo } from '../../repositories/backup.repo';
import type { Queryable } from '../../repositories/db-types';
import { destinationsRepo } from '../../repositories/destinations.repo';
import { endpointsRepo } from '../../repositories/endpoints.repo';
import { externalUsersRepo } from '../../repositories/external-users.repo';
import { rolesRepo } from '../../repositories/roles.repo';
import { settingsRepo } from '../../repositories/settings.repo';
import { usersRepo } from '../../repositories/users.repo';
import type { SealedSecret } from '../../secret-box';
import { iso } from '../../time';
import { validStoredSettings } from '../settings.service';
import type { BackupConfig } from './format';

/**
 * The whole configuration as a backup holds it, hashes included, and destination credentials in
 * clear (`openSecret`: a backup carries them inside its encrypted file, SPEC §11). Run it inside
 * one transaction so the parts agree with each other (an export, or the "before" side of an import).
 */
export async function readConfiguration(
  db: Queryable,
  openSecret: (stored: SealedSecret) => string,
): Promise<BackupConfig> {
  const roles = await rolesRepo.list(db);
  const endpoints = await endpointsRepo.list(db);
  const users = await usersRepo.list(db);
  const externalUsers = await externalUsersRepo.list(db);
  const externalCreatedAt = await backupRepo.externalUserCreatedAt(db);
  const accessTokens = await accessTokensRepo.list(db);
  const settings = validStoredSettings(await settingsRepo.getAll(db));
  const destinations = await destinationsRepo.list(db);
  const destinationName = new Map(destinations.map((destination) => [destination.id, destination.name]));
  return {
    destinations: destinations.map(
      ({ id: _id, authType, authUsername, authSecret, createdAt, name, kind, url, headers, ...delivery }) => ({
        name,
        kind,
        url,
        headers,
        auth: {
          type: authType,
          ...(authUsername === null ? {} : { username: authUsername }),
          ...(authSecret === null ? {} : { secret: openSecret(authSecret) }),
        },
        ...delivery,
        createdAt: iso(createdAt),
      }),
    ),
    roles,
    endpoints: endpoints.map((endpoint) => ({
      ...endpoint,
      routes: endpoint.routes.map(({ endpointId: _endpointId, destinations: ids, ...route }) => ({
        ...route,
        destinations: ids.flatMap((id) => destinationName.get(id) ?? []),
      })),
    })),
    users: users.map((user) => ({ ...user, createdAt: iso(user.createdAt) })),
    externalUsers: externalUsers.map(({ routeIds: _routeIds, ...user }) => ({
      ...user,
      createdAt: iso(externalCreatedAt.get(user.id) ?? 0),
    })),
    accessTokens: accessTokens.map(({ roleId: _roleId, ...token }) => ({ ...token, createdAt: iso(token.createdAt) })),
    settings,
  };
}
