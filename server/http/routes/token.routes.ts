import type { Context } from 'koa';
import { parseAuthorization, type CredentialVerifier } from '../../auth/credentials';
import { assertNotLockedOut } from '../../auth/guard';
import type { Lockout } from '../../auth/lockout';
import { AppError, validationFailed } from '../../errors';
import type { SessionsService } from '../../services/sessions.service';
import { jsonBodyParser } from '../json-body-parser';

/** `{userName, password}` needs far less; anything larger is not a login. */
const parseLoginBody = jsonBodyParser(16 * 1024);

/**
 * POST /GWENDPOINTAPI/token: a dashboard user's credentials (JSON `{userName, password}` or a
 * Basic header) → an opaque bearer token. Refusals carry OAuth2's `error: "invalid_grant"` and
 * no `WWW-Authenticate` (SPEC §10), and count towards the brute-force lockout.
 */
export function tokenHandler(deps: { verifier: CredentialVerifier; lockout: Lockout; sessions: SessionsService }) {
  return async (ctx: Context): Promise<void> => {
    const ip = ctx.request.ip;
    // Refuse a locked-out address before reading any body.
    assertNotLockedOut(deps.lockout, ip);
    const header = parseAuthorization(ctx.get('Authorization') || undefined);
    let userName: unknown;
    let password: unknown;
    if (header?.scheme === 'basic') {
      ({ username: userName, password } = header);
    } else {
      await parseLoginBody(ctx, () => Promise.resolve());
      const parsed = ctx.request.body as { userName?: unknown; password?: unknown } | undefined;
      userName = parsed?.userName;
      password = parsed?.password;
    }
    if (typeof userName !== 'string' || userName === '' || typeof password !== 'string' || password === '') {
      const error = validationFailed([
        ...(typeof userName === 'string' && userName ? [] : [{ path: '/userName', message: 'userName is required' }]),
        ...(typeof password === 'string' && password ? [] : [{ path: '/password', message: 'password is required' }]),
      ]);
      throw new AppError('validation_failed', error.message, {
        errors: error.errors,
        extra: { error: 'invalid_request' },
      });
    }
    assertNotLockedOut(deps.lockout, ip, userName);
    const verification = await deps.verifier.verifyUserPassword(userName, password);
    if (!verification.ok) {
      deps.lockout.recordFailure(ip, userName);
      throw new AppError('credentials_invalid', 'Unknown user, wrong password or disabled account', {
        extra: { error: 'invalid_grant' },
      });
    }
    ctx.body = await deps.sessions.issue(verification.principal);
    ctx.set('Cache-Control', 'no-store');
  };
}
