import { randomUUID } from 'node:crypto';
import type { Db } from '../db';
import type { ConfigChanges } from '../db/config-changes';
import type { WriteBatch } from '../db/write-batch';
import type { DeliveryUnit, EventMeta } from '../events/processor';
import { destinationsRepo } from '../repositories/destinations.repo';
import { outboxRepo, type OutboxInsert } from '../repositories/outbox.repo';
import { ReloadingSnapshot } from '../reloading-snapshot';
import type { DeliveryLedger } from './ledger';

/** Route id → the destinations its processed events go to. */
export type DeliveryTargets = ReadonlyMap<number, readonly number[]>;

/** A processed event's part in the outbox. */
export interface ProcessedEvent {
  meta: Pick<EventMeta, 'id' | 'routeName' | 'endpointName' | 'eventType' | 'receivedAt'>;
  destinationIds: readonly number[];
  processedAt: number;
  units: readonly DeliveryUnit[];
}

/**
 * The write side of store and forward (SPEC §11): the processing paths hand their processed
 * events here inside the transaction that stores the events' outcomes, so an outcome and its
 * delivery items commit together or not at all. Which routes feed which destinations is a
 * snapshot reloaded when endpoints or destinations change.
 */
export class Outbox {
  private readonly routes: ReloadingSnapshot<DeliveryTargets>;

  constructor(
    db: Db,
    changes: ConfigChanges,
    private readonly ledger: DeliveryLedger,
    private readonly maxItems: () => number,
    private readonly now: () => number,
  ) {
    // Read on the read pool: on SQLite the loader may run inside a write transaction, which holds the writer.
    this.routes = new ReloadingSnapshot(() => destinationsRepo.byRoute(db.reads));
    changes.subscribe((resources) => {
      if (resources.has('endpoints') || resources.has('destinations')) this.routes.invalidate();
    });
  }

  /** Route → destinations, as of now. */
  targets(): DeliveryTargets | Promise<DeliveryTargets> {
    return this.routes.get();
  }

  settle(): Promise<void> {
    return this.routes.settle();
  }

  /**
   * Adds the delivery items of processed events to `writes`. Items that would take a
   * destination's backlog past `maxOutboxItems` are written as a dead letter (`outbox_full`)
   * instead: intake and processing are never slowed or refused because of a destination.
   *
   * The ledger counts them once their transaction has committed: until then they are held
   * against the bound only. A transaction (or savepoint) that rolls back counts nothing, so a
   * flush done again item by item after one failed (batcher.ts) is counted once (decision 0423).
   */
  add(writes: WriteBatch, events: readonly ProcessedEvent[]): void {
    const rows: OutboxInsert[] = [];
    const added: [destinationId: number, items: number][] = [];
    const overflowed: [destinationId: number, items: number][] = [];
    for (const event of events) {
      const items = event.units.map((unit, index): Omit<OutboxInsert, 'destination_id'> => ({
        item_id: `${event.meta.id}:${index}`,
        event_id: unit.eventId ?? event.meta.id,
        route_name: event.meta.routeName,
        endpoint_name: event.meta.endpointName,
        event_type: event.meta.eventType,
        received_at: event.meta.receivedAt,
        processed_at: event.processedAt,
        data: unit.data,
      }));
      if (items.length === 0) continue;
      for (const destinationId of event.destinationIds) {
        const room = Math.max(0, this.maxItems() - this.ledger.held(destinationId));
        const accepted = items.slice(0, room).map((item) => ({ ...item, destination_id: destinationId }));
        rows.push(...accepted);
        this.ledger.adding(destinationId, accepted.length);
        added.push([destinationId, accepted.length]);
        const overflow = items.slice(room).map((item) => ({ ...item, destination_id: destinationId }));
        if (overflow.length > 0) {
          outboxRepo.addDeadLetter(writes, { batchId: randomUUID(), destinationId, at: this.now() }, overflow);
          overflowed.push([destinationId, overflow.length]);
        }
      }
    }
    outboxRepo.addItems(writes, rows);
    writes.whenSettled((committed) => {
      for (const [destinationId, items] of added) this.ledger.added(destinationId, items, committed);
      if (committed)
        for (const [destinationId, items] of overflowed)
          this.ledger.deadLettered(destinationId, items, 'outbox_full', false);
    });
  }
}
