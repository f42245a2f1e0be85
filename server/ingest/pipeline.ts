import type { FieldError } from '../contract/errors';
import type { Settings } from '../contract/dto';
import type { EventMeta, EventProcessor } from '../events/processor';
import { PROCESSORS } from '../events/registry';
import { eventWrites, type EventInsert, type EventRow } from '../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import { rejectedAnswer, type Answer } from './answers';
import type { GroupCommit } from './group-commit';

export interface Submission {
  meta: EventMeta;
  raw: string;
  json: unknown;
  epcisLenient: boolean;
  /** Built once the answer is known, so the answer and the key commit in one transaction. */
  idempotency?: (answer: Answer) => IdempotencyInsert;
}

const toJson = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

function eventRow(
  meta: EventMeta,
  raw: string,
  fields: Pick<EventInsert, 'status' | 'processed_at' | 'data' | 'result' | 'errors' | 'warnings'>,
): EventInsert {
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
    ...fields,
  };
}

/** Another worker took the event over (our lease ran out); it is theirs to finish. */
export class LeaseLost extends Error {
  constructor(id: string) {
    super(`lease on event ${id} was lost`);
    this.name = 'LeaseLost';
  }
}

/** What processing one payload came to; the same for the sync path and the async worker. */
type Processed =
  | { kind: 'processed'; result: Record<string, unknown>; data: string | null; warnings: FieldError[] }
  | { kind: 'rejected'; errors: FieldError[] };

/**
 * Processing shared by the sync route handler and the async worker: validate (pure), then store
 * the event type's side effects and the event's outcome inside one group transaction, so an event
 * has exactly one stored result whichever path, crash or retry got it there.
 */
export class Pipeline {
  constructor(
    private readonly commit: GroupCommit,
    private readonly settings: () => Settings,
    private readonly now: () => number,
  ) {}

  processorFor(meta: EventMeta): EventProcessor<unknown> {
    return PROCESSORS[meta.eventType];
  }

  private validate(meta: EventMeta, json: unknown, epcisLenient: boolean) {
    const context = {
      principal: meta.principal,
      receivedAt: meta.receivedAt,
      route: { epcisLenient },
      settings: this.settings(),
    };
    return { context, validation: this.processorFor(meta).validate(json, context) };
  }

  /** Sync POST: answers 200 with the result, or 422 keeping the rejected event. */
  async processNow(submission: Submission): Promise<Answer> {
    const { meta, raw, json, epcisLenient } = submission;
    const { context, validation } = this.validate(meta, json, epcisLenient);
    if (!validation.ok) {
      const answer = rejectedAnswer(meta.id, validation.errors, meta.requestId);
      const row = eventRow(meta, raw, {
        status: 'rejected',
        processed_at: this.now(),
        data: null,
        result: null,
        errors: toJson(validation.errors),
        warnings: null,
      });
      await this.commit.insert(row, submission.idempotency?.(answer));
      return answer;
    }
    return this.commit.run(async (trx) => {
      const outcome = await this.processorFor(meta).store(trx, validation.value, meta, context);
      const answer: Answer = {
        status: 200,
        body: {
          id: meta.id,
          eventType: meta.eventType,
          status: 'processed',
          result: outcome.result,
          ...(validation.warnings.length > 0 ? { warnings: validation.warnings } : {}),
        },
      };
      const row = eventRow(meta, raw, {
        status: 'processed',
        processed_at: this.now(),
        data: outcome.data,
        result: toJson(outcome.result),
        errors: null,
        warnings: validation.warnings.length > 0 ? toJson(validation.warnings) : null,
      });
      await eventWrites.insertMany(trx, [row]);
      const idempotency = submission.idempotency?.(answer);
      if (idempotency) await idempotencyRepo.insertMany(trx, [idempotency]);
      return answer;
    });
  }

  /** Async POST: the raw event is durably queued before the 202 is given. */
  async enqueue(submission: Submission, answer: Answer): Promise<void> {
    const row = eventRow(submission.meta, submission.raw, {
      status: 'queued',
      processed_at: null,
      data: null,
      result: null,
      errors: null,
      warnings: null,
    });
    await this.commit.insert(row, submission.idempotency?.(answer));
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
    return this.commit.run(async (trx) => {
      if (!(await eventWrites.confirmLease(trx, row.id, owner))) throw new LeaseLost(row.id);
      if (!validation.ok || context === null) {
        await eventWrites.setOutcome(trx, row.id, {
          status: 'rejected',
          processed_at: this.now(),
          result: null,
          errors: toJson(validation.ok ? [] : validation.errors),
          warnings: null,
        });
        return { kind: 'rejected' as const, errors: validation.ok ? [] : validation.errors };
      }
      const outcome = await this.processorFor(meta).store(trx, validation.value, meta, context);
      await eventWrites.setOutcome(trx, row.id, {
        status: 'processed',
        processed_at: this.now(),
        data: outcome.data,
        result: toJson(outcome.result),
        errors: null,
        warnings: validation.warnings.length > 0 ? toJson(validation.warnings) : null,
      });
      return { kind: 'processed' as const, result: outcome.result, data: outcome.data, warnings: validation.warnings };
    });
  }
}
