import type { Settings } from '../../../server/contract/dto';

/**
 * Whether the admin answers plain HTTP from other machines: HTTP is served (not only redirected),
 * the admin is open to the LAN, and the bind address is not loopback.
 */
export function adminExposedInClear(settings: Pick<Settings, 'tlsMode' | 'adminAccess' | 'host'>): boolean {
  const loopback = settings.host === 'localhost' || settings.host === '::1' || settings.host.startsWith('127.');
  return settings.tlsMode !== 'on' && settings.adminAccess === 'lan' && !loopback;
}
