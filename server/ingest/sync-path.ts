import type { FieldError } from '../contract/errors';
import type { WriteBatch } from '../db/write-batch';
import type { ProcessContext } from '../events/processor';
import { storeEvents } from '../events/store-events';
import { eventWrites, type EventInsert } from '../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import { rejectedAnswer, warningsOf, type Answer } from './answers';
import { storeBatcher, type CommitBatcher, type ItemOutcome } from './batcher';
import { ackRows, eventRow, type EventProcessing, type Submission } from './event-processing';
import type { CommitLanes } from './group-commit';
import type { IngestLoad } from './ingest-load';
import { storedOutcome } from './stored-outcome';

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
 * (200 with the result, or 422 keeping the rejected event) is given after the COMMIT.
 */
export class SyncPath {
  /** Validated events that arrive while a flush commits share one job of the next: set-based statements. */
  private readonly stores: CommitBatcher<Validated, Answer, WriteBatch>;

  /** Processed events go to `commits.work`; rejected ones, rows only, to `commits.acks`. */
  constructor(
    private readonly processing: EventProcessing,
    private readonly commits: CommitLanes,
    load: IngestLoad,
  ) {
    this.stores = storeBatcher(commits.work, load.syncPerFlush, (writes, items) => this.store(writes, items));
  }

  async process(submission: Submission): Promise<Answer> {
    const { meta, raw, json, epcisLenient } = submission;
    const { context, validation } = await this.processing.validate(meta, json, epcisLenient);
    let answer: Answer;
    if (validation.ok) {
      answer = await this.stores.submit({
        submission,
        value: validation.value,
        warnings: validation.warnings,
        context,
      });
      this.processing.wakeSenders(meta.routeId);
    } else {
      answer = rejectedAnswer(meta.id, validation.errors, meta.requestId, validation.errorCount);
      const outcome = storedOutcome.rejected(this.processing.now(), validation.errors, validation.errorCount);
      await this.commits.acks.acknowledge(ackRows(eventRow(meta, raw, outcome), submission.idempotency?.(answer)));
    }
    const tally = this.processing.tally;
    tally.receivedOne(meta.eventType, 'sync');
    tally.settledOne(meta.eventType, 'sync', validation.ok ? 'processed' : 'rejected');
    return answer;
  }

  /**
   * The validated events of one flush, inside its transaction: their side effects (the event
   * types' stores, in bulk), then their rows with the outcomes and answers, their idempotency
   * keys and their outbox items.
   */
  private async store(writes: WriteBatch, items: Validated[]): Promise<ItemOutcome<Answer>[]> {
    const stored = await storeEvents(
      writes,
      items.map((item) => ({ prepared: item.value, event: item.submission.meta, context: item.context })),
    );
    const processedAt = this.processing.now();
    const rows: EventInsert[] = [];
    const keys: IdempotencyInsert[] = [];
    const answers = items.map((item, i): ItemOutcome<Answer> => {
      const { meta, raw } = item.submission;
      const outcome = stored[i];
      const answer: Answer = {
        status: 200,
        body: {
          id: meta.id,
          eventType: meta.eventType,
          status: 'processed',
          result: outcome.result,
          ...warningsOf(item.warnings),
        },
      };
      rows.push(eventRow(meta, raw, storedOutcome.processed(processedAt, outcome, item.warnings)));
      const key = item.submission.idempotency?.(answer);
      if (key) keys.push(key);
      return { ok: true, value: answer };
    });
    eventWrites.insertMany(writes, rows);
    idempotencyRepo.insertMany(writes, keys);
    const processed = items.map(({ submission }, i) => ({
      meta: submission.meta,
      raw: submission.raw,
      outcome: stored[i],
    }));
    await this.processing.addDeliveries(writes, processed, processedAt);
    return answers;
  }
}
