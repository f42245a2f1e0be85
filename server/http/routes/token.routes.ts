import type { Context } from 'koa';
import bodyParser from 'koa-bodyparser';
import { parseAuthorization, type CredentialVerifier } from '../../auth/credentials';
import { assertNotLockedOut } from '../../auth/guard';
import type { Lockout } from '../../auth/lockout';
import { AppError, validationFailed } from '../../errors';
import type { SessionsService } from '../../services/sessions.service';
import { continueIfAwaited } from '../expect-continue';

const LOGIN_BODY_LIMIT = '16kb';

const parseLoginBody = bodyParser({
  enableTypes: ['json'],
  jsonLimit: LOGIN_BODY_LIMIT,
  onerror: (error: Error & { status?: number }, ctx: Context) => {
    if (error.status === 413) {
      // Refused unread when Content-Length says so: close rather than drain what is coming.
      ctx.set('Connection', 'close');
      throw new AppError('payload_too_large', `A login body is at most ${LOGIN_BODY_LIMIT}`);
    }
    throw new AppError('invalid_json', 'The request body is not valid JSON');
  },
});

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
      continueIfAwaited(ctx.req, ctx.res);
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
