import type { EventType } from '../contract/dto';
import type { EventProcessor } from './processor';
import { allDataProcessor } from './processors/all-data.processor';
import { customTriggerProcessor } from './processors/custom-trigger.processor';
import { epcisMessageProcessor, epcisObjectProcessor } from './processors/epcis.processor';
import { ghostDataProcessor } from './processors/ghost-data.processor';
import { uhfTagReadProcessor } from './processors/uhf.processor';

/**
 * One processor per event type; a new event type without one fails `tsc`. Each processor's
 * prepared-value type is erased here: callers only ever hand `store` the value that the same
 * processor's `validate` produced.
 */
export const PROCESSORS: { readonly [K in EventType]: EventProcessor<unknown> } = {
  AllData: allDataProcessor,
  CustomTrigger: customTriggerProcessor,
  EpcisMessage: epcisMessageProcessor,
  EpcisObject: epcisObjectProcessor,
  GhostData: ghostDataProcessor,
  UHFTagRead: uhfTagReadProcessor,
};
