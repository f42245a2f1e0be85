import type { WriteBatch } from '../../db/write-batch';
import type { EventMeta, ProcessContext } from '../../events/processor';
import { PROCESSORS } from '../../events/registry';
import { storeEvents } from '../../events/store-events';
import type { Validation } from '../../events/types';
import { eventWrites, type ClaimedRow, type EventOutcome } from '../../repositories/events.repo';
import type { QueuedOutcome } from '../outcome';
import { storeBatcher, type CommitBatcher, type ItemOutcome } from '../commit/batcher';
import { storedJson } from '../../events/large-body';
import { ackRows, eventRow, type EventProcessing, type Submission } from './event-processing';
import type { CommitLanes } from '../commit/group-commit';
import type { IngestLoad } from '../commit/ingest-load';
import { storedOutcome } from './stored-outcome';
import { SqlUtf8 } from '../../db/sql-literal';
import type { LargePayloads } from './large-payloads';

/** Another worker took the event over (our lease ran out); it is theirs to finish. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`lease on event ${id} was lost`);
    this.name = 'LeaseLost';
  }
}

/** What processing a queued event came to (its result and issues are in its stored row). */
export type Processed = 'processed' | 'rejected';

/** A claimed queued event, validated (or not) outside the transaction. */
interface Claimed {
  row: ClaimedRow;
  meta: EventMeta;
  owner: string;
  context: ProcessContext | null;
  validation: Validation<unknown>;
}

/** The event's origin as the row keeps it. */
const metaOf = (row: ClaimedRow): EventMeta => ({
  id: row.id,
  routeId: row.route_id ?? 0,
  routeName: row.route_name,
  endpointId: row.endpoint_id,
  endpointName: row.endpoint_name,
  eventType: row.event_type,
  receivedAt: row.received_at,
  principal: row.principal,
  sourceIp: row.source_ip,
  requestId: row.request_id,
  transport: row.transport,
  topic: row.topic,
  // Rows stored before `reader_id` existed: an MQTT event's client id is in its request id.
  ...(row.reader_id !== null && row.reader_id !== undefined
    ? { readerId: row.reader_id }
    : row.transport === 'mqtt'
      ? { readerId: mqttClientOf(row.request_id) }
      : {}),
  ...(row.capture ? { capture: row.capture } : {}),
});

/** The client id in an MQTT event's request id, `mqtt:<clientId>:<n>` (SPEC §15). */
const mqttClientOf = (requestId: string): string => requestId.slice('mqtt:'.length, requestId.lastIndexOf(':'));

/**
 * An async POST in its two halves (SPEC §4): intake writes the raw event durably before it is acknowledged
 * (`enqueue`), and the worker later processes it (`process`): validate, then store its side
 * effects and its final state in a group transaction, only while it still holds the event's lease.
 * An event has exactly one stored result, whichever crash or retry got it there.
 */
export class QueuedPath {
  /** The worker submits one claimed batch at a time, so a flush takes it whole. */
  private readonly stores: CommitBatcher<Claimed, Processed, WriteBatch>;

  /**
   * Acknowledgements go to `commits.acks`, the processing to `commits.work`; `large` holds the
   * large bodies just stored, for this process's worker to take instead of reading them back.
   */
  constructor(
    private readonly processing: EventProcessing,
    private readonly commits: CommitLanes,
    load: IngestLoad,
    private readonly large: LargePayloads,
  ) {
    this.stores = storeBatcher(
      commits.work,
      load.workerBatch,
      (writes, items) => this.store(writes, items),
      (error, events) => processing.batchFailed('queued', error, events),
    );
  }

  /** Intake: the raw event, queued, committed with its idempotency key before it is acknowledged. */
  async enqueue(submission: Submission): Promise<QueuedOutcome> {
    const outcome: QueuedOutcome = { kind: 'queued', id: submission.meta.id };
    const row = eventRow(submission.meta, submission.raw, storedOutcome.queued());
    await this.commits.acks.acknowledge(ackRows(row, submission.idempotency?.(outcome)));
    this.processing.tally.receivedOne(submission.meta.eventType, 'async');
    if (submission.raw instanceof SqlUtf8) this.large.hold(submission.meta.id, submission.raw);
    return outcome;
  }

  /** The bytes of a large body this process stored for event `id`, once; else the claim reads them. */
  heldPayload(id: string): SqlUtf8 | undefined {
    return this.large.take(id);
  }

  /**
   * The worker's step for one claimed event: its final state (processed or rejected) is stored
   * only while this worker still holds the event's lease; otherwise nothing is written.
   */
  async process(row: ClaimedRow, epcisLenient: boolean, owner: string): Promise<Processed> {
    const meta = metaOf(row);
    const parsed = storedJson(PROCESSORS[meta.eventType], row.payload);
    const { context, validation } = parsed.ok
      ? await this.processing.validate(meta, parsed.json, epcisLenient)
      : { context: null, validation: { ok: false as const, errors: [{ path: '', message: parsed.message }] } };
    let processed: Processed;
    try {
      processed = await this.stores.submit({ row, meta, owner, context, validation });
    } catch (error) {
      // A lost lease is another worker's event now, not a failure; it counts where it ends.
      if (!(error instanceof LeaseLost)) this.processing.tally.processingFailed(meta.eventType);
      throw error;
    }
    if (processed === 'processed') this.processing.wakeSenders(meta.routeId);
    this.processing.tally.settledOne(meta.eventType, 'async', processed);
    return processed;
  }

  /**
   * Claimed events of one flush: only those whose lease this worker still holds are written (a
   * lost lease refuses that event alone); their side effects in bulk, then each one's outcome and
   * the outbox items of the processed ones.
   */
  private async store(writes: WriteBatch, items: Claimed[]): Promise<ItemOutcome<Processed>[]> {
    const held = new Set<string>();
    for (const owner of new Set(items.map((item) => item.owner))) {
      const ids = items.filter((item) => item.owner === owner).map((item) => item.row.id);
      for (const id of await eventWrites.confirmLeases(writes, ids, owner)) held.add(id);
    }
    const valid = items.flatMap((item) =>
      held.has(item.row.id) && item.validation.ok && item.context
        ? [{ item, prepared: item.validation.value, warnings: item.validation.warnings, context: item.context }]
        : [],
    );
    const stored = await storeEvents(
      writes,
      valid.map((v) => ({ prepared: v.prepared, event: v.item.meta, context: v.context })),
    );
    const storedBy = new Map(valid.map((v, k) => [v.item, { outcome: stored[k], warnings: v.warnings }]));
    const outcomesToWrite: { id: string; outcome: EventOutcome }[] = [];
    const processedAt = this.processing.now();
    const outcomes = items.map((item): ItemOutcome<Processed> => {
      if (!held.has(item.row.id)) return { ok: false, error: new LeaseLost(item.row.id) };
      const done = storedBy.get(item);
      if (!done) {
        const errors = item.validation.ok ? [] : item.validation.errors;
        const counted = item.validation.ok ? 0 : item.validation.errorCount;
        outcomesToWrite.push({ id: item.row.id, outcome: storedOutcome.rejected(processedAt, errors, counted) });
        return { ok: true, value: 'rejected' };
      }
      const { outcome, warnings } = done;
      outcomesToWrite.push({ id: item.row.id, outcome: storedOutcome.processed(processedAt, outcome, warnings) });
      return { ok: true, value: 'processed' };
    });
    eventWrites.setOutcomes(writes, outcomesToWrite, processedAt);
    const processed = valid.map((v, k) => ({ meta: v.item.meta, raw: v.item.row.payload, outcome: stored[k] }));
    await this.processing.addDeliveries(writes, processed, processedAt);
    await this.processing.trackReaders(writes, processed);
    return outcomes;
  }
}
