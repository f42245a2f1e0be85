import type { ExternalUser } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import { AppError, notFound, validationFailed } from '../errors';
import { isUniqueViolation, nameKey, type Queryable } from '../repositories/db-types';
import { endpointsRepo } from '../repositories/endpoints.repo';
import { externalUsersRepo, type ExternalUserRecord } from '../repositories/external-users.repo';
import { hashPassword } from '../secrets';
import { parseInput, readId } from '../validation';
import type { ReadOf } from '../contract/schema';
import { EXTERNAL_USER_CREATE_INPUT, EXTERNAL_USER_UPDATE_INPUT } from '../contract/schemas';
import type { ServiceDeps } from './service-deps';

const toDto = (user: ExternalUserRecord): ExternalUser => ({
  id: user.id,
  firstName: user.firstName,
  lastName: user.lastName,
  username: user.username,
  routes: user.routes,
  active: user.active,
});

const usernameTaken = (username: string) =>
  new AppError('username_taken', `The username "${username}" is already used`, {
    errors: [{ path: '/username', message: 'This username is already used' }],
  });

/** Creating needs a password and at least one route; an update keeps an omitted password. */
export function readExternalUser(input: unknown, creating: boolean): ReadOf<typeof EXTERNAL_USER_UPDATE_INPUT> {
  return creating ? parseInput(EXTERNAL_USER_CREATE_INPUT, input) : parseInput(EXTERNAL_USER_UPDATE_INPUT, input);
}

/** External users may only hold routes whose Auth Type is basic (SPEC §3). */
async function resolveBasicRoutes(db: Queryable, names: string[]): Promise<number[]> {
  const byName = new Map(
    (await endpointsRepo.list(db)).flatMap((endpoint) => endpoint.routes).map((route) => [nameKey(route.name), route]),
  );
  const errors: { path: string; message: string }[] = [];
  const ids = names.map((name, index) => {
    const route = byName.get(nameKey(name));
    if (!route) errors.push({ path: `/routes/${index}`, message: `Route "${name}" does not exist` });
    else if (route.authType !== 'basic')
      errors.push({ path: `/routes/${index}`, message: `Route "${name}" does not use basic authentication` });
    return route?.id ?? 0;
  });
  if (errors.length > 0) throw validationFailed(errors);
  return [...new Set(ids)];
}

export function createExternalUsersService(deps: ServiceDeps) {
  const { db } = deps;
  const cost = () => deps.settings.current().bcryptCost;

  async function getExternalUser(input: unknown): Promise<ExternalUser> {
    const user = await externalUsersRepo.findById(db.knex, readId(input, 'External user'));
    if (!user) throw notFound('External user');
    return toDto(user);
  }

  return {
    listExternalUsers: async (): Promise<ExternalUser[]> => (await externalUsersRepo.list(db.knex)).map(toDto),
    getExternalUser,

    async createExternalUser(input: unknown, context: CallContext): Promise<ExternalUser> {
      const user = readExternalUser(input, true);
      const passwordHash = await hashPassword(user.password ?? '', cost());
      const id = await db.knex
        .transaction(async (trx) => {
          const routeIds = await resolveBasicRoutes(trx, user.routes);
          if (await externalUsersRepo.usernameTaken(trx, user.username)) throw usernameTaken(user.username);
          const newId = await externalUsersRepo.insert(trx, { ...user, routeIds, passwordHash, createdAt: deps.now() });
          await deps.audit.record(
            trx,
            context,
            'create',
            'external-users',
            newId,
            `Created external user ${user.username}`,
          );
          return newId;
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? usernameTaken(user.username) : error;
        });
      deps.changes.publish('externalUsers');
      return getExternalUser({ id });
    },

    async updateExternalUser(input: unknown, context: CallContext): Promise<ExternalUser> {
      const id = readId(input, 'External user');
      const user = readExternalUser(input, false);
      const passwordHash = user.password ? await hashPassword(user.password, cost()) : undefined;
      await db.knex
        .transaction(async (trx) => {
          if (!(await externalUsersRepo.findById(trx, id))) throw notFound('External user');
          const routeIds = await resolveBasicRoutes(trx, user.routes);
          if (await externalUsersRepo.usernameTaken(trx, user.username, id)) throw usernameTaken(user.username);
          await externalUsersRepo.update(trx, id, { ...user, routeIds, passwordHash });
          await deps.audit.record(
            trx,
            context,
            'update',
            'external-users',
            id,
            `Updated external user ${user.username}${user.active ? '' : ' (disabled)'}`,
          );
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? usernameTaken(user.username) : error;
        });
      deps.changes.publish('externalUsers');
      return getExternalUser({ id });
    },

    async deleteExternalUser(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'External user');
      await db.knex.transaction(async (trx) => {
        const existing = await externalUsersRepo.findById(trx, id);
        if (!existing) throw notFound('External user');
        await externalUsersRepo.delete(trx, id);
        await deps.audit.record(
          trx,
          context,
          'delete',
          'external-users',
          id,
          `Deleted external user ${existing.username}`,
        );
      });
      deps.changes.publish('externalUsers');
    },
  };
}
