import { AppError } from '../../errors';
import { routePathOf } from '../../contract/paths';
import { requestMembers } from '../middleware/problems';
import type { IntakeOutcome, StoredOutcome } from '../../intake/outcome';
import type { LiveRoute } from '../../intake/route-table';

/** A data-plane answer that is not a problem: status, JSON body and the Location of a receipt. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string;
}

export const receiptPath = (base: string, route: string, id: string): string =>
  `${routePathOf(base, route)}/receipts/${id}`;

/**
 * The intake's outcome in HTTP's terms (SPEC §4): 200 processed, 202 queued with its receipt,
 * and the refusals as AppErrors, so every problem+json body comes from the one renderer
 * (`problemBody`): 422 with the errors, 400/413 for a body refused for what it is, 409 for a
 * reused idempotency key, 503 `overloaded` with Retry-After when it cannot be taken now. A replay
 * answers what the first submission was answered.
 */
export function answerOf(outcome: IntakeOutcome, live: LiveRoute): Answer | AppError {
  switch (outcome.kind) {
    case 'replayed':
      return answerOf(outcome.first, live);
    case 'processed':
    case 'queued':
    case 'rejected':
      return storedAnswer(outcome, live);
    case 'invalid':
    case 'conflict':
      return new AppError(outcome.code, outcome.message);
    case 'overloaded':
      return new AppError('overloaded', 'The queue is full; retry later', {
        headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
      });
    case 'unavailable':
      return new AppError('overloaded', 'The gateway cannot store data right now; retry shortly', {
        headers: { 'Retry-After': String(outcome.retryAfterSeconds) },
      });
  }
}

function storedAnswer(outcome: StoredOutcome, live: LiveRoute): Answer | AppError {
  switch (outcome.kind) {
    case 'processed': {
      const { id, eventType, result, warnings, warningCount } = outcome;
      const listed = warnings ? { warnings, ...(warningCount === undefined ? {} : { warningCount }) } : {};
      return { status: 200, body: { id, eventType, status: 'processed', result, ...listed } };
    }
    case 'queued':
      return {
        status: 202,
        body: { id: outcome.id, status: 'queued' },
        location: receiptPath(live.endpoint.baseRoutePath, live.route.name, outcome.id),
      };
    case 'rejected': {
      const total = outcome.errorCount ?? outcome.errors.length;
      const detail =
        total === 1 ? (outcome.errors[0]?.message ?? 'The payload is invalid') : `The payload has ${total} problems`;
      return new AppError('validation_failed', detail, {
        status: 422,
        errors: outcome.errors,
        extra: {
          // A replay names the request that was refused, as the first answer did.
          ...requestMembers(outcome.requestId),
          id: outcome.id,
          ...(outcome.errorCount === undefined ? {} : { errorCount: outcome.errorCount }),
        },
      });
    }
  }
}
