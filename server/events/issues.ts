import type { FieldError } from '../contract/errors';

/** Errors or warnings listed per submission; the rest are only counted (SPEC §13). */
export const MAX_LISTED_ISSUES = 100;

/** A list of errors or warnings as answered and stored: at most 100, and the total when more. */
export interface CappedIssues {
  items: FieldError[];
  /** The total, set only when `items` was cut to the cap. */
  total?: number;
}

/**
 * Caps a submission's errors or warnings, so no body can make the gateway answer or store more
 * than a small multiple of itself (a body of `{}{}…` once made an answer far larger than itself;
 * figures: docs/performance.md, P06).
 */
export function capIssues(list: FieldError[], counted = 0): CappedIssues {
  // A validator that stopped listing early (EPCIS) tells its total.
  if (counted > list.length) return { items: list.slice(0, MAX_LISTED_ISSUES), total: counted };
  return list.length > MAX_LISTED_ISSUES
    ? { items: list.slice(0, MAX_LISTED_ISSUES), total: list.length }
    : { items: list };
}

/**
 * The stored form: the plain array when nothing was cut (what every stored row held before the
 * cap), else `{items, total}`.
 */
export function storedIssues(list: FieldError[], counted = 0): string {
  const capped = capIssues(list, counted);
  return JSON.stringify(capped.total === undefined ? capped.items : capped);
}

/** Reads either stored form back; null when there is nothing stored. */
export function readStoredIssues(text: string | null): CappedIssues | null {
  if (text === null) return null;
  const value = JSON.parse(text) as FieldError[] | CappedIssues;
  return Array.isArray(value) ? { items: value } : value;
}
