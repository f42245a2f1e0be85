import type { Reader } from '../../../server/contract/dto';

/**
 * The Readers screen's words (SPEC §16), as plain functions: the screen, the dashboard and the
 * unit tests agree on them.
 */

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago"; "just now" under a second. */
export function timeAgo(iso: string | null, now: number): string {
  if (!iso) return 'never';
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (seconds < 1) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86_400)} d ago`;
}

/** The name a technician gave the reader, else its id. */
export const readerLabel = (reader: Pick<Reader, 'name' | 'readerId'>): string => reader.name ?? reader.readerId;

/** An antenna's state in words (its dot's text for screen readers). */
export function antennaWords(antenna: Reader['antennas'][number]): string {
  const state =
    antenna.connected === false ? 'disconnected' : antenna.connected === true ? 'connected' : 'state unknown';
  return `Antenna ${antenna.antenna}: ${state}, ${antenna.readsLastMinute} reads in the last minute`;
}

/** The dashboard's warning while readers are silent. */
export function silentReadersWarning(silent: number): string | null {
  if (silent === 0) return null;
  return silent === 1
    ? 'One reader is silent: it has not been heard from within its threshold. See Readers.'
    : `${silent} readers are silent: they have not been heard from within their threshold. See Readers.`;
}

/** The health members in words, in a fixed order (only those the reader sent). */
export function healthLines(health: Reader['health']): { label: string; value: string }[] {
  if (!health) return [];
  const lines: { label: string; value: string }[] = [];
  const add = (label: string, value: number | string | undefined, unit = '') => {
    if (value !== undefined) lines.push({ label, value: `${value}${unit}` });
  };
  add('CPU', health.cpuPercent, ' %');
  add('RAM used', health.ramUsedPercent, ' %');
  add('Temperature', health.temperatureC, ' °C');
  add('NTP offset', health.ntpOffsetMs, ' ms');
  add('Dropped by the reader', health.droppedByReader);
  add('Retained by the reader', health.retainedByReader);
  add('Inventory', health.inventoryStatus);
  return lines;
}
