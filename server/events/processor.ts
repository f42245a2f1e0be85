import type { Settings } from '../contract/dto';
import type { CaptureBehaviour } from '../contract/enums';
import type { EventType, Page, Transport } from '../contract/dto';
import type { FieldError } from '../contract/errors';
import type { WriteBatch } from '../db/write-batch';
import type { Queryable } from '../repositories/db-types';
import type { LargeJson } from './large-json';
import type { BodyParse, ReceiveContext, Validation } from './types';
import type { ReaderActivity } from './uhf/reader-activity';

/** The route facts a processor may depend on. */
export interface RouteFacts {
  epcisLenient: boolean;
}

/** How an EPCIS capture treats invalid events (SPEC §17): store nothing, or store the valid ones. */
export type { CaptureBehaviour } from '../contract/enums';

export interface ProcessContext extends ReceiveContext {
  route: RouteFacts;
  settings: Settings;
  /** When processing began: the `recordTime` of what this processing stores. */
  processingAt: number;
  /** Set when the submission came through EPCIS capture (SPEC §17). */
  capture?: CaptureBehaviour;
}

/** Where a stored event came from; written once, with the names as they were at receive time. */
export interface EventMeta {
  id: string;
  routeId: number;
  routeName: string;
  endpointId: number;
  endpointName: string;
  eventType: EventType;
  receivedAt: number;
  principal: string;
  sourceIp: string;
  requestId: string;
  transport: Transport;
  /** The MQTT topic it was published to; null over HTTP. */
  topic: string | null;
  /** Names the reader when the payload names none (the MQTT client id); absent: the principal does. */
  readerId?: string;
  /** A submission made through EPCIS capture (SPEC §17), with its error behaviour. */
  capture?: CaptureBehaviour;
}

export interface StoreOutcome {
  /** The answer's `result` (and the receipt's). */
  result: Record<string, unknown>;
  /** Normalized JSON kept for snapshots and the inspector; null when the raw payload is it. */
  data: string | null;
  /**
   * What a destination receives of this event, one item per unit (SPEC §11), built only when the
   * route delivers anywhere. Absent: one item, the event as stored (`data`, else the payload).
   */
  deliveries?: () => DeliveryUnit[];
  /** What the event says about the readers that sent it (UHFTagRead, SPEC §16): one entry per reader. */
  readers?: ReaderActivity[];
}

/** One delivery item's content: its `data` as JSON text, and its own stored event id where it has one. */
export interface DeliveryUnit {
  data: string;
  eventId?: string;
}

/** One event for `storeMany`: what `store` takes, as one object. */
export interface StoreItem<Prepared> {
  prepared: Prepared;
  event: EventMeta;
  context: ProcessContext;
}

/** Common GET parameters, already validated by the data plane. */
export interface SnapshotQuery {
  endpointId: number;
  since?: number;
  until?: number;
  limit: number;
  cursor?: string;
  /** This event type's own filters, as validated by `parseFilters`. */
  filters: Record<string, string | number>;
}

/**
 * One event type: how its body parses, how it validates (pure), what it stores inside the group
 * transaction (side effects such as the tag inventory), and what its GET snapshot returns. The
 * same object serves the sync path, the async worker and the GET routes.
 */
export interface EventProcessor<Prepared = unknown> {
  eventType: EventType;
  parseBody(raw: string): BodyParse;
  validate(json: unknown, context: ProcessContext): Validation<Prepared>;
  /**
   * Optional: how a large body (events/large-body.ts) is validated a piece at a time, keeping only
   * what `store` needs. Without it a large body is built whole (in slices) and given to `validate`.
   */
  largeBody?: {
    /** Whether values may follow one another (`parseConcatenatedJson`). */
    concatenated: boolean;
    validate(body: LargeJson, context: ProcessContext): Promise<Validation<Prepared>>;
  };
  /**
   * Reads through `tx.read` (inside the group transaction) and adds its writes to `tx`; the caller
   * sends them. A store must not read rows it added itself (they are not sent yet).
   */
  store(tx: WriteBatch, prepared: Prepared, event: EventMeta, context: ProcessContext): Promise<StoreOutcome>;
  /**
   * Optional: stores several events in one go (the group commit hands over everything that
   * arrived during a flush). Must have exactly the effect of `store` on each item in order;
   * processors without it get `store` called item by item.
   */
  storeMany?(tx: WriteBatch, items: StoreItem<Prepared>[]): Promise<StoreOutcome[]>;
  /**
   * Whether `cursor` is one this snapshot hands out as `nextCursor` (the data plane answers any
   * other with 400 rather than quietly starting from the top).
   */
  isCursor(cursor: string): boolean;
  /** The event type's own GET filters (beside since/until/limit/cursor). */
  filterNames: readonly string[];
  /** `timeZone` (the gateway's) reads date-times sent without an offset (`parseInstant`). */
  parseFilters(
    query: Record<string, string>,
    timeZone: string,
  ): { ok: true; filters: Record<string, string | number> } | { ok: false; errors: FieldError[] };
  /** A page of the GET snapshot: as objects, or as the JSON text the database wrote (`SerializedPage`). */
  snapshot(db: Queryable, query: SnapshotQuery): Promise<Page<unknown> | SerializedPage>;
}

/**
 * A snapshot `Page` the database already wrote as the answer's JSON text, held as the bytes that
 * are sent: a page kept for several requests is encoded once, not once per answer.
 */
export class SerializedPage {
  readonly body: Buffer;

  constructor(json: string) {
    this.body = Buffer.from(json);
  }

  get json(): string {
    return this.body.toString();
  }
}
