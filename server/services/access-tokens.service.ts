import type { AccessToken, AccessTokenWithValue } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import { AppError, notFound, validationFailed } from '../errors';
import { accessTokensRepo, type AccessTokenRecord } from '../repositories/access-tokens.repo';
import { isUniqueViolation } from '../repositories/db-types';
import { rolesRepo } from '../repositories/roles.repo';
import { generateToken, sha256Hex } from '../secrets';
import { daysBetween, expiryInstant, iso, parseDate, todayIn } from '../time';
import { readId, readInput } from '../validation';
import { ACCESS_TOKEN_INPUT } from '../contract/schemas';
import type { ServiceDeps } from './service-deps';

/** Expiry is computed at every check from the stored date and the *current* time zone setting. */
export function tokenValidity(expiryDate: string, timeZone: string, now: number) {
  const active = now < expiryInstant(expiryDate, timeZone);
  return {
    status: active ? ('Active' as const) : ('Expired' as const),
    expiryInDays: daysBetween(todayIn(timeZone, now), expiryDate),
  };
}

const nameTaken = (name: string) =>
  new AppError('token_name_taken', `An access token named "${name}" already exists`, {
    errors: [{ path: '/name', message: 'This token name is already used' }],
  });

export function createAccessTokensService(deps: ServiceDeps) {
  const { db } = deps;

  const toDto = (token: AccessTokenRecord): AccessToken => ({
    id: token.id,
    name: token.name,
    role: token.role,
    expiryDate: token.expiryDate,
    description: token.description,
    createdDate: iso(token.createdAt),
    ...tokenValidity(token.expiryDate, deps.settings.current().timeZone, deps.now()),
  });

  async function load(id: number): Promise<AccessTokenRecord> {
    const token = await accessTokensRepo.findById(db.knex, id);
    if (!token) throw notFound('Access token');
    return token;
  }

  return {
    listAccessTokens: async (): Promise<AccessToken[]> => (await accessTokensRepo.list(db.knex)).map(toDto),
    getAccessToken: async (input: unknown): Promise<AccessToken> => toDto(await load(readId(input, 'Access token'))),

    async createAccessToken(input: unknown, context: CallContext): Promise<AccessTokenWithValue> {
      const { value, errors } = readInput(ACCESS_TOKEN_INPUT, input);
      const { name, role: roleName, expiryDate, description } = value;
      // The date rules need the time zone setting, so they follow the schema's.
      const zone = deps.settings.current().timeZone;
      if (expiryDate && !parseDate(expiryDate))
        errors.push({ path: '/expiryDate', message: 'Expiry Date must be a calendar date written YYYY-MM-DD' });
      else if (expiryDate && expiryDate < todayIn(zone, deps.now()))
        errors.push({ path: '/expiryDate', message: 'Expiry Date must be today or later' });
      if (errors.length > 0) throw validationFailed(errors);

      const token = generateToken('gwat_');
      const id = await db.knex
        .transaction(async (trx) => {
          const role = await rolesRepo.findByName(trx, roleName);
          if (!role) throw validationFailed([{ path: '/role', message: `Role "${roleName}" does not exist` }]);
          if (await accessTokensRepo.nameTaken(trx, name)) throw nameTaken(name);
          const newId = await accessTokensRepo.insert(trx, {
            name,
            roleId: role.id,
            expiryDate,
            description,
            tokenHash: sha256Hex(token),
            createdAt: deps.now(),
          });
          await deps.audit.record(
            trx,
            context,
            'create',
            'access-tokens',
            newId,
            `Created access token ${name} for role ${role.name}`,
          );
          return newId;
        })
        .catch((error: unknown) => {
          throw isUniqueViolation(error) ? nameTaken(name) : error;
        });
      deps.changes.publish('accessTokens');
      return { ...toDto(await load(id)), token };
    },

    async regenerateAccessToken(input: unknown, context: CallContext): Promise<AccessTokenWithValue> {
      const id = readId(input, 'Access token');
      const token = generateToken('gwat_');
      await db.knex.transaction(async (trx) => {
        const existing = await accessTokensRepo.findById(trx, id);
        if (!existing) throw notFound('Access token');
        if (tokenValidity(existing.expiryDate, deps.settings.current().timeZone, deps.now()).status === 'Expired') {
          // A conflict with the token's state (409), not a failed authentication (401).
          throw new AppError(
            'token_expired',
            `Access token "${existing.name}" has expired and can no longer be regenerated`,
            {
              status: 409,
            },
          );
        }
        // Same role and expiry; only the value changes, and the old value dies with this commit.
        await accessTokensRepo.replaceHash(trx, id, sha256Hex(token));
        await deps.audit.record(
          trx,
          context,
          'regenerate',
          'access-tokens',
          id,
          `Regenerated access token ${existing.name}`,
        );
      });
      deps.changes.publish('accessTokens');
      return { ...toDto(await load(id)), token };
    },

    async deleteAccessToken(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'Access token');
      await db.knex.transaction(async (trx) => {
        const existing = await accessTokensRepo.findById(trx, id);
        if (!existing) throw notFound('Access token');
        await accessTokensRepo.delete(trx, id);
        await deps.audit.record(trx, context, 'delete', 'access-tokens', id, `Deleted access token ${existing.name}`);
      });
      deps.changes.publish('accessTokens');
    },
  };
}
