import type { Db } from '../db';
import { accessTokensRepo } from '../repositories/access-tokens.repo';
import { nameKey } from '../repositories/db-types';
import { externalUsersRepo } from '../repositories/external-users.repo';
import { usersRepo } from '../repositories/users.repo';
import { ReloadingSnapshot } from '../reloading-snapshot';
import type { ConfigChanges, ConfigResource } from '../db/config-changes';

export interface DirectoryUser {
  id: number;
  username: string;
  active: boolean;
  passwordHash: string;
  /** Lower-cased role names, for matching. */
  roles: Set<string>;
  /** Role names as written, for answers. */
  roleNames: string[];
}

export interface DirectoryExternalUser {
  id: number;
  username: string;
  active: boolean;
  passwordHash: string;
  routeIds: Set<number>;
}

export interface DirectoryAccessToken {
  id: number;
  name: string;
  /** Lower-cased role name. */
  role: string;
  expiryDate: string;
}

export interface DirectorySnapshot {
  usersById: Map<number, DirectoryUser>;
  usersByName: Map<string, DirectoryUser>;
  externalUsersByName: Map<string, DirectoryExternalUser>;
  accessTokensByHash: Map<string, DirectoryAccessToken>;
}

const RELEVANT: ConfigResource[] = ['users', 'roles', 'externalUsers', 'accessTokens', 'endpoints'];

/**
 * Everything authentication needs, held in memory so no request reads the configuration from the
 * database. A change marks the snapshot stale synchronously (inside `publish`, before the change's
 * response is sent) and the very next request awaits the reload: changes apply at once.
 */
export class AuthDirectory extends ReloadingSnapshot<DirectorySnapshot> {
  constructor(db: Db, changes: ConfigChanges) {
    super(() => loadDirectory(db));
    changes.subscribe((resources) => {
      if (RELEVANT.some((resource) => resources.has(resource))) this.invalidate();
    });
  }
}

async function loadDirectory(db: Db): Promise<DirectorySnapshot> {
  const users = await usersRepo.list(db.knex);
  const externalUsers = await externalUsersRepo.list(db.knex);
  const tokens = await accessTokensRepo.list(db.knex);
  const snapshot: DirectorySnapshot = {
    usersById: new Map(),
    usersByName: new Map(),
    externalUsersByName: new Map(),
    accessTokensByHash: new Map(),
  };
  for (const user of users) {
    const entry: DirectoryUser = {
      id: user.id,
      username: user.username,
      active: user.active,
      passwordHash: user.passwordHash,
      roles: new Set(user.roles.map(nameKey)),
      roleNames: user.roles,
    };
    snapshot.usersById.set(user.id, entry);
    snapshot.usersByName.set(nameKey(user.username), entry);
  }
  for (const user of externalUsers) {
    snapshot.externalUsersByName.set(nameKey(user.username), {
      id: user.id,
      username: user.username,
      active: user.active,
      passwordHash: user.passwordHash,
      routeIds: new Set(user.routeIds),
    });
  }
  for (const token of tokens) {
    snapshot.accessTokensByHash.set(token.tokenHash, {
      id: token.id,
      name: token.name,
      role: nameKey(token.role),
      expiryDate: token.expiryDate,
    });
  }
  return snapshot;
}
