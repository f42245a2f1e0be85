import type { Db } from '../db';
import { AppError } from '../errors';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import type { Answer } from './answers';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyScope {
  routeId: number;
  principal: string;
  key: string;
  bodyHash: string;
}

/**
 * Reads the `Idempotency-Key` header (as Node gives it: repeated headers joined by `, `): absent →
 * null; empty or over 255 characters → 400.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (Array.isArray(header)) header = header.join(', ');
  if (header.length === 0 || header.length > 255) {
    throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters');
  }
  return header;
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

  /** The stored answer to replay, or null when this request is the first with its key. */
  async replay(scope: IdempotencyScope): Promise<Answer | null> {
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
    if (stored.bodyHash !== scope.bodyHash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different body');
    }
    return JSON.parse(stored.responseBody) as Answer;
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

  /** The row that records an answer; written in the same transaction as the event. */
  record(scope: IdempotencyScope, answer: Answer): IdempotencyInsert {
    return {
      route_id: scope.routeId,
      principal: scope.principal,
      idempotency_key: scope.key,
      body_hash: scope.bodyHash,
      status_code: answer.status,
      response_body: JSON.stringify(answer),
      created_at: this.now(),
    };
  }

  purgeExpired(): Promise<number> {
    return idempotencyRepo.deleteOlderThan(this.db.knex, this.now() - DAY_MS);
  }
}
