import { formatZonedTime, isKnownTimeZone } from '../events/event-text';
import { api } from './api';

/**
 * The gateway's time zone (setting `timeZone`, SPEC §6), in which every screen shows its times:
 * a technician compares them with the readers' clocks and the log, not with this computer's.
 * This computer's zone until the setting is read; read again on every screen change, since
 * another session may change it.
 */
export const gatewayClock = $state({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });
let loading: Promise<void> | null = null;

export function loadGatewayTimeZone(): Promise<void> {
  loading ??= api
    .getSettings(undefined)
    .then((settings) => useGatewayTimeZone(settings.timeZone))
    .catch(() => {
      // Not fatal: the times stay in the zone last read, which they name.
    })
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** After Settings stored a new zone: every time on screen follows at once. */
export function useGatewayTimeZone(timeZone: string): void {
  if (isKnownTimeZone(timeZone)) gatewayClock.timeZone = timeZone;
}

/**
 * The one way a screen shows an instant: `2026-11-24 11:42:07.123 Europe/Berlin`, the wall clock in
 * the gateway's zone, with the zone named (a table that names the zone in its column head shows
 * `formatZonedTime` alone, the same format). '—' when there is none.
 */
export function formatDateTime(iso: string | null | undefined, timeZone: string = gatewayClock.timeZone): string {
  return iso ? `${formatZonedTime(iso, timeZone)} ${timeZone}` : '—';
}
