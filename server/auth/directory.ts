import type { Db } from '../db';
import { accessTokensRepo } from '../repositories/access-tokens.repo';
import { nameKey } from '../repositories/db-types';
import { externalUsersRepo } from '../repositories/external-users.repo';
import { usersRepo } from '../repositories/users.repo';
import type { ConfigChanges, ConfigResource } from '../services/changes';

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
export class AuthDirectory {
  private current: Promise<DirectorySnapshot>;
  private ready: DirectorySnapshot | null = null;
  private generation = 0;
  private failed = false;

  constructor(
    private readonly db: Db,
    changes: ConfigChanges,
  ) {
    this.current = this.load();
    this.current.catch(() => {
      this.failed = true;
    });
    changes.subscribe((resources) => {
      if (RELEVANT.some((resource) => resources.has(resource))) this.invalidate();
    });
  }

  /** Returns the up-to-date snapshot; synchronous fast path once loaded and unchanged. */
  get(): DirectorySnapshot | Promise<DirectorySnapshot> {
    // A reload that failed (database gone) is retried by the next caller, so the gateway
    // recovers by itself once the database is back.
    if (this.failed) this.invalidate();
    return this.ready ?? this.current;
  }

  invalidate(): void {
    this.ready = null;
    this.current = this.load();
    // A failed reload is retried by the next invalidate or get; never an unhandled rejection.
    this.current.catch(() => undefined);
  }

  private async load(): Promise<DirectorySnapshot> {
    const generation = ++this.generation;
    const [users, externalUsers, tokens] = await Promise.all([
      usersRepo.list(this.db.knex),
      externalUsersRepo.list(this.db.knex),
      accessTokensRepo.list(this.db.knex),
    ]);
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
    // Only the newest load may publish itself as ready; an older one finishing late must not.
    if (generation === this.generation) this.ready = snapshot;
    return snapshot;
  }
}
