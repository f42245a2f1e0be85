import { fail, ok } from './types';
import type { Validation } from './types';

export const NOT_A_DOCUMENT = 'AllData requires a JSON object or array, not a scalar or null';

/**
 * AllData takes any JSON object or array and stores it exactly as received, so the value is
 * returned untouched (same reference). A bare scalar or null is refused: there is nothing to
 * list or filter, and a stray `"ok"` or `42` is almost always a misconfigured client.
 */
export function validateAllData(json: unknown): Validation<unknown> {
  if (typeof json === 'object' && json !== null) return ok(json);
  return fail([{ path: '', message: NOT_A_DOCUMENT }]);
}
