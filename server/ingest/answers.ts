import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../contract/errors';

/** A data-plane answer as stored for idempotent replay: status, body and the headers that matter. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}

export const receiptPath = (base: string, route: string, id: string): string =>
  `/GWENDPOINTAPI/${base}/${route}/receipts/${id}`;

/** 422: the payload is well-formed JSON that the event type refuses; the rejected event is kept. */
export function rejectedAnswer(eventId: string, errors: FieldError[], requestId: string): Answer {
  return {
    status: 422,
    body: {
      type: 'urn:gateway:problem:validation_failed',
      title: STATUS_CODES[422],
      status: 422,
      detail:
        errors.length === 1
          ? (errors[0]?.message ?? 'The payload is invalid')
          : `The payload has ${errors.length} problems`,
      code: 'validation_failed',
      instance: `urn:gateway:request:${requestId}`,
      requestId,
      id: eventId,
      errors,
    },
  };
}
