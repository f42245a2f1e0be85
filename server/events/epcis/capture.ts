import type { FieldError } from '../../contract/errors';
import type { CaptureBehaviour } from '../processor';
import { ok, type Validation } from '../types';
import { validateEpcis, type EpcisInput, type EpcisOptions } from './index';
import { isArray, isRecord } from './util';

const EVENT_LIST = '/epcisBody/eventList';

/** `path` of an error found in a one-event copy of the document, as a path into the original at `index`. */
const atIndex = (issue: FieldError, index: number): FieldError =>
  issue.path === `${EVENT_LIST}/0` || issue.path.startsWith(`${EVENT_LIST}/0/`)
    ? { ...issue, path: `${EVENT_LIST}/${index}${issue.path.slice(EVENT_LIST.length + 2)}` }
    : issue;

/**
 * An EPCIS capture's validation (SPEC §17). `rollback` is the route's own validation: one invalid
 * event refuses the document. `proceed` refuses only the invalid events: each event is checked in
 * a copy of the document holding it alone, and the valid ones go on with the refused ones' errors
 * in `refused`. Errors outside the events (the header, the body's shape) still refuse it whole.
 */
export function validateCapture(
  json: unknown,
  options: EpcisOptions,
  behaviour: CaptureBehaviour,
): Validation<EpcisInput> {
  const whole = validateEpcis(json, options);
  if (whole.ok || behaviour === 'rollback') return whole;
  if (!isRecord(json) || !isRecord(json.epcisBody) || !isArray(json.epcisBody.eventList)) return whole;
  const body = json.epcisBody;
  const list = json.epcisBody.eventList;
  const withEvents = (eventList: unknown[]) => ({ ...json, epcisBody: { ...body, eventList } });
  const shell = validateEpcis(withEvents([]), options);
  if (!shell.ok) return whole;
  const kept: EpcisInput = { ...shell.value, events: [], eventPaths: [], refused: [] };
  const warnings: FieldError[] = [...shell.warnings];
  list.forEach((event, index) => {
    const one = validateEpcis(withEvents([event]), options);
    if (!one.ok) {
      kept.refused?.push(...one.errors.map((issue) => atIndex(issue, index)));
      return;
    }
    const [valid] = one.value.events;
    if (valid) {
      kept.events.push(valid);
      kept.eventPaths.push(`${EVENT_LIST}/${index}`);
    }
    warnings.push(...one.warnings.map((issue) => atIndex(issue, index)));
  });
  return ok(kept, warnings);
}
