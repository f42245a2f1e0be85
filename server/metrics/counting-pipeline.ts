import { LeaseLost, Pipeline, type Submission } from '../ingest/pipeline';
import type { Answer } from '../ingest/answers';
import type { IngestCounters } from './ingest-counters';

/**
 * The pipeline, counting into `IngestCounters` what it stores. The pipeline is where every event
 * passes exactly once whichever way it came (sync request, async acknowledgement, the worker), so
 * counting here needs no hook in the data plane or the worker. A count is taken only once the
 * pipeline's promise resolved, i.e. after the commit: a failed write is not an event.
 */
export class CountingPipeline extends Pipeline {
  private readonly counters: IngestCounters;

  constructor(counters: IngestCounters, ...pipeline: ConstructorParameters<typeof Pipeline>) {
    super(...pipeline);
    this.counters = counters;
  }

  override async processNow(submission: Submission): Promise<Answer> {
    const answer = await super.processNow(submission);
    const eventType = submission.meta.eventType;
    this.counters.receivedOne(eventType, 'sync');
    // 200 is a processed event; anything else the pipeline answers is the 422 of a rejected one.
    this.counters.settledOne(eventType, 'sync', answer.status === 200 ? 'processed' : 'rejected');
    return answer;
  }

  override async enqueue(submission: Submission, answer: Answer): Promise<void> {
    await super.enqueue(submission, answer);
    this.counters.receivedOne(submission.meta.eventType, 'async');
  }

  override async processQueued(
    ...args: Parameters<Pipeline['processQueued']>
  ): Promise<Awaited<ReturnType<Pipeline['processQueued']>>> {
    const eventType = args[0].event_type;
    try {
      const processed = await super.processQueued(...args);
      this.counters.settledOne(eventType, 'async', processed.kind);
      return processed;
    } catch (error) {
      // A lost lease is another worker's event now, not a failure; it counts where it ends.
      if (!(error instanceof LeaseLost)) this.counters.processingFailed(eventType);
      throw error;
    }
  }
}
