import type { TlsCertificateInfo } from '../contract/dto';
import type { CallContext, GatewayHandlers } from '../contract/operations';
import type { Db } from '../db';
import { AppError } from '../errors';
import type { AuditService } from './audit.service';
import type { TlsStore } from '../tls/tls-store';

type TlsHandlers = Pick<GatewayHandlers, 'getTls' | 'installTls' | 'regenerateTls'>;

/**
 * The admin operations over the HTTPS certificate (SPEC §12), the same for IPC and HTTP. A new
 * certificate is a management change like any other: it is audited (SPEC §6), by its subject,
 * expiry and fingerprint (public facts), never its key.
 */
export function tlsHandlers(store: TlsStore | undefined, deps: { db: Db; audit: AuditService }): TlsHandlers {
  const need = (): TlsStore => {
    if (!store) throw new AppError('not_found', 'This gateway runs without a data folder for HTTPS certificates');
    return store;
  };
  const audited = async (
    context: CallContext,
    action: 'update' | 'regenerate',
    change: Promise<TlsCertificateInfo>,
  ): Promise<TlsCertificateInfo> => {
    const info = await change;
    const what = action === 'update' ? 'Installed an operator certificate' : 'Generated a self-signed certificate';
    const summary = `${what} for ${info.subject}, valid until ${info.notAfter} (SHA-256 ${info.fingerprintSha256})`;
    await deps.audit.record(deps.db.knex, context, action, 'tls', null, summary);
    return info;
  };
  return {
    getTls: () => need().info(),
    installTls: (input, context) => {
      const body = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
      const change = need().install({ certificatePem: body.certificatePem, privateKeyPem: body.privateKeyPem });
      return audited(context, 'update', change);
    },
    regenerateTls: (_input, context) => audited(context, 'regenerate', need().regenerate()),
  };
}
