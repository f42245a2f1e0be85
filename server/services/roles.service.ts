import type { Role } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import { AppError, notFound } from '../errors';
import { isUniqueViolation } from '../repositories/db-types';
import { rolesRepo, type RoleRecord } from '../repositories/roles.repo';
import { parseInput, readId } from '../validation';
import { ROLE_INPUT } from '../contract/schemas';
import type { ServiceDeps } from './service-deps';

export const ADMIN_ROLE = 'admin';
export { ROLE_NAME } from '../contract/schemas';

const toDto = (role: RoleRecord): Role => ({ ...role });

export const readRole = (input: unknown): { name: string; description: string } => parseInput(ROLE_INPUT, input);

const nameTaken = (name: string) =>
  new AppError('role_name_taken', `A role named "${name}" already exists`, {
    errors: [{ path: '/name', message: 'This role name is already used' }],
  });

export function createRolesService(deps: ServiceDeps) {
  const { db } = deps;

  async function getRole(input: unknown): Promise<Role> {
    const role = await rolesRepo.findById(db.knex, readId(input, 'Role'));
    if (!role) throw notFound('Role');
    return toDto(role);
  }

  return {
    listRoles: async (): Promise<Role[]> => (await rolesRepo.list(db.knex)).map(toDto),
    getRole,

    async createRole(input: unknown, context: CallContext): Promise<Role> {
      const role = readRole(input);
      const id = await db.knex
        .transaction(async (trx) => {
          if (await rolesRepo.findByName(trx, role.name)) throw nameTaken(role.name);
          const newId = await rolesRepo.insert(trx, { ...role, builtIn: false });
          await deps.audit.record(trx, context, 'create', 'roles', newId, `Created role ${role.name}`);
          return newId;
        })
        .catch(rethrowUnique(role.name));
      deps.changes.publish('roles');
      return getRole({ id });
    },

    async updateRole(input: unknown, context: CallContext): Promise<Role> {
      const id = readId(input, 'Role');
      const role = readRole(input);
      await db.knex
        .transaction(async (trx) => {
          const existing = await rolesRepo.findById(trx, id);
          if (!existing) throw notFound('Role');
          if (existing.builtIn && existing.name !== role.name) {
            throw new AppError('role_builtin', `The built-in role "${existing.name}" cannot be renamed`);
          }
          const clash = await rolesRepo.findByName(trx, role.name);
          if (clash && clash.id !== id) throw nameTaken(role.name);
          await rolesRepo.update(trx, id, role);
          await deps.audit.record(trx, context, 'update', 'roles', id, `Updated role ${role.name}`);
        })
        .catch(rethrowUnique(role.name));
      deps.changes.publish('roles');
      return getRole({ id });
    },

    async deleteRole(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'Role');
      await db.knex.transaction(async (trx) => {
        const existing = await rolesRepo.findById(trx, id);
        if (!existing) throw notFound('Role');
        if (existing.builtIn)
          throw new AppError('role_builtin', `The built-in role "${existing.name}" cannot be deleted`);
        const references = await rolesRepo.references(trx, id);
        if (references.length > 0) {
          throw new AppError(
            'role_in_use',
            `Role "${existing.name}" is still used by ${references.length} route(s), user(s) or access token(s)`,
            {
              references,
            },
          );
        }
        await rolesRepo.delete(trx, id);
        await deps.audit.record(trx, context, 'delete', 'roles', id, `Deleted role ${existing.name}`);
      });
      deps.changes.publish('roles');
    },
  };
}

function rethrowUnique(name: string) {
  return (error: unknown): never => {
    throw isUniqueViolation(error) ? nameTaken(name) : error;
  };
}
