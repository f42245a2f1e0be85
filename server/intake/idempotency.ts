import type { Db } from '../db';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import type { StoredOutcome } from './outcome';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The status SPEC §4 gives each outcome, kept beside it in the row for whoever inspects the table. */
const STATUS_OF: Record<StoredOutcome['kind'], number> = { processed: 200, rejected: 422, queued: 202 };

/** A row written before outcomes were stored (an HTTP answer); such rows expire within 24 h of the upgrade. */
interface LegacyAnswer {
  status: number;
  body: Record<string, unknown>;
}

function readStoredOutcome(stored: StoredOutcome | LegacyAnswer): StoredOutcome {
  if ('kind' in stored) return stored;
  const body = stored.body as Record<string, never>;
  if (stored.status === 202) return { kind: 'queued', id: body.id };
  if (stored.status === 422) {
    return {
      kind: 'rejected',
      id: body.id,
      requestId: body.requestId,
      errors: body.errors,
      errorCount: body.errorCount,
    };
  }
  return {
    kind: 'processed',
    id: body.id,
    eventType: body.eventType,
    result: body.result,
    warnings: body.warnings,
    warningCount: body.warningCount,
  };
}

export interface IdempotencyScope {
  routeId: number;
  principal: string;
  key: string;
  bodyHash: string;
}

/**
 * Idempotent POSTs (SPEC §4, §10): a repeat of a key by the same principal on the same route
 * within 24 h gets the first answer back and stores nothing; the same key with a different body
 * is a 409. Requests racing with the same key wait for the first one instead of both processing.
 */
export class Idempotency {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * The stored outcome to replay, null when this submission is the first with its key, or
   * `reused` when the key was first used with another body (409).
   */
  async replay(scope: IdempotencyScope): Promise<StoredOutcome | 'reused' | null> {
    const flightKey = JSON.stringify([scope.routeId, scope.principal, scope.key]);
    const running = this.inFlight.get(flightKey);
    if (running) await running.catch(() => undefined);
    const stored = await idempotencyRepo.find(
      this.db.knex,
      scope.routeId,
      scope.principal,
      scope.key,
      this.now() - DAY_MS,
    );
    if (!stored) return null;
    if (stored.bodyHash !== scope.bodyHash) return 'reused';
    return readStoredOutcome(JSON.parse(stored.responseBody) as StoredOutcome | LegacyAnswer);
  }

  /** Marks the key as in flight while `work` runs, so a concurrent repeat waits for its answer. */
  async guard<T>(scope: IdempotencyScope, work: () => Promise<T>): Promise<T> {
    const flightKey = JSON.stringify([scope.routeId, scope.principal, scope.key]);
    const promise = work();
    this.inFlight.set(flightKey, promise);
    try {
      return await promise;
    } finally {
      if (this.inFlight.get(flightKey) === promise) this.inFlight.delete(flightKey);
    }
  }

  /** The row that records an outcome; written in the same transaction as the event. */
  record(scope: IdempotencyScope, outcome: StoredOutcome): IdempotencyInsert {
    return {
      route_id: scope.routeId,
      principal: scope.principal,
      idempotency_key: scope.key,
      body_hash: scope.bodyHash,
      status_code: STATUS_OF[outcome.kind],
      response_body: JSON.stringify(outcome),
      created_at: this.now(),
    };
  }

  purgeExpired(): Promise<number> {
    return idempotencyRepo.deleteOlderThan(this.db.knex, this.now() - DAY_MS);
  }
}
