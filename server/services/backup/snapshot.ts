import type { Settings } from '../../contract/dto';
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
import { validateSettings } from '../settings.service';
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
    destinations: destinations.map((destination) => ({
      name: destination.name,
      kind: destination.kind,
      url: destination.url,
      headers: destination.headers,
      auth: {
        type: destination.authType,
        ...(destination.authUsername === null ? {} : { username: destination.authUsername }),
        ...(destination.authSecret === null ? {} : { secret: openSecret(destination.authSecret) }),
      },
      timeoutMs: destination.timeoutMs,
      batchMaxEvents: destination.batchMaxEvents,
      batchMaxWaitMs: destination.batchMaxWaitMs,
      maxRetryAgeSeconds: destination.maxRetryAgeSeconds,
      tlsVerify: destination.tlsVerify,
      caCertificatePem: destination.caCertificatePem,
      active: destination.active,
      createdAt: iso(destination.createdAt),
    })),
    roles: roles.map((role) => ({
      id: role.id,
      name: role.name,
      description: role.description,
      builtIn: role.builtIn,
    })),
    endpoints: endpoints.map((endpoint) => ({
      id: endpoint.id,
      name: endpoint.name,
      baseRoutePath: endpoint.baseRoutePath,
      active: endpoint.active,
      routes: endpoint.routes.map((route) => ({
        id: route.id,
        name: route.name,
        eventType: route.eventType,
        requestType: route.requestType,
        authType: route.authType,
        active: route.active,
        async: route.async,
        epcisLenient: route.epcisLenient,
        mqttTopic: route.mqttTopic,
        roles: route.roles,
        destinations: route.destinations.flatMap((id) => destinationName.get(id) ?? []),
      })),
    })),
    users: users.map((user) => ({
      id: user.id,
      username: user.username,
      displayName: user.displayName,
      active: user.active,
      roles: user.roles,
      passwordHash: user.passwordHash,
      createdAt: iso(user.createdAt),
    })),
    externalUsers: externalUsers.map((user) => ({
      id: user.id,
      firstName: user.firstName,
      lastName: user.lastName,
      username: user.username,
      active: user.active,
      routes: user.routes,
      passwordHash: user.passwordHash,
      createdAt: iso(externalCreatedAt.get(user.id) ?? 0),
    })),
    accessTokens: accessTokens.map((token) => ({
      id: token.id,
      name: token.name,
      role: token.role,
      expiryDate: token.expiryDate,
      description: token.description,
      tokenHash: token.tokenHash,
      createdAt: iso(token.createdAt),
    })),
    settings,
  };
}

/**
 * A stored value that no longer validates (say, a time zone dropped from ICU) is not in force
 * (the settings service falls back to the default), and would make the backup impossible to
 * import; it is left out, which restores the same effective settings.
 */
function validStoredSettings(stored: Record<string, unknown>): Partial<Settings> {
  const result: Partial<Settings> = {};
  for (const [key, value] of Object.entries(stored)) {
    try {
      Object.assign(result, validateSettings({ [key]: value }));
    } catch {
      // left out on purpose, see above
    }
  }
  return result;
}
