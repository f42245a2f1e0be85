import { AppError } from '../../errors';
import { LARGE_BODY_BYTES } from '../../events/large-body';

/**
 * How much memory large bodies may hold at once (issue 38.3). A body above `LARGE_BODY_BYTES`
 * costs a few times its size while it is read, checked, validated and stored (its bytes, its
 * text, what validation keeps, the copies the database driver makes; figures in
 * docs/performance.md, P32). Bodies in flight may together
 * declare up to `BODY_BUDGET_BYTES`; one more is refused with 503 `overloaded` and Retry-After
 * (SPEC §13: "try again later") before a byte of it is read, rather than waiting: a waiting
 * body holds its connection and its client's timeout, and the reader retries anyway. One body
 * is always admitted when none is in flight, so the largest allowed body is never refused for
 * its size alone.
 */
export const BODY_BUDGET_BYTES = 256 * 1024 * 1024;

/** Retry-After for a body refused for the budget: about what one 100 MiB body takes to handle. */
export const BODY_RETRY_AFTER_S = 10;

/** A body's share of the budget: released when its request is done (whatever the outcome). */
export interface BodyTicket {
  /** A body without Content-Length, once read: its size is taken now (and may be refused). */
  measured(bytes: number): void;
  release(): void;
}

const refused = () =>
  new AppError('overloaded', 'Too many large bodies are being handled; retry later', {
    headers: { 'Retry-After': String(BODY_RETRY_AFTER_S) },
  });

/** The bytes of large bodies in flight in this process, against `BODY_BUDGET_BYTES`. */
export class BodyBudget {
  private inFlight = 0;

  constructor(private readonly budgetBytes = BODY_BUDGET_BYTES) {}

  /** Bytes taken by the bodies in flight (for tests and /_metrics-like reporting). */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  /**
   * A ticket for a body about to be read: `declared` is its Content-Length (undefined when it has
   * none), `limit` the body limit. Throws 503 `overloaded` when the body is large and does not fit.
   * A body declared over the limit takes nothing: reading it answers 413 at once.
   */
  admit(declared: number | undefined, limit: number): BodyTicket {
    let taken = 0;
    const take = (bytes: number) => {
      if (bytes <= LARGE_BODY_BYTES || bytes > limit) return;
      if (this.inFlight > 0 && this.inFlight + bytes > this.budgetBytes) throw refused();
      this.inFlight += bytes;
      taken = bytes;
    };
    if (declared !== undefined) take(declared);
    return {
      measured: (bytes) => {
        if (declared === undefined) take(bytes);
      },
      release: () => {
        this.inFlight -= taken;
        taken = 0;
      },
    };
  }
}
