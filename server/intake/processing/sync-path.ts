import type { FieldError } from '../../contract/errors';
import type { WriteBatch } from '../../db/write-batch';
import type { ProcessContext } from '../../events/processor';
import { storeEvents } from '../../events/store-events';
import { eventWrites, type EventInsert } from '../../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../../repositories/idempotency.repo';
import { capIssues } from '../../events/issues';
import type { ProcessedOutcome, RejectedOutcome } from '../outcome';
import { storeBatcher, type CommitBatcher, type ItemOutcome } from '../commit/batcher';
import { ackRows, eventRow, type EventProcessing, type IngestMode, type Submission } from './event-processing';
import type { CommitLanes } from '../commit/group-commit';
import type { IngestLoad } from '../commit/ingest-load';
import { storedOutcome } from './stored-outcome';

/** `{[name]: total}` when a list was cut to its cap, else nothing (SPEC §13). */
const counted = <K extends string>(total: number | undefined, name: K) =>
  (total === undefined ? {} : { [name]: total }) as Partial<Record<K, number>>;

/** A sync submission that validated, waiting for its group transaction. */
interface Validated {
  submission: Submission;
  value: unknown;
  warnings: FieldError[];
  context: ProcessContext;
}

/**
 * A sync POST after the data plane has read and parsed it (SPEC §4): the processor validates,
 * the event is stored with everything it causes in the next group transaction, and the answer
 * (processed with its result, or rejected and kept) is given after the COMMIT.
 */
export class SyncPath {
  /** Validated events that arrive while a flush commits share one job of the next: set-based statements. */
  private readonly stores: CommitBatcher<Validated, ProcessedOutcome, WriteBatch>;

  /** Processed events go to `commits.work`; rejected ones, rows only, to `commits.acks`. */
  constructor(
    private readonly processing: EventProcessing,
    private readonly commits: CommitLanes,
    load: IngestLoad,
  ) {
    this.stores = storeBatcher(
      commits.work,
      load.syncPerFlush,
      (writes, items) => this.store(writes, items),
      (error, events) => processing.batchFailed('sync', error, events),
    );
  }

  /**
   * `mode` is what the client was promised: `async` for an async event processed at once because
   * the queue was empty (its answer is still 202; the metrics count it as async).
   */
  async process(submission: Submission, mode: IngestMode = 'sync'): Promise<ProcessedOutcome | RejectedOutcome> {
    const { meta, raw, json, epcisLenient } = submission;
    const step = this.processing.validate(meta, json, epcisLenient);
    const { context, validation } = step instanceof Promise ? await step : step;
    let outcome: ProcessedOutcome | RejectedOutcome;
    if (validation.ok) {
      outcome = await this.stores.submit({
        submission,
        value: validation.value,
        warnings: validation.warnings,
        context,
      });
      this.processing.wakeSenders(meta.routeId);
    } else {
      const listed = capIssues(validation.errors, validation.errorCount);
      outcome = {
        kind: 'rejected',
        id: meta.id,
        requestId: meta.requestId,
        errors: listed.items,
        ...counted(listed.total, 'errorCount'),
      };
      const stored = storedOutcome.rejected(this.processing.now(), validation.errors, validation.errorCount);
      await this.commits.acks.acknowledge(ackRows(eventRow(meta, raw, stored), submission.idempotency?.(outcome)));
    }
    const tally = this.processing.tally;
    tally.receivedOne(meta.eventType, mode);
    tally.settledOne(meta.eventType, mode, validation.ok ? 'processed' : 'rejected');
    return outcome;
  }

  /**
   * The validated events of one flush, inside its transaction: their side effects (the event
   * types' stores, in bulk), then their rows with the outcomes and answers, their idempotency
   * keys and their outbox items.
   */
  private async store(writes: WriteBatch, items: Validated[]): Promise<ItemOutcome<ProcessedOutcome>[]> {
    const stored = await storeEvents(
      writes,
      items.map((item) => ({ prepared: item.value, event: item.submission.meta, context: item.context })),
    );
    const processedAt = this.processing.now();
    const rows: EventInsert[] = [];
    const keys: IdempotencyInsert[] = [];
    const outcomes = items.map((item, i): ItemOutcome<ProcessedOutcome> => {
      const { meta, raw } = item.submission;
      const done = stored[i];
      const warnings = capIssues(item.warnings);
      const outcome: ProcessedOutcome = {
        kind: 'processed',
        id: meta.id,
        eventType: meta.eventType,
        result: done.result,
        ...(warnings.items.length > 0 ? { warnings: warnings.items, ...counted(warnings.total, 'warningCount') } : {}),
      };
      rows.push(eventRow(meta, raw, storedOutcome.processed(processedAt, done, item.warnings)));
      const key = item.submission.idempotency?.(outcome);
      if (key) keys.push(key);
      return { ok: true, value: outcome };
    });
    eventWrites.insertMany(writes, rows);
    idempotencyRepo.insertMany(writes, keys);
    const processed = items.map(({ submission }, i) => ({
      meta: submission.meta,
      raw: submission.raw,
      outcome: stored[i],
    }));
    await this.processing.addDeliveries(writes, processed, processedAt);
    await this.processing.trackReaders(writes, processed);
    return outcomes;
  }
}
