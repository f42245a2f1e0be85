import type { EventType } from '../contract/dto';
import type { EventProcessor } from './processor';
import { allDataProcessor } from './processors/all-data.processor';
import { customTriggerProcessor } from './processors/custom-trigger.processor';
import { epcisMessageProcessor, epcisObjectProcessor } from './processors/epcis.processor';
import { ghostDataProcessor } from './processors/ghost-data.processor';
import { uhfTagReadProcessor } from './processors/uhf.processor';

/**
 * Erases a processor's prepared-value type. Safe because callers only ever hand `store` the value
 * that the same processor's `validate` produced; the pipeline never mixes processors.
 */
const erase = <P>(processor: EventProcessor<P>): EventProcessor<unknown> => processor as EventProcessor<unknown>;

/** One processor per event type; a new event type without one fails `tsc`. */
export const PROCESSORS: { readonly [K in EventType]: EventProcessor<unknown> } = {
  AllData: erase(allDataProcessor),
  CustomTrigger: erase(customTriggerProcessor),
  EpcisMessage: erase(epcisMessageProcessor),
  EpcisObject: erase(epcisObjectProcessor),
  GhostData: erase(ghostDataProcessor),
  UHFTagRead: erase(uhfTagReadProcessor),
};
