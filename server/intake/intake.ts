import { principalName, type Principal } from '../auth/credentials';
import { isStorageError } from '../db/unavailable';
import type { Transport } from '../contract/dto';
import type { CaptureBehaviour, EventMeta } from '../events/processor';
import { PROCESSORS } from '../events/registry';
import { newEventId } from '../ids';
import { parseRequestJson } from '../events/large-body';
import { LargeJson } from '../events/large-json';
import type { Logger } from '../logger';
import type { Payload } from '../repositories/event-payload';
import type { SettingsService } from '../services/settings.service';
import { bodyHash } from './body-hash';
import { NOT_UTF8, payloadOf } from './body-text';
import type { IngestLoad } from './commit/ingest-load';
import type { Idempotency, IdempotencyScope } from './idempotency';
import type { IntakeOutcome, QueuedOutcome, StoredOutcome } from './outcome';
import type { Submission } from './processing/event-processing';
import type { QueuedPath } from './processing/queued-path';
import type { SyncPath } from './processing/sync-path';
import type { Worker } from './processing/worker';
import type { LiveRoute } from './route-table';

/** Where a submission came from, as its stored event keeps it (SPEC §10, §15). */
export interface SubmissionSource {
  transport: Transport;
  /** The client's address. */
  ip: string;
  /** `X-Request-Id` over HTTP; `mqtt:<clientId>:<n>` over MQTT. */
  requestId: string;
  /** The MQTT topic it was published to; null over HTTP. */
  topic: string | null;
  /** Names the reader when the payload names none (SPEC §15: the MQTT client id); else the principal does. */
  readerId?: string;
}

/** One submission, whatever carried it: the route it is for, who sent it, and its bytes as received. */
export interface SubmissionInput {
  route: LiveRoute;
  principal: Principal;
  /**
   * As received: bytes (the size limit and UTF-8 are checked here), or what a transport made of
   * bytes it read under `bodyLimitBytes` with `payloadOf` (HTTP: so a short body's bytes are not
   * kept beside their text).
   */
  raw: Buffer | Payload;
  source: SubmissionSource;
  /** 1–255 characters; a repeat within 24 h by the same principal replays the first outcome (SPEC §4). */
  idempotencyKey?: string;
  /** Take the queued path whatever the route's `async` says (an EPCIS capture is always a job, SPEC §17). */
  queued?: boolean;
  /** An EPCIS capture (SPEC §17): kept with the submission, read by the EpcisObject processor. */
  capture?: CaptureBehaviour;
  /**
   * How long a queued submission may wait for room when the queue is full before it is answered
   * `overloaded` (0: at once). It is parsed once, whatever the wait.
   */
  waitForRoomMs?: number;
}

/** How often a submission waiting for room asks the load policy again. */
const ROOM_POLL_MS = 50;

/** Seconds a client is asked to wait when the database cannot take a submission now. */
const UNAVAILABLE_RETRY_SECONDS = 5;

/**
 * The intake core (SPEC §4, §15): one entry for every transport. A submission's bytes go through
 * the body rules (UTF-8 JSON, nesting, the size limit, the event type's parse), idempotency, the
 * load policy and then the sync path (processed and stored before the outcome) or the queued
 * path (stored durably, processed by the worker). The outcome is a domain fact; the HTTP data
 * plane and the MQTT broker each say it in their own terms.
 */
export class Intake {
  constructor(
    private readonly deps: {
      settings: SettingsService;
      sync: SyncPath;
      queued: QueuedPath;
      idempotency: Idempotency;
      load: IngestLoad;
      worker: Worker;
      logger: Logger;
      now: () => number;
    },
  ) {}

  async submit(input: SubmissionInput): Promise<IntakeOutcome> {
    const { route: live, raw } = input;
    let payload: Payload;
    if (!Buffer.isBuffer(raw)) payload = raw;
    else {
      const limit = this.deps.settings.current().bodyLimitBytes;
      if (raw.length > limit) {
        return { kind: 'invalid', code: 'payload_too_large', message: `The body exceeds ${limit} bytes` };
      }
      const decoded = payloadOf(raw);
      if (decoded === null) return invalidJson(NOT_UTF8);
      payload = decoded;
    }
    // Too deep (SPEC §13) or malformed, before anything is stored; a small body at once, a large
    // one in slices that yield the event loop (issue 38.3).
    const parsing = parseRequestJson(PROCESSORS[live.route.eventType], payload);
    const parsed = parsing instanceof Promise ? await parsing : parsing;
    if (!parsed.ok) return invalidJson(parsed.message);
    // After the body (SPEC §10): a malformed body is refused as such whatever the key.
    const key = input.idempotencyKey;
    if (key !== undefined && (key.length === 0 || key.length > 255)) {
      return {
        kind: 'invalid',
        code: 'invalid_idempotency_key',
        message: 'Idempotency-Key must be 1 to 255 characters',
      };
    }

    const principal = principalName(input.principal);
    // One instant for both: an id is never older than its receive time (see `eventIdFloor`).
    const receivedAt = this.deps.now();
    const meta: EventMeta = {
      id: newEventId(receivedAt),
      routeId: live.route.id,
      routeName: live.route.name,
      endpointId: live.endpoint.id,
      endpointName: live.endpoint.name,
      eventType: live.route.eventType,
      receivedAt,
      principal,
      sourceIp: input.source.ip,
      requestId: input.source.requestId,
      transport: input.source.transport,
      topic: input.source.topic,
      ...(input.source.readerId === undefined ? {} : { readerId: input.source.readerId }),
      ...(input.capture === undefined ? {} : { capture: input.capture }),
    };
    let scope: IdempotencyScope | null = null;
    if (key !== undefined) {
      const hash = bodyHash(payload);
      scope = {
        routeId: live.route.id,
        // On a noauth route the caller is known only by its address (SPEC §10).
        principal: principal === 'anonymous' ? `ip:${input.source.ip}` : principal,
        key,
        bodyHash: typeof hash === 'string' ? hash : await hash,
      };
    }
    const submission: Submission = {
      meta,
      raw: payload,
      json: parsed.json,
      epcisLenient: live.route.epcisLenient,
      idempotency: scope ? (outcome: StoredOutcome) => this.deps.idempotency.record(scope, outcome) : undefined,
    };
    const run = () =>
      this.store(submission, input.queued === true || live.route.async, scope, input.waitForRoomMs ?? 0, {
        inline: input.queued !== true,
      });
    return scope ? this.deps.idempotency.guard(scope, run) : run();
  }

  private async store(
    submission: Submission,
    async: boolean,
    scope: IdempotencyScope | null,
    waitForRoomMs: number,
    options: { inline: boolean },
  ): Promise<IntakeOutcome> {
    if (scope) {
      const first = await this.deps.idempotency.replay(scope);
      if (first === 'reused') {
        return {
          kind: 'conflict',
          code: 'idempotency_key_reused',
          message: 'This Idempotency-Key was already used with a different body',
        };
      }
      if (first) return { kind: 'replayed', first };
    }
    if (!async) return this.deps.sync.process(submission).catch((error: unknown) => this.unavailable(error));
    if (options.inline && this.processesAtOnce(submission)) return this.processAtOnce(submission, scope);
    let admission = this.deps.load.admitQueued();
    for (let waited = 0; !admission.admitted && waited < waitForRoomMs; waited += ROOM_POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, ROOM_POLL_MS));
      admission = this.deps.load.admitQueued();
    }
    if (!admission.admitted) return { kind: 'overloaded', retryAfterSeconds: admission.retryAfterSeconds };
    try {
      const outcome = await this.deps.queued.enqueue(submission);
      this.deps.worker.notify();
      return outcome;
    } catch (error) {
      this.deps.load.released();
      return this.unavailable(error);
    }
  }

  /**
   * An async event is processed in the transaction that acknowledges it when nothing queued is
   * waiting (issue 37): one write and one parse instead of a queued row, a claim and an update.
   * Not a large body (its processing takes seconds, and a 202 promises an early answer), not
   * when this instance leaves the queue to others, never ahead of an event already queued, and
   * not beyond the load policy's limit of events processed so at once (`IngestLoad.admitAtOnce`).
   */
  private processesAtOnce(submission: Submission): boolean {
    return this.deps.worker.processing && !(submission.json instanceof LargeJson) && this.deps.load.admitAtOnce();
  }

  /** The sync path's group transaction, answered as the 202 the route promises (SPEC §4). */
  private async processAtOnce(submission: Submission, scope: IdempotencyScope | null): Promise<IntakeOutcome> {
    const queued: QueuedOutcome = { kind: 'queued', id: submission.meta.id };
    // A repeat replays the 202 it was given, not the processing result it never saw.
    const idempotency = scope ? () => this.deps.idempotency.record(scope, queued) : undefined;
    try {
      // Without a key the submission has no recorder to replace: it goes as it is (no copy).
      await this.deps.sync.process(scope ? { ...submission, idempotency } : submission, 'async');
      return queued;
    } catch (error) {
      return this.unavailable(error);
    } finally {
      this.deps.load.releasedAtOnce();
    }
  }

  /**
   * Storage trouble while writing is never a failure of the submission: the client is told to
   * come back. Only errors from storage (a driver's coded error, an unreachable database) mean
   * that; anything else is a bug that retrying cannot fix, and is thrown on (SPEC §13).
   */
  private unavailable(error: unknown): IntakeOutcome {
    if (!isStorageError(error)) throw error;
    this.deps.logger.error('storage write failed', { error });
    return { kind: 'unavailable', retryAfterSeconds: UNAVAILABLE_RETRY_SECONDS };
  }
}

const invalidJson = (message: string): IntakeOutcome => ({ kind: 'invalid', code: 'invalid_json', message });
