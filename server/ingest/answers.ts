import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../contract/errors';
import { capIssues } from '../events/issues';

/** A data-plane answer as stored for idempotent replay: status, body and the headers that matter. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}

export const receiptPath = (base: string, route: string, id: string): string =>
  `/GWENDPOINTAPI/${base}/${route}/receipts/${id}`;

/** 422: the payload is well-formed JSON that the event type refuses; the rejected event is kept. */
export function rejectedAnswer(eventId: string, errors: FieldError[], requestId: string, counted = 0): Answer {
  const listed = capIssues(errors, counted);
  return {
    status: 422,
    body: {
      type: 'urn:gateway:problem:validation_failed',
      title: STATUS_CODES[422],
      status: 422,
      detail:
        (listed.total ?? errors.length) === 1
          ? (errors[0]?.message ?? 'The payload is invalid')
          : `The payload has ${listed.total ?? errors.length} problems`,
      code: 'validation_failed',
      instance: `urn:gateway:request:${requestId}`,
      requestId,
      id: eventId,
      errors: listed.items,
      ...(listed.total === undefined ? {} : { errorCount: listed.total }),
    },
  };
}

/** A 200's `warnings`, capped like errors (SPEC §13): `{warnings, warningCount?}`, or nothing. */
export function warningsOf(warnings: FieldError[]): { warnings?: FieldError[]; warningCount?: number } {
  if (warnings.length === 0) return {};
  const listed = capIssues(warnings);
  return { warnings: listed.items, ...(listed.total === undefined ? {} : { warningCount: listed.total }) };
}
