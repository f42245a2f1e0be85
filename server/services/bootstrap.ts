import { randomBytes } from 'node:crypto';
import type { Db } from '../db';
import type { Logger } from '../logger';
import { isUniqueViolation } from '../repositories/db-types';
import { destinationsRepo } from '../repositories/destinations.repo';
import { rolesRepo } from '../repositories/roles.repo';
import { usersRepo } from '../repositories/users.repo';
import type { SecretBox } from '../secret-box';
import { hashPassword, passwordProblem } from '../secrets';
import { ADMIN_ROLE } from './roles.service';

const FIRST_ADMIN = 'admin';

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
 * Creates the first admin, `admin` with role `admin`, when no user holds the admin role (on a
 * first start no user exists at all). The password comes from GATEWAY_ADMIN_PASSWORD, else it
 * is generated and returned so the caller prints it once; it is never written anywhere else.
 *
 * Only the long-running gateway (`serve`, the desktop) calls this, because only it shows the
 * password to someone; the one-shot commands never create the admin. That is why the test is
 * "no admin" rather than "no user": a `gateway user add` before the first `serve` must not leave
 * a gateway nobody can manage, while a user added with `--role admin` is the operator's own
 * first admin, and then none is created.
 */
export async function ensureFirstAdmin(
  db: Db,
  options: { password?: string; bcryptCost: number; now: number; logger?: Logger },
): Promise<{ username: string; generatedPassword: string | null } | null> {
  const adminRole = await rolesRepo.findByName(db.knex, ADMIN_ROLE);
  if (!adminRole || (await usersRepo.anyWithRole(db.knex, adminRole.id))) return null;
  if (await usersRepo.usernameTaken(db.knex, FIRST_ADMIN)) {
    // Someone made "admin" an ordinary user on purpose: leave it alone, but say how to recover.
    options.logger?.warn('no user holds the admin role; add one with "gateway user add --role admin"');
    return null;
  }
  const given = options.password && options.password.length > 0 ? options.password : undefined;
  if (given) {
    const problem = passwordProblem(given);
    if (problem) throw new Error(`GATEWAY_ADMIN_PASSWORD: ${problem.message}`);
  }
  const password = given ?? randomBytes(18).toString('base64url');
  const passwordHash = await hashPassword(password, options.bcryptCost);
  try {
    await db.knex.transaction((trx) =>
      usersRepo.insert(trx, {
        username: FIRST_ADMIN,
        displayName: 'Administrator',
        active: true,
        roleIds: [adminRole.id],
        passwordHash,
        createdAt: options.now,
      }),
    );
  } catch (error) {
    // Several instances started together on an empty database: the one that won prints its password.
    if (isUniqueViolation(error)) return null;
    throw error;
  }
  return { username: FIRST_ADMIN, generatedPassword: given ? null : password };
}

/**
 * Seals the destination credentials still stored in clear (written before sealing existed, issue
 * 38), at every start, before any sender reads them: a migration cannot do it, since migrations
 * never see the data folder's key. Each row is replaced only if it is still the clear value read,
 * so instances starting together seal it once. Credentials sealed with another key are counted
 * and logged: their destinations fail until the key is given back or the secret entered again.
 */
export async function sealDestinationSecrets(
  db: Db,
  box: SecretBox,
  logger?: Logger,
): Promise<{ sealed: number; otherKey: number }> {
  let sealed = 0;
  let otherKey = 0;
  for (const { id, secret } of await destinationsRepo.secrets(db.knex)) {
    const keyId = box.keyIdOf(secret);
    if (keyId === null) {
      if (await destinationsRepo.replaceSecret(db.knex, id, secret, box.seal(secret))) sealed++;
    } else if (keyId !== box.keyId) otherKey++;
  }
  if (sealed > 0) logger?.info('destination secrets sealed', { sealed, keyId: box.keyId });
  if (otherKey > 0)
    logger?.error('destination secrets sealed with another key', {
      destinations: otherKey,
      keyId: box.keyId,
      hint: 'give this gateway the secret.key (or GATEWAY_SECRET_KEY) they were saved with, or enter them again',
    });
  return { sealed, otherKey };
}
