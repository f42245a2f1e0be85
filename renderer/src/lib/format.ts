/** Display helpers. Instants are shown by `formatDateTime` (gateway-time.svelte.ts), in the gateway's zone. */

/**
 * A calendar day (`YYYY-MM-DD`, an access token's expiry) as the API gives it: the same year-month-day
 * order as every time on screen, and no zone to shift it.
 */
export function formatDate(day: string | null | undefined): string {
  return day || '—';
}

export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3_600);
  const m = Math.floor((seconds % 3_600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min`;
  return `${seconds} s`;
}

export function formatNumber(value: number): string {
  return value.toLocaleString();
}

/** Today as `YYYY-MM-DD` in this computer's time zone (the minimum for an expiry date input). */
export function todayIso(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** A date `days` from today as `YYYY-MM-DD`. */
export function daysFromToday(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Pretty JSON for the inspector; strings that are not JSON objects are shown as they are. */
export function prettyJson(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** "1 route", "3 routes": counts in sentences read naturally. */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
