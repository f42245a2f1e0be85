import { randomBytes } from 'node:crypto';
import type { Db } from '../db';
import { isUniqueViolation } from '../repositories/db-types';
import { rolesRepo } from '../repositories/roles.repo';
import { usersRepo } from '../repositories/users.repo';
import { hashPassword, passwordProblem } from '../secrets';
import { ADMIN_ROLE } from './roles.service';

/** The built-in `admin` role always exists; it is the one role that grants management rights. */
export async function ensureBuiltInRoles(db: Db): Promise<void> {
  const existing = await rolesRepo.findByName(db.knex, ADMIN_ROLE);
  if (existing) return;
  try {
    await rolesRepo.insert(db.knex, { name: ADMIN_ROLE, description: 'Manages the gateway', builtIn: true });
  } catch (error) {
    // Another instance starting at the same moment created it first: that is the goal.
    if (!isUniqueViolation(error)) throw error;
  }
}

/**
 * On first start (no user at all) creates `admin` with role `admin`. The password comes from
 * GATEWAY_ADMIN_PASSWORD, else it is generated and returned so the caller prints it once; it is
 * never written anywhere else.
 */
export async function ensureFirstAdmin(
  db: Db,
  options: { password?: string; bcryptCost: number; now: number },
): Promise<{ username: string; generatedPassword: string | null } | null> {
  if ((await usersRepo.count(db.knex)) > 0) return null;
  const given = options.password && options.password.length > 0 ? options.password : undefined;
  if (given) {
    const problem = passwordProblem(given);
    if (problem) throw new Error(`GATEWAY_ADMIN_PASSWORD: ${problem.message}`);
  }
  const password = given ?? randomBytes(18).toString('base64url');
  const admin = await rolesRepo.findByName(db.knex, ADMIN_ROLE);
  const passwordHash = await hashPassword(password, options.bcryptCost);
  try {
    await db.knex.transaction((trx) =>
      usersRepo.insert(trx, {
        username: 'admin',
        displayName: 'Administrator',
        active: true,
        roleIds: admin ? [admin.id] : [],
        passwordHash,
        createdAt: options.now,
      }),
    );
  } catch (error) {
    // Several instances started together on an empty database: the one that won prints its password.
    if (isUniqueViolation(error)) return null;
    throw error;
  }
  return { username: 'admin', generatedPassword: given ? null : password };
}
