import { EVENT_TYPES, type EventType } from '../contract/dto';
import type { IngestMode, IngestTally } from '../intake/processing/event-processing';
import { Counter } from './counter';

const MODES: readonly IngestMode[] = ['sync', 'async'];

/**
 * What this instance's data plane has taken in and what became of it, per event type. Fed by
 * the sync and queued paths after each commit, so it counts exactly the events they stored: idempotent replays
 * and requests refused before storing (401, 413, 503 …) are not events.
 */
export class IngestCounters implements IngestTally {
  /** Events stored on arrival: sync ones processed or rejected, async ones queued. */
  readonly received = new Counter<'event_type' | 'mode'>(['event_type', 'mode']);
  readonly processed = new Counter<'event_type' | 'mode'>(['event_type', 'mode']);
  readonly rejected = new Counter<'event_type' | 'mode'>(['event_type', 'mode']);
  /** Failed processing attempts of queued events (retried with backoff, then `failed`). */
  readonly processingErrors = new Counter<'event_type'>(['event_type']);

  constructor() {
    for (const eventType of EVENT_TYPES) {
      for (const mode of MODES) {
        for (const counter of [this.received, this.processed, this.rejected])
          counter.zero({ event_type: eventType, mode });
      }
      this.processingErrors.zero({ event_type: eventType });
    }
  }

  receivedOne(eventType: EventType, mode: IngestMode): void {
    this.received.inc({ event_type: eventType, mode });
  }

  settledOne(eventType: EventType, mode: IngestMode, outcome: 'processed' | 'rejected'): void {
    (outcome === 'processed' ? this.processed : this.rejected).inc({ event_type: eventType, mode });
  }

  processingFailed(eventType: EventType): void {
    this.processingErrors.inc({ event_type: eventType });
  }
}
