import type { EventType } from '../contract/dto';
import type { WriteBatch } from '../db/write-batch';
import type { StoreItem, StoreOutcome } from './processor';
import { PROCESSORS } from './registry';

/**
 * The side effects of several events, each processor called once: `storeMany` where the
 * processor has it, else `store` item by item. Different event types touch different tables, so
 * grouping by type keeps each event's effect; within a type the items keep their order.
 * Outcomes come back in item order.
 */
export async function storeEvents(tx: WriteBatch, items: StoreItem<unknown>[]): Promise<StoreOutcome[]> {
  const outcomes: StoreOutcome[] = new Array<StoreOutcome>(items.length);
  const byType = new Map<EventType, number[]>();
  items.forEach((item, i) => {
    const indexes = byType.get(item.event.eventType);
    if (indexes) indexes.push(i);
    else byType.set(item.event.eventType, [i]);
  });
  for (const [eventType, indexes] of byType) {
    const processor = PROCESSORS[eventType];
    const group = indexes.map((i) => items[i]);
    let stored: StoreOutcome[];
    if (processor.storeMany) stored = await processor.storeMany(tx, group);
    else {
      stored = [];
      for (const item of group) stored.push(await processor.store(tx, item.prepared, item.event, item.context));
    }
    indexes.forEach((index, k) => (outcomes[index] = stored[k]));
  }
  return outcomes;
}
