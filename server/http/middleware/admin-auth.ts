import type { Middleware } from 'koa';
import type { CredentialVerifier } from '../../auth/credentials';
import { assertNotLockedOut, authRefusal, failedAuthentication } from '../../auth/guard';
import type { Lockout } from '../../auth/lockout';
import { credentialFromHeader } from '../authorization-header';
import { ADMIN_ROLE } from '../../services/roles.service';

/**
 * The admin API accepts only the live bearer token of an active user with role `admin`. Access
 * tokens never reach it, whatever their role (SPEC §4). Runs before any body is parsed (or, with
 * `Expect: 100-continue`, sent: the body parser invites it).
 */
export function adminAuth(deps: { verifier: CredentialVerifier; lockout: Lockout }): Middleware {
  return async (ctx, next) => {
    const ip = ctx.request.ip;
    const credential = credentialFromHeader(ctx.get('Authorization') || undefined);
    const username = credential.kind === 'basic' ? credential.username : undefined;
    // A username here is a dashboard user's (the admin API is theirs): that namespace's counter.
    const attempt = deps.lockout.attempt({ ip, username, space: 'user' });
    assertNotLockedOut(attempt);
    if (credential.kind === 'none') throw authRefusal('credentials_missing', 'Bearer');
    // Only bearer tokens are checked here (no password): no slot to reserve before the lookup.
    const verification =
      credential.kind === 'token' && credential.bearer ? await deps.verifier.verifyBearer(credential.value) : null;
    if (!verification || !verification.ok)
      throw failedAuthentication(attempt, verification?.code ?? 'credentials_invalid', 'Bearer');
    if (!verification.principal.roles.has(ADMIN_ROLE)) throw authRefusal('forbidden', null);
    ctx.state.actor = `user:${verification.principal.username}`;
    await next();
  };
}
