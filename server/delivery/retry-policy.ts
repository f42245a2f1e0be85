/** SPEC §11: 1 s doubling to 5 min, ±20 % jitter; Retry-After honoured up to an hour. */
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 5 * 60_000;
const JITTER = 0.2;
const MAX_RETRY_AFTER_MS = 60 * 60_000;

/** The wait before attempt `attempt + 1`, after `attempt` failed ones; `random` is in [0, 1). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** A `Retry-After` header (seconds or an HTTP date) as milliseconds from `now`, capped; null if absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** 408, 429 and 5xx are worth another try; any other non-2xx status never will be. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;
