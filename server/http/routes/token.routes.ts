import type { Context } from 'koa';
import type { CredentialVerifier } from '../../auth/credentials';
import { credentialFromHeader } from '../authorization-header';
import { assertNotLockedOut, lockedOut } from '../../auth/guard';
import type { Lockout } from '../../auth/lockout';
import { AppError } from '../../errors';
import type { FieldError } from '../../contract/errors';
import type { SessionsService } from '../../auth/sessions.service';
import { jsonBodyParser } from '../json-body-parser';

/** `{userName, password}` (or its form) needs far less; anything larger is not a login. */
const parseLoginBody = jsonBodyParser(16 * 1024, { form: true });

/** OAuth2's answers are never cached (RFC 6749 §5.1): both headers, for HTTP/1.0 caches too. */
function noStore(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

/** A /token refusal: the gateway's problem body plus OAuth2's `error` and `error_description`. */
function oauthError(
  code: 'validation_failed' | 'credentials_invalid',
  error: 'invalid_request' | 'invalid_grant' | 'unsupported_grant_type',
  description: string,
  errors?: FieldError[],
): AppError {
  return new AppError(code, description, { errors, extra: { error, error_description: description } });
}

/** The body's fields as strings (JSON `{userName}` or the form's `username`), else undefined. */
function loginFields(body: unknown): { userName: unknown; password: unknown; grantType: unknown } {
  const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return { userName: fields.userName ?? fields.username, password: fields.password, grantType: fields.grant_type };
}

/**
 * POST /GWENDPOINTAPI/token: a dashboard user's credentials → an opaque bearer token. Accepted as
 * JSON `{userName, password}`, as RFC 6749 §4.3's form (`grant_type=password&username=…&password=…`)
 * or as a Basic header. Refusals carry OAuth2's `error` (`invalid_grant` for wrong credentials) and
 * `error_description`, and no `WWW-Authenticate` (SPEC §10); failures count towards the lockout,
 * and a password is checked only with a lockout slot taken first (SPEC §13).
 */
export function tokenHandler(deps: { verifier: CredentialVerifier; lockout: Lockout; sessions: SessionsService }) {
  return async (ctx: Context): Promise<void> => {
    noStore(ctx);
    const ip = ctx.request.ip;
    // Refuse a locked-out address before reading any body.
    assertNotLockedOut(deps.lockout.attempt({ ip, space: 'user' }));
    const header = credentialFromHeader(ctx.get('Authorization') || undefined);
    let userName: unknown;
    let password: unknown;
    if (header.kind === 'basic') {
      ({ username: userName, password } = header);
    } else {
      await parseLoginBody(ctx, () => Promise.resolve());
      const fields = loginFields(ctx.request.body);
      ({ userName, password } = fields);
      // A form is OAuth2's request, where grant_type is required; JSON may leave it out.
      const form = typeof ctx.is('urlencoded') === 'string';
      if ((form || fields.grantType !== undefined) && fields.grantType !== 'password') {
        throw oauthError(
          'validation_failed',
          fields.grantType === undefined ? 'invalid_request' : 'unsupported_grant_type',
          'grant_type must be "password"',
          [{ path: '/grant_type', message: 'grant_type must be "password"' }],
        );
      }
    }
    if (typeof userName !== 'string' || userName === '' || typeof password !== 'string' || password === '') {
      const errors = [
        ...(typeof userName === 'string' && userName ? [] : [{ path: '/userName', message: 'userName is required' }]),
        ...(typeof password === 'string' && password ? [] : [{ path: '/password', message: 'password is required' }]),
      ];
      throw oauthError('validation_failed', 'invalid_request', errors.map((e) => e.message).join('; '), errors);
    }
    const attempt = deps.lockout.attempt({ ip, username: userName, space: 'user' });
    assertNotLockedOut(attempt);
    try {
      const verification = await deps.verifier.verifyUserPassword(userName, password, attempt);
      if (!verification.ok) {
        if (verification.code === 'too_many_failures') throw lockedOut(verification.retryAfter);
        const lockedFor = attempt.fail();
        if (lockedFor > 0) throw lockedOut(lockedFor);
        throw oauthError('credentials_invalid', 'invalid_grant', 'Unknown user, wrong password or disabled account');
      }
      ctx.body = await deps.sessions.issue(verification.principal);
    } finally {
      attempt.done();
    }
  };
}

/** Everything a revocation request may hold: RFC 7009's form, or JSON `{token}`. */
const parseRevokeBody = jsonBodyParser(16 * 1024, { form: true });

/**
 * POST /GWENDPOINTAPI/token/revoke (RFC 7009, SPEC §13): ends a bearer token. 200 whether or not
 * the token was known, so the answer tells nothing about it; the screens call it on sign-out.
 */
export function revokeHandler(deps: { sessions: SessionsService }) {
  return async (ctx: Context): Promise<void> => {
    noStore(ctx);
    await parseRevokeBody(ctx, () => Promise.resolve());
    const token = (ctx.request.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token === '') {
      throw oauthError('validation_failed', 'invalid_request', 'token is required', [
        { path: '/token', message: 'token is required' },
      ]);
    }
    await deps.sessions.revoke(token);
    ctx.status = 200;
    ctx.body = {};
  };
}
