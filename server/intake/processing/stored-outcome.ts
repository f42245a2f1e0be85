import type { FieldError } from '../../contract/errors';
import { storedIssues } from '../../events/issues';
import type { StoreOutcome } from '../../events/processor';
import type { EventOutcome } from '../../repositories/events.repo';

/**
 * The one place an event's stored final state is shaped (SPEC §5: status, processed time,
 * result, errors, warnings), whichever path got it there: a sync request, the worker, or the
 * worker giving up. The row and the receipt read these columns back.
 */
export const storedOutcome = {
  processed(at: number, stored: StoreOutcome, warnings: readonly FieldError[]): EventOutcome {
    return {
      status: 'processed',
      processed_at: at,
      data: stored.data,
      result: stored.result === null || stored.result === undefined ? null : JSON.stringify(stored.result),
      errors: null,
      warnings: warnings.length > 0 ? storedIssues([...warnings]) : null,
    };
  },

  /** A payload that can never be processed (invalid, or refused by its processor): SPEC §13. */
  rejected(at: number, errors: readonly FieldError[], errorCount?: number): EventOutcome {
    return {
      status: 'rejected',
      processed_at: at,
      result: null,
      errors: storedIssues([...errors], errorCount),
      warnings: null,
    };
  },

  /** Storage trouble that outlasted every attempt. */
  failed(at: number, message: string): EventOutcome {
    return {
      status: 'failed',
      processed_at: at,
      result: null,
      errors: storedIssues([{ path: '', message }]),
      warnings: null,
    };
  },

  /** Acknowledged, not yet processed. */
  queued(): EventOutcome {
    return { status: 'queued', processed_at: null, data: null, result: null, errors: null, warnings: null };
  },
};
