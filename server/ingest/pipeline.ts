import type { Settings } from '../contract/dto';
import type { WriteBatch } from '../db/write-batch';
import type { FieldError } from '../contract/errors';
import type { EventMeta, EventProcessor, ProcessContext } from '../events/processor';
import { PROCESSORS } from '../events/registry';
import { storeEvents } from '../events/store-events';
import type { Validation } from '../events/types';
import { eventWrites, type EventInsert, type EventOutcome, type EventRow } from '../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import { rejectedAnswer, warningsOf, type Answer } from './answers';
import { CommitBatcher, type ItemOutcome } from './batcher';
import type { GroupCommit } from './group-commit';
import type { IngestLoad } from './ingest-load';
import { storedOutcome } from './stored-outcome';
import type { Outbox, ProcessedEvent } from '../delivery/outbox';
import type { DeliveryUnit, StoreOutcome } from '../events/processor';

export interface Submission {
  meta: EventMeta;
  raw: string;
  json: unknown;
  epcisLenient: boolean;
  /** Built once the answer is known, so the answer and the key commit in one transaction. */
  idempotency?: (answer: Answer) => IdempotencyInsert;
}

function eventRow(meta: EventMeta, raw: string, outcome: EventOutcome): EventInsert {
  return {
    id: meta.id,
    parent_id: null,
    route_id: meta.routeId,
    route_name: meta.routeName,
    endpoint_id: meta.endpointId,
    endpoint_name: meta.endpointName,
    event_type: meta.eventType,
    received_at: meta.receivedAt,
    principal: meta.principal,
    source_ip: meta.sourceIp,
    request_id: meta.requestId,
    payload: raw,
    ...outcome,
    data: outcome.data ?? null,
  };
}

/** An acknowledged event's rows: the event, and its idempotency key when the request carried one. */
const ackRows = (row: EventInsert, key: IdempotencyInsert | undefined) =>
  key ? [eventWrites.rowInsert(row), idempotencyRepo.rowInsert([key])] : [eventWrites.rowInsert(row)];

/** Another worker took the event over (our lease ran out); it is theirs to finish. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`lease on event ${id} was lost`);
    this.name = 'LeaseLost';
  }
}

/** Where processed events go on to (SPEC §11): the outbox they are written to, and who to tell once committed. */
export interface DeliveryHandoff {
  outbox: Outbox;
  committed(destinationIds: ReadonlySet<number>): void;
}

/** The event as stored, as one delivery item: its normalized data, else the payload as received (it parsed as JSON). */
const storedDocument = (outcome: StoreOutcome, raw: string): DeliveryUnit[] => [{ data: outcome.data ?? raw }];

/** What processing one payload came to; the same for the sync path and the async worker. */
type Processed =
  | { kind: 'processed'; result: Record<string, unknown>; data: string | null; warnings: FieldError[] }
  | { kind: 'rejected'; errors: FieldError[] };

/** A sync submission that validated, waiting for its group transaction. */
interface SyncItem {
  submission: Submission;
  value: unknown;
  warnings: FieldError[];
  context: ProcessContext;
}

/** A claimed queued event, validated (or not) outside the transaction. */
interface QueuedItem {
  row: EventRow;
  meta: EventMeta;
  owner: string;
  context: ProcessContext | null;
  validation: Validation<unknown>;
}

/**
 * Validation is pure: if it throws (a payload that trips a recursion limit, a bug on an odd
 * input), trying again cannot help. The payload is refused like any invalid one (422 sync,
 * `rejected` async, SPEC §13), never answered 503 or retried.
 */
function safeValidate(processor: EventProcessor<unknown>, json: unknown, context: ProcessContext): Validation<unknown> {
  try {
    return processor.validate(json, context);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, errors: [{ path: '', message: `The payload could not be processed: ${reason}` }] };
  }
}

/**
 * Processing shared by the sync route handler and the async worker: validate (pure), then store
 * the event type's side effects and the event's outcome inside one group transaction, so an event
 * has exactly one stored result whichever path, crash or retry got it there.
 */
export class Pipeline {
  private readonly syncBatches: CommitBatcher<SyncItem, Answer, WriteBatch>;
  private readonly queuedBatches: CommitBatcher<QueuedItem, Processed, WriteBatch>;

  private readonly acks: GroupCommit;

  /**
   * `work` takes processing (sync events, the worker's batches); `acks` the rows written as they
   * arrive (async events, rejected sync events). They may be one and the same (SQLite).
   */
  constructor(
    commits: { work: GroupCommit; acks: GroupCommit },
    load: IngestLoad,
    private readonly settings: () => Settings,
    private readonly now: () => number,
    private readonly delivery: DeliveryHandoff,
  ) {
    const commit = commits.work;
    this.acks = commits.acks;
    this.syncBatches = new CommitBatcher((work) => commit.store(work), {
      many: (writes, items) => this.storeNow(writes, items),
      maxPerFlush: load.syncPerFlush,
    });
    // The worker submits one claimed batch at a time, so a flush takes it whole.
    this.queuedBatches = new CommitBatcher((work) => commit.store(work), {
      many: (writes, items) => this.storeQueued(writes, items),
      maxPerFlush: load.workerBatch,
    });
  }

  processorFor(meta: EventMeta): EventProcessor<unknown> {
    return PROCESSORS[meta.eventType];
  }

  private validate(meta: EventMeta, json: unknown, epcisLenient: boolean) {
    const settings = this.settings();
    const context = {
      principal: meta.principal,
      receivedAt: meta.receivedAt,
      timeZone: settings.timeZone,
      route: { epcisLenient },
      settings,
    };
    return { context, validation: safeValidate(this.processorFor(meta), json, context) };
  }

  /** Sync POST: answers 200 with the result, or 422 keeping the rejected event. */
  async processNow(submission: Submission): Promise<Answer> {
    const { meta, raw, json, epcisLenient } = submission;
    const { context, validation } = this.validate(meta, json, epcisLenient);
    if (!validation.ok) {
      const answer = rejectedAnswer(meta.id, validation.errors, meta.requestId, validation.errorCount);
      const row = eventRow(meta, raw, storedOutcome.rejected(this.now(), validation.errors, validation.errorCount));
      await this.acks.acknowledge(ackRows(row, submission.idempotency?.(answer)));
      return answer;
    }
    const answer = await this.syncBatches.submit({
      submission,
      value: validation.value,
      warnings: validation.warnings,
      context,
    });
    this.afterCommit(meta.routeId);
    return answer;
  }

  /** The event's delivery items are committed: wake the senders of its route's destinations. */
  private afterCommit(routeId: number): void {
    const targets = this.delivery.outbox.targets();
    const ids = targets instanceof Promise ? undefined : targets.get(routeId);
    if (ids && ids.length > 0) this.delivery.committed(new Set(ids));
  }

  /** The outbox entries of processed events whose route delivers anywhere (built only then). */
  private async deliveries(
    processed: readonly { meta: EventMeta; raw: string; outcome: StoreOutcome }[],
    processedAt: number,
  ): Promise<ProcessedEvent[]> {
    const targets = await this.delivery.outbox.targets();
    if (targets.size === 0) return [];
    return processed.flatMap(({ meta, raw, outcome }) => {
      const destinationIds = targets.get(meta.routeId);
      if (!destinationIds || destinationIds.length === 0) return [];
      const units = outcome.deliveries ? outcome.deliveries() : storedDocument(outcome, raw);
      return [{ meta, destinationIds, processedAt, units }];
    });
  }

  /** Sync events of one flush: their side effects, then their rows and idempotency keys in bulk (sent by the group commit). */
  private async storeNow(writes: WriteBatch, items: SyncItem[]): Promise<ItemOutcome<Answer>[]> {
    const stored = await storeEvents(
      writes,
      items.map((item) => ({ prepared: item.value, event: item.submission.meta, context: item.context })),
    );
    const processedAt = this.now();
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
    const processed = items.map((item, i) => ({
      meta: item.submission.meta,
      raw: item.submission.raw,
      outcome: stored[i],
    }));
    this.delivery.outbox.add(writes, await this.deliveries(processed, processedAt));
    return answers;
  }

  /** Async POST: the raw event is durably queued before the 202 is given. */
  async enqueue(submission: Submission, answer: Answer): Promise<void> {
    const row = eventRow(submission.meta, submission.raw, storedOutcome.queued());
    await this.acks.acknowledge(ackRows(row, submission.idempotency?.(answer)));
  }

  /**
   * The worker's step for one queued event: stores its final state (processed or rejected), but
   * only while this worker still holds the event's lease; otherwise nothing is written.
   */
  async processQueued(row: EventRow, epcisLenient: boolean, owner: string): Promise<Processed> {
    const meta: EventMeta = {
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
    };
    const parsed = this.processorFor(meta).parseBody(row.payload);
    const { context, validation } = parsed.ok
      ? this.validate(meta, parsed.json, epcisLenient)
      : { context: null, validation: { ok: false as const, errors: [{ path: '', message: parsed.message }] } };
    const processed = await this.queuedBatches.submit({ row, meta, owner, context, validation });
    if (processed.kind === 'processed') this.afterCommit(meta.routeId);
    return processed;
  }

  /**
   * Queued events of one flush: only those whose lease this worker still holds are written (a
   * lost lease refuses that event alone); their side effects in bulk, then each one's outcome.
   */
  private async storeQueued(writes: WriteBatch, items: QueuedItem[]): Promise<ItemOutcome<Processed>[]> {
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
    const processedAt = this.now();
    const outcomes = items.map((item): ItemOutcome<Processed> => {
      if (!held.has(item.row.id)) return { ok: false, error: new LeaseLost(item.row.id) };
      const done = storedBy.get(item);
      if (!done) {
        const errors = item.validation.ok ? [] : item.validation.errors;
        const counted = item.validation.ok ? 0 : item.validation.errorCount;
        outcomesToWrite.push({ id: item.row.id, outcome: storedOutcome.rejected(processedAt, errors, counted) });
        return { ok: true, value: { kind: 'rejected', errors } };
      }
      const { outcome, warnings } = done;
      outcomesToWrite.push({ id: item.row.id, outcome: storedOutcome.processed(processedAt, outcome, warnings) });
      return { ok: true, value: { kind: 'processed', result: outcome.result, data: outcome.data, warnings } };
    });
    eventWrites.setOutcomes(writes, outcomesToWrite, processedAt);
    const processed = valid.map((v, k) => ({ meta: v.item.meta, raw: v.item.row.payload, outcome: stored[k] }));
    this.delivery.outbox.add(writes, await this.deliveries(processed, processedAt));
    return outcomes;
  }
}
