import type { User } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import { AppError, notFound, validationFailed } from '../errors';
import { bearerTokensRepo } from '../repositories/bearer-tokens.repo';
import { isUniqueViolation, nameKey, type Queryable } from '../repositories/db-types';
import { rolesRepo } from '../repositories/roles.repo';
import { usersRepo, type UserRecord } from '../repositories/users.repo';
import { hashPassword } from '../secrets';
import { iso } from '../time';
import { parseInput, readId } from '../validation';
import type { ReadOf } from '../contract/schema';
import { USER_CREATE_INPUT, USER_UPDATE_INPUT } from '../contract/schemas';
import { ADMIN_ROLE } from './roles.service';
import type { ServiceDeps } from './service-deps';

export { USERNAME } from '../contract/schemas';

const toDto = (user: UserRecord): User => ({
  id: user.id,
  username: user.username,
  displayName: user.displayName,
  roles: user.roles,
  active: user.active,
  createdAt: iso(user.createdAt),
});

const usernameTaken = (username: string) =>
  new AppError('username_taken', `The username "${username}" is already used`, {
    errors: [{ path: '/username', message: 'This username is already used' }],
  });

/** The create schema requires a password; the update schema keeps the current one when it is omitted. */
export function readUser(input: unknown, passwordRequired: boolean): ReadOf<typeof USER_UPDATE_INPUT> {
  return passwordRequired ? parseInput(USER_CREATE_INPUT, input) : parseInput(USER_UPDATE_INPUT, input);
}

/** Role names → ids, or 400 naming each unknown role at its index. */
async function resolveRoles(db: Queryable, names: string[]): Promise<number[]> {
  const roles = await rolesRepo.findByNames(db, names);
  const errors = names.flatMap((name, index) =>
    roles.has(nameKey(name)) ? [] : [{ path: `/roles/${index}`, message: `Role "${name}" does not exist` }],
  );
  if (errors.length > 0) throw validationFailed(errors);
  return [...new Set(names.map((name) => roles.get(nameKey(name))?.id ?? 0))];
}

const holdsAdmin = (roles: string[]) => roles.some((name) => nameKey(name) === ADMIN_ROLE);

const lastAdmin = (username: string, what: string) =>
  new AppError(
    'last_admin',
    `"${username}" is the last active administrator and cannot ${what}: give another active user the "${ADMIN_ROLE}" role first`,
  );

/**
 * SPEC §14: the last active user holding `admin` keeps it, stays active and is not deleted, or
 * nobody could sign in to the web admin again. `after` is null when the user is being deleted.
 */
async function keepAnAdmin(
  trx: Queryable,
  existing: UserRecord,
  after: { active: boolean; roles: string[] } | null,
): Promise<void> {
  if (!existing.active || !holdsAdmin(existing.roles)) return;
  if (after && after.active && holdsAdmin(after.roles)) return;
  const admins = await usersRepo.activeIdsWithRole(trx, ADMIN_ROLE);
  if (admins.some((id) => id !== existing.id)) return;
  const what = !after ? 'be deleted' : !after.active ? 'be deactivated' : `lose the "${ADMIN_ROLE}" role`;
  throw lastAdmin(existing.username, what);
}

export function createUsersService(deps: ServiceDeps) {
  const { db } = deps;
  const cost = () => deps.settings.current().bcryptCost;

  async function getUser(input: unknown): Promise<User> {
    const user = await usersRepo.findById(db.knex, readId(input, 'User'));
    if (!user) throw notFound('User');
    return toDto(user);
  }

  return {
    listUsers: async (): Promise<User[]> => (await usersRepo.list(db.knex)).map(toDto),
    getUser,

    async createUser(input: unknown, context: CallContext): Promise<User> {
      const user = readUser(input, true);
      // Hash outside the transaction: bcrypt takes tens of ms and must not hold the writer.
      const passwordHash = await hashPassword(user.password ?? '', cost());
      const id = await db.knex
        .transaction(async (trx) => {
          const roleIds = await resolveRoles(trx, user.roles);
          if (await usersRepo.usernameTaken(trx, user.username)) throw usernameTaken(user.username);
          const newId = await usersRepo.insert(trx, { ...user, roleIds, passwordHash, createdAt: deps.now() });
          await deps.audit.record(trx, context, 'create', 'users', newId, `Created user ${user.username}`);
          return newId;
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? usernameTaken(user.username) : error;
        });
      deps.changes.publish('users');
      return getUser({ id });
    },

    async updateUser(input: unknown, context: CallContext): Promise<User> {
      const id = readId(input, 'User');
      const user = readUser(input, false);
      const passwordHash = user.password ? await hashPassword(user.password, cost()) : undefined;
      await db.knex
        .transaction(async (trx) => {
          const existing = await usersRepo.findById(trx, id);
          if (!existing) throw notFound('User');
          const roleIds = await resolveRoles(trx, user.roles);
          await keepAnAdmin(trx, existing, user);
          if (await usersRepo.usernameTaken(trx, user.username, id)) throw usernameTaken(user.username);
          await usersRepo.update(trx, id, { ...user, roleIds, passwordHash });
          // A new password or a disabled account ends every session of that user at once.
          if (passwordHash || !user.active) await bearerTokensRepo.deleteForUser(trx, id);
          const what = [passwordHash ? 'password changed' : '', user.active ? '' : 'disabled']
            .filter(Boolean)
            .join(', ');
          await deps.audit.record(
            trx,
            context,
            'update',
            'users',
            id,
            `Updated user ${user.username}${what ? ` (${what})` : ''}`,
          );
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? usernameTaken(user.username) : error;
        });
      deps.changes.publish('users', 'sessions');
      return getUser({ id });
    },

    async deleteUser(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'User');
      await db.knex.transaction(async (trx) => {
        const existing = await usersRepo.findById(trx, id);
        if (!existing) throw notFound('User');
        await keepAnAdmin(trx, existing, null);
        await usersRepo.delete(trx, id);
        await deps.audit.record(trx, context, 'delete', 'users', id, `Deleted user ${existing.username}`);
      });
      deps.changes.publish('users', 'sessions');
    },
  };
}
