import type { EventType } from '../contract/dto';
import type { FieldError } from '../contract/errors';

/** Processed and stored: the promise of a 200 (SPEC §4). */
export interface ProcessedOutcome {
  kind: 'processed';
  id: string;
  eventType: EventType;
  result: Record<string, unknown>;
  /** Capped at 100 (SPEC §13); `warningCount` holds the total when there were more. */
  warnings?: FieldError[];
  warningCount?: number;
}

/** Refused by its event type and kept as a rejected event: the promise of a 422. */
export interface RejectedOutcome {
  kind: 'rejected';
  id: string;
  /** The submission's request id: a replay names the request that was refused (SPEC §4). */
  requestId: string;
  /** Capped at 100 (SPEC §13); `errorCount` holds the total when there were more. */
  errors: FieldError[];
  errorCount?: number;
}

/** Stored durably and queued for the worker: the promise of a 202. */
export interface QueuedOutcome {
  kind: 'queued';
  id: string;
}

/** What a submission came to once committed; what idempotency keeps and replays. */
export type StoredOutcome = ProcessedOutcome | RejectedOutcome | QueuedOutcome;

/**
 * What the intake core answers a submission, whatever carried it (SPEC §4, §15). Never an HTTP
 * answer: each transport says it in its own terms (a status, a PUBACK or a closed connection).
 * - `invalid`: refused for what it is before anything was stored (not UTF-8 JSON, too deep, too
 *   large, an idempotency key out of bounds).
 * - `conflict`: an idempotency key already used with another body.
 * - `replayed`: a repeat of a committed submission; nothing new stored.
 * - `overloaded`: the queue is full; `unavailable`: the database cannot take it now. Both mean
 *   "try again later", with nothing stored.
 */
export type IntakeOutcome =
  | StoredOutcome
  | { kind: 'replayed'; first: StoredOutcome }
  | { kind: 'invalid'; code: 'invalid_json' | 'payload_too_large' | 'invalid_idempotency_key'; message: string }
  | { kind: 'conflict'; code: 'idempotency_key_reused'; message: string }
  | { kind: 'overloaded'; retryAfterSeconds: number }
  | { kind: 'unavailable'; retryAfterSeconds: number };

/** The committed outcome behind an answer: the first one for a replay. */
export function storedOf(outcome: IntakeOutcome): StoredOutcome | null {
  if (outcome.kind === 'replayed') return outcome.first;
  return outcome.kind === 'processed' || outcome.kind === 'rejected' || outcome.kind === 'queued' ? outcome : null;
}
