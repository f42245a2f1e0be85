import type { GatewayHandlers } from '../contract/operations';
import { AppError } from '../errors';
import type { TlsStore } from './tls-store';

type TlsHandlers = Pick<GatewayHandlers, 'getTls' | 'installTls' | 'regenerateTls'>;

/** The admin operations over the HTTPS certificate (SPEC §12), the same for IPC and HTTP. */
export function tlsHandlers(store: TlsStore | undefined): TlsHandlers {
  const need = (): TlsStore => {
    if (!store) throw new AppError('not_found', 'This gateway runs without a data folder for HTTPS certificates');
    return store;
  };
  return {
    getTls: () => need().info(),
    installTls: (input) => {
      const body = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
      return need().install({ certificatePem: body.certificatePem, privateKeyPem: body.privateKeyPem });
    },
    regenerateTls: () => need().regenerate(),
  };
}
