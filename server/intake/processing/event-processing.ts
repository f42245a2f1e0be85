import type { EventType, Settings } from '../../contract/dto';
import type { WriteBatch } from '../../db/write-batch';
import type { Outbox, ProcessedEvent } from '../../delivery/outbox';
import type { DeliveryUnit, EventMeta, EventProcessor, ProcessContext, StoreOutcome } from '../../events/processor';
import { PROCESSORS } from '../../events/registry';
import type { Validation } from '../../events/types';
import { eventWrites, type EventInsert, type EventOutcome } from '../../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../../repositories/idempotency.repo';
import type { StoredOutcome } from '../outcome';
import type { ReaderTracking } from './reader-tracking';
import { validateJson } from '../../events/large-body';
import type { Logger } from '../../logger';
import type { Payload } from '../../repositories/event-payload';

/** A submission the intake has read and parsed, on its way to the sync or the queued path. */
export interface Submission {
  meta: EventMeta;
  /** As received: text, or a large body's bytes (issue 38.3). */
  raw: Payload;
  json: unknown;
  epcisLenient: boolean;
  /** Built once the outcome is known, so the outcome and the key commit in one transaction. */
  idempotency?: (outcome: StoredOutcome) => IdempotencyInsert;
}

/** How an event was taken: answered after processing (200/422) or queued (202). */
export type IngestMode = 'sync' | 'async';

/**
 * Who is told what the paths stored, once it is committed (the `/_metrics` counters). Told only
 * after the commit: a failed write is not an event, an idempotent replay is not a new one.
 */
export interface IngestTally {
  receivedOne(eventType: EventType, mode: IngestMode): void;
  settledOne(eventType: EventType, mode: IngestMode, outcome: 'processed' | 'rejected'): void;
  processingFailed(eventType: EventType): void;
}

/** Where processed events go on to (SPEC §11): the outbox they are written to, and who to tell once committed. */
export interface DeliveryHandoff {
  outbox: Outbox;
  committed(destinationIds: ReadonlySet<number>): void;
}

/** The event's row as first written: who sent it, how, the payload as received, and its outcome so far. */
export function eventRow(meta: EventMeta, raw: Payload, outcome: EventOutcome): EventInsert {
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
    transport: meta.transport,
    topic: meta.topic,
    reader_id: meta.readerId ?? null,
    payload: raw,
    ...(meta.capture ? { capture: meta.capture } : {}),
    ...outcome,
    data: outcome.data ?? null,
  };
}

/** An acknowledged event's rows: the event, and its idempotency key when the request carried one. */
export const ackRows = (row: EventInsert, key: IdempotencyInsert | undefined) =>
  key ? [eventWrites.rowInsert(row), idempotencyRepo.rowInsert([key])] : [eventWrites.rowInsert(row)];

/**
 * The event as stored, as one delivery item: its normalized data, else the payload as received (it
 * parsed as JSON). A large body's bytes are decoded whole here, in one go (decision 0424).
 */
const storedDocument = (outcome: StoreOutcome, raw: Payload): DeliveryUnit[] => [
  { data: outcome.data ?? (typeof raw === 'string' ? raw : raw.text()) },
];

/**
 * Validation is pure: if it throws (a payload that trips a recursion limit, a bug on an odd
 * input), trying again cannot help. The payload is refused like any invalid one (422 sync,
 * `rejected` async, SPEC §13), never answered 503 or retried.
 */
function safeValidate(
  processor: EventProcessor<unknown>,
  json: unknown,
  context: ProcessContext,
): Validation<unknown> | Promise<Validation<unknown>> {
  try {
    const validation = validateJson(processor, json, context);
    return validation instanceof Promise ? validation.catch(thrown) : validation;
  } catch (error) {
    return thrown(error);
  }
}

const thrown = (error: unknown): Validation<unknown> => {
  const reason = error instanceof Error ? error.message : String(error);
  return { ok: false, errors: [{ path: '', message: `The payload could not be processed: ${reason}` }] };
};

/** What `EventProcessing.validate` gives: the outcome, and the context the store needs after. */
export interface ValidationStep {
  context: ProcessContext;
  validation: Validation<unknown>;
}

/**
 * What the sync and the queued path share around their own transaction: the processor's
 * validation (pure, before any transaction), the outbox items of what was stored (inside it), and
 * what follows a commit (the destinations' senders woken, the tally told).
 */
export class EventProcessing {
  constructor(
    private readonly deps: {
      settings: () => Settings;
      now: () => number;
      delivery: DeliveryHandoff;
      tally: IngestTally;
      /** The readers' records (SPEC §16), written in the transaction that stores the outcomes. */
      readers: ReaderTracking;
      logger: Logger;
    },
  ) {}

  /**
   * A flush of processed events rolled back and each is stored again on its own (`CommitBatcher`):
   * said once, since the events themselves are then answered as if nothing happened.
   */
  batchFailed(path: 'sync' | 'queued', error: unknown, events: number): void {
    this.deps.logger.warn('a flush of processed events failed; each is stored again on its own', {
      path,
      events,
      error,
    });
  }

  get tally(): IngestTally {
    return this.deps.tally;
  }

  now(): number {
    return this.deps.now();
  }

  /**
   * The event type's validation of a parsed payload, with the context its store needs after: at
   * once for a parsed body, a promise for a large one (validated in slices).
   */
  validate(meta: EventMeta, json: unknown, epcisLenient: boolean): ValidationStep | Promise<ValidationStep> {
    const settings = this.deps.settings();
    const context: ProcessContext = {
      principal: meta.principal,
      defaultReaderId: meta.readerId ?? meta.principal,
      receivedAt: meta.receivedAt,
      timeZone: settings.timeZone,
      route: { epcisLenient },
      settings,
      processingAt: this.deps.now(),
      ...(meta.capture ? { capture: meta.capture } : {}),
    };
    const validation = safeValidate(PROCESSORS[meta.eventType], json, context);
    return validation instanceof Promise
      ? validation.then((settled) => ({ context, validation: settled }))
      : { context, validation };
  }

  /**
   * Adds the outbox items of processed events to `writes`, in the transaction that stores their
   * outcomes; built only for events whose route delivers anywhere.
   */
  async addDeliveries(
    writes: WriteBatch,
    processed: readonly { meta: EventMeta; raw: Payload; outcome: StoreOutcome }[],
    processedAt: number,
  ): Promise<void> {
    const targets = await this.deps.delivery.outbox.targets();
    if (targets.size === 0) return;
    const events = processed.flatMap(({ meta, raw, outcome }): ProcessedEvent[] => {
      const destinationIds = targets.get(meta.routeId);
      if (!destinationIds || destinationIds.length === 0) return [];
      const units = outcome.deliveries ? outcome.deliveries() : storedDocument(outcome, raw);
      return [{ meta, destinationIds, processedAt, units }];
    });
    this.deps.delivery.outbox.add(writes, events);
  }

  /**
   * Adds the readers' record changes of processed events to `writes`: once per flush and reader,
   * in the transaction that stores their outcomes (SPEC §16).
   */
  trackReaders(writes: WriteBatch, processed: readonly { meta: EventMeta; outcome: StoreOutcome }[]): Promise<void> {
    return this.deps.readers.add(writes, processed);
  }

  /** A processed event is committed: its route's destinations have items to send. */
  wakeSenders(routeId: number): void {
    const targets = this.deps.delivery.outbox.targets();
    const ids = targets instanceof Promise ? undefined : targets.get(routeId);
    if (ids && ids.length > 0) this.deps.delivery.committed(new Set(ids));
  }
}
