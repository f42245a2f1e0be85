import { X509Certificate, randomBytes } from 'node:crypto';
import {
  DESTINATION_AUTH_TYPES,
  type DeadLetter,
  type Destination,
  type DestinationStatus,
  type DestinationTestResult,
  type DestinationWithSecret,
  type Page,
} from '../contract/dto';
import type { CallContext } from '../contract/operations';
import { AppError, notFound, validationFailed } from '../errors';
import { isUniqueViolation } from '../repositories/db-types';
import { destinationsRepo, type DestinationRecord, type DestinationWrite } from '../repositories/destinations.repo';
import { outboxRepo, type DeliveryBatch } from '../repositories/outbox.repo';
import type { SealedSecret, SecretBox } from '../secret-box';
import { iso } from '../time';
import { InputReader, readId } from '../validation';
import { readListQuery } from './paging';
import type { ServiceDeps } from './service-deps';

/** SPEC §11's ranges and defaults. */
export const DESTINATION_LIMITS = {
  timeoutMs: { min: 1000, max: 120_000, fallback: 10_000, label: 'Timeout (ms)' },
  batchMaxEvents: { min: 1, max: 1000, fallback: 100, label: 'Batch size' },
  batchMaxWaitMs: { min: 0, max: 60_000, fallback: 1000, label: 'Batch wait (ms)' },
  maxRetryAgeSeconds: { min: 60, max: 2_592_000, fallback: 604_800, label: 'Retry for (seconds)' },
} as const;

/**
 * Headers the gateway sets itself on every delivery: a destination may not set them (SPEC §11).
 * `X-Gateway-Id` too: a second one beside the gateway's could hide a delivery come back.
 */
const RESERVED_HEADERS = ['content-type', 'content-length', 'host', 'idempotency-key', 'x-gateway-id'];
/** RFC 9110 §5.1 field-name token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/**
 * What the delivery engine tells the service: live status, and what a technician's retry or
 * discard changes in its in-memory view (the engine sits above the services; it is handed in).
 */
export interface DeliveryControl {
  statusOf(destination: DestinationRecord): Promise<DestinationStatus>;
  /** Dead letters of `destinationId` went back to the outbox. */
  retried(destinationId: number, moved: { batches: number; items: number }): void;
  /** Dead letters were discarded. */
  discarded(destinationId: number, batches: number): void;
  /** The batch waiting for a retry is due now (a technician's "Retry now"). */
  retryNow(destinationId: number): Promise<void>;
  /** Sends one marked test item to the receiver, outside the outbox. */
  sendTest(destination: DestinationRecord): Promise<DestinationTestResult>;
}

/** A new HMAC secret: 32 random bytes, as hex; the key is this text (SPEC §11). */
const newSecret = (): string => randomBytes(32).toString('hex');

type AuthDraft =
  | { type: 'none' }
  | { type: 'basic'; username: string; password: string | undefined }
  | { type: 'bearer'; token: string | undefined }
  | { type: 'hmac' };

type DestinationDraft = Omit<DestinationWrite, 'authType' | 'authUsername' | 'authSecret'> & { auth: AuthDraft };

function readHeaders(r: InputReader, authType: string): Record<string, string> {
  const raw = r.raw('headers');
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    r.fail('headers', 'Headers must be an object of header names to values');
    return {};
  }
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const path = `headers/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const key = name.toLowerCase();
    if (!HEADER_NAME.test(name)) r.fail(path, `"${name}" is not a valid header name`);
    else if (RESERVED_HEADERS.includes(key)) r.fail(path, `The gateway sets ${name} itself`);
    else if (key === 'authorization' && authType !== 'none')
      r.fail(path, 'Authorization comes from the destination’s authentication; remove one of them');
    else if (seen.has(key)) r.fail(path, `Header ${name} is given twice`);
    else if (typeof value !== 'string' || /[\r\n\0]/.test(value) || value.length > 8192)
      r.fail(path, `The value of ${name} must be text on one line (at most 8192 characters)`);
    else {
      seen.add(key);
      headers[name] = value;
    }
  }
  return headers;
}

function readAuth(r: InputReader): AuthDraft {
  const raw = r.raw('auth');
  if (raw === undefined || raw === null) return { type: 'none' };
  const a = new InputReader(raw, r.path('auth'));
  const type = a.oneOf('type', DESTINATION_AUTH_TYPES, 'Authentication type');
  let auth: AuthDraft = { type: 'none' };
  if (type === 'basic') {
    const username = a.string('username', { required: true, max: 256, label: 'Username' });
    if (username.includes(':')) a.fail('username', 'A Basic username cannot contain ":"');
    const password = a.string('password', { allowBlank: true, max: 1024, label: 'Password' });
    if (password === '') a.fail('password', 'Password is required');
    auth = { type, username, password };
  } else if (type === 'bearer') {
    const token = a.string('token', { allowBlank: true, max: 8192, label: 'Token' });
    if (token !== undefined && (token === '' || /[\r\n\0]/.test(token)))
      a.fail('token', 'Token must be text on one line');
    auth = { type, token };
  } else if (type === 'hmac') auth = { type };
  r.errors.push(...a.errors);
  return auth;
}

function readInteger(r: InputReader, key: keyof typeof DESTINATION_LIMITS): number {
  const { min, max, fallback, label } = DESTINATION_LIMITS[key];
  const value = r.raw(key);
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    r.fail(key, `${label} must be a whole number from ${min} to ${max}`);
    return fallback;
  }
  return value;
}

function readUrl(r: InputReader): string {
  const url = r.string('url', { required: true, max: 2048, label: 'URL' });
  if (r.errors.some((error) => error.path === r.path('url'))) return url;
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname)
    r.fail('url', 'URL must be an http:// or https:// address');
  else if (parsed.username || parsed.password) r.fail('url', 'Put credentials in the authentication, not in the URL');
  return url;
}

/** One or more PEM certificates that Node can read, else an error on the field. */
function readCaCertificates(r: InputReader): string | null {
  const pem = r.string('caCertificatePem', { max: 262_144, label: 'CA certificate' });
  if (pem === undefined || pem.trim() === '') return null;
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    if (blocks.length === 0) throw new Error('no certificate');
    for (const block of blocks) new X509Certificate(block);
  } catch {
    r.fail('caCertificatePem', 'CA certificate must be one or more PEM certificates (-----BEGIN CERTIFICATE-----)');
  }
  return pem;
}

/** Shape and per-field rules (400); the name's uniqueness comes after (409). */
export function readDestination(input: unknown): DestinationDraft {
  const r = new InputReader(input);
  const name = r.string('name', { required: true, max: 64, label: 'Name' });
  const kind = r.has('kind') ? r.oneOf('kind', ['http'] as const, 'Kind') : 'http';
  const url = readUrl(r);
  const auth = readAuth(r);
  const headers = readHeaders(r, auth.type);
  const destination: DestinationDraft = {
    name,
    kind,
    url,
    headers,
    auth,
    timeoutMs: readInteger(r, 'timeoutMs'),
    batchMaxEvents: readInteger(r, 'batchMaxEvents'),
    batchMaxWaitMs: readInteger(r, 'batchMaxWaitMs'),
    maxRetryAgeSeconds: readInteger(r, 'maxRetryAgeSeconds'),
    tlsVerify: r.boolean('tlsVerify', true),
    caCertificatePem: readCaCertificates(r),
    active: r.boolean('active', true),
  };
  r.check();
  return destination;
}

/**
 * The stored form of a draft: secrets come from the input (sealed here), else (same type on
 * update) the stored record's, kept sealed as they are; a new `hmac` gets a fresh secret, which
 * the caller answers once.
 */
function resolveSecrets(
  draft: DestinationDraft,
  existing: DestinationRecord | null,
  box: SecretBox,
): { write: DestinationWrite; newSecret: string | null } {
  const { auth, ...rest } = draft;
  const kept = existing && existing.authType === auth.type ? existing.authSecret : null;
  const missing = (path: string, label: string) =>
    validationFailed([{ path: `/auth/${path}`, message: `${label} is required` }]);
  const given = (value: string | undefined): SealedSecret | null => (value ? box.seal(value) : kept);
  switch (auth.type) {
    case 'none':
      return { write: { ...rest, authType: 'none', authUsername: null, authSecret: null }, newSecret: null };
    case 'basic': {
      const secret = given(auth.password);
      if (!secret) throw missing('password', 'Password');
      return {
        write: { ...rest, authType: 'basic', authUsername: auth.username, authSecret: secret },
        newSecret: null,
      };
    }
    case 'bearer': {
      const secret = given(auth.token);
      if (!secret) throw missing('token', 'Token');
      return { write: { ...rest, authType: 'bearer', authUsername: null, authSecret: secret }, newSecret: null };
    }
    case 'hmac': {
      const fresh = kept ? null : newSecret();
      return {
        write: { ...rest, authType: 'hmac', authUsername: null, authSecret: fresh ? box.seal(fresh) : kept },
        newSecret: fresh,
      };
    }
  }
}

const nameTaken = (name: string) =>
  new AppError('destination_name_taken', `A destination named "${name}" already exists`, {
    errors: [{ path: '/name', message: 'This destination name is already used' }],
  });

function rethrowUnique(name: string) {
  return (error: unknown): never => {
    throw isUniqueViolation(error) ? nameTaken(name) : error;
  };
}

/** The answer's form: everything but the secrets; `routes` names the routes that send to it. */
export function destinationToDto(record: DestinationRecord, status: DestinationStatus, routes: string[]): Destination {
  return {
    id: record.id,
    name: record.name,
    kind: record.kind,
    url: record.url,
    headers: record.headers,
    auth:
      record.authType === 'basic' ? { type: 'basic', username: record.authUsername ?? '' } : { type: record.authType },
    timeoutMs: record.timeoutMs,
    batchMaxEvents: record.batchMaxEvents,
    batchMaxWaitMs: record.batchMaxWaitMs,
    maxRetryAgeSeconds: record.maxRetryAgeSeconds,
    tlsVerify: record.tlsVerify,
    caCertificatePem: record.caCertificatePem,
    active: record.active,
    createdDate: iso(record.createdAt),
    status,
    routes,
  };
}

function deadLetterToDto(batch: DeliveryBatch): DeadLetter {
  return {
    id: batch.id,
    batchId: batch.batchId,
    itemCount: batch.itemCount,
    firstAttemptAt: batch.firstAttemptAt === null ? null : iso(batch.firstAttemptAt),
    failedAt: iso(batch.failedAt ?? 0),
    attempts: batch.attempts,
    reason: batch.reason ?? 'http_status',
    lastStatus: batch.lastStatus,
    lastError: batch.lastError,
  };
}

/** `{ids}`: absent means every dead letter; else a list of ids. */
function readSelection(input: unknown): number[] | undefined {
  const raw = (input as { ids?: unknown } | null)?.ids;
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw) || raw.some((id) => typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1))
    throw validationFailed([{ path: '/ids', message: 'ids must be a list of dead-letter ids' }]);
  return raw as number[];
}

/** The dead-letter list's paging, read as every paged list reads it; its cursor is a dead letter's id. */
function readPage(input: unknown): { limit: number; beforeId?: number } {
  const { limit, cursor, errors } = readListQuery(input, {
    // `id` is the destination's, from the path.
    filters: ['id'],
    isCursor: (text) => /^[1-9]\d{0,9}$/.test(text),
  });
  if (errors.length > 0) throw validationFailed(errors);
  return cursor === undefined ? { limit } : { limit, beforeId: Number(cursor) };
}

/**
 * A destination whose URL leads to the gateway's own data routes would send every event back in,
 * and out again, without end (issue 38: 3 events became 24; two such destinations doubled the
 * payload at each turn). Refused on create and update, with the field named, while the destination
 * is active: a paused one sends nothing, so one that loops already can still be paused and mended.
 */
async function refuseLoop(draft: DestinationDraft, addressesGateway: (url: string) => Promise<boolean>): Promise<void> {
  if (!draft.active || !(await addressesGateway(draft.url))) return;
  const message =
    'This URL leads to this gateway itself: every event delivered there would come back in and be delivered again';
  throw new AppError('destination_loop', message, { errors: [{ path: '/url', message }] });
}

export function createDestinationsService(
  deps: ServiceDeps & {
    delivery: DeliveryControl;
    /** Whether a URL reaches this gateway's own listeners and API path (resolving its host). */
    addressesGateway: (url: string) => Promise<boolean>;
  },
) {
  const { db, delivery } = deps;

  async function find(input: unknown): Promise<DestinationRecord> {
    const destination = await destinationsRepo.findById(db.knex, readId(input, 'Destination'));
    if (!destination) throw notFound('Destination');
    return destination;
  }

  const answer = async (record: DestinationRecord, secret: string | null = null): Promise<DestinationWithSecret> => {
    const [status, references] = await Promise.all([
      delivery.statusOf(record),
      destinationsRepo.references(db.knex, record.id),
    ]);
    const dto = destinationToDto(
      record,
      status,
      references.map((reference) => reference.name),
    );
    return secret === null ? dto : { ...dto, secret };
  };

  return {
    async listDestinations(): Promise<Destination[]> {
      const records = await destinationsRepo.list(db.knex);
      return Promise.all(records.map((record) => answer(record)));
    },

    getDestination: async (input: unknown): Promise<Destination> => answer(await find(input)),

    async createDestination(input: unknown, context: CallContext): Promise<DestinationWithSecret> {
      const draft = readDestination(input);
      await refuseLoop(draft, deps.addressesGateway);
      const { write, newSecret: secret } = resolveSecrets(draft, null, deps.secrets);
      const id = await db.knex
        .transaction(async (trx) => {
          if (await destinationsRepo.findByName(trx, write.name)) throw nameTaken(write.name);
          const newId = await destinationsRepo.insert(trx, write, deps.now());
          await deps.audit.record(trx, context, 'create', 'destinations', newId, `Created destination ${write.name}`);
          return newId;
        })
        .catch(rethrowUnique(write.name));
      deps.changes.publish('destinations');
      return answer(await find({ id }), secret);
    },

    async updateDestination(input: unknown, context: CallContext): Promise<DestinationWithSecret> {
      const id = readId(input, 'Destination');
      const draft = readDestination(input);
      await refuseLoop(draft, deps.addressesGateway);
      let secret: string | null = null;
      await db.knex
        .transaction(async (trx) => {
          const existing = await destinationsRepo.findById(trx, id);
          if (!existing) throw notFound('Destination');
          const clash = await destinationsRepo.findByName(trx, draft.name);
          if (clash && clash.id !== id) throw nameTaken(draft.name);
          const resolved = resolveSecrets(draft, existing, deps.secrets);
          secret = resolved.newSecret;
          await destinationsRepo.update(trx, id, resolved.write);
          await deps.audit.record(trx, context, 'update', 'destinations', id, `Updated destination ${draft.name}`);
        })
        .catch(rethrowUnique(draft.name));
      deps.changes.publish('destinations');
      return answer(await find({ id }), secret);
    },

    async deleteDestination(input: unknown, context: CallContext): Promise<void> {
      const id = readId(input, 'Destination');
      await db.knex.transaction(async (trx) => {
        const existing = await destinationsRepo.findById(trx, id);
        if (!existing) throw notFound('Destination');
        const references = await destinationsRepo.references(trx, id);
        if (references.length > 0)
          throw new AppError(
            'destination_in_use',
            `Destination "${existing.name}" still receives the events of ${references.length} route(s)`,
            { references },
          );
        await destinationsRepo.delete(trx, id);
        await deps.audit.record(trx, context, 'delete', 'destinations', id, `Deleted destination ${existing.name}`);
      });
      deps.changes.publish('destinations');
    },

    async regenerateDestinationSecret(input: unknown, context: CallContext): Promise<DestinationWithSecret> {
      const id = readId(input, 'Destination');
      const secret = newSecret();
      await db.knex.transaction(async (trx) => {
        const existing = await destinationsRepo.findById(trx, id);
        if (!existing) throw notFound('Destination');
        if (existing.authType !== 'hmac')
          throw validationFailed([
            { path: '/auth/type', message: 'Only an hmac destination has a secret to regenerate' },
          ]);
        await destinationsRepo.update(trx, id, { ...existing, authSecret: deps.secrets.seal(secret) });
        await deps.audit.record(trx, context, 'regenerate', 'destinations', id, `New secret for ${existing.name}`);
      });
      deps.changes.publish('destinations');
      return answer(await find({ id }), secret);
    },

    async listDeadLetters(input: unknown): Promise<Page<DeadLetter>> {
      const destination = await find(input);
      const page = readPage(input);
      const batches = await outboxRepo.deadLetters(db.reads, destination.id, { ...page, limit: page.limit + 1 });
      const shown = batches.slice(0, page.limit);
      const last = shown[shown.length - 1];
      return {
        items: shown.map(deadLetterToDto),
        nextCursor: batches.length > page.limit && last ? String(last.id) : null,
      };
    },

    async retryDeadLetters(input: unknown, context: CallContext): Promise<{ retried: number }> {
      const destination = await find(input);
      const ids = readSelection(input);
      const moved = await db.knex.transaction(async (trx) => {
        const retried = await outboxRepo.retryDead(trx, destination.id, ids);
        const which = ids === undefined ? 'all dead letters' : `dead letters ${ids.join(', ')}`;
        await deps.audit.record(
          trx,
          context,
          'retry',
          'destinations',
          destination.id,
          `Retried ${which} of ${destination.name}`,
        );
        return retried;
      });
      delivery.retried(destination.id, moved);
      return { retried: moved.batches };
    },

    async retryDestinationNow(input: unknown, context: CallContext): Promise<Destination> {
      const destination = await find(input);
      if (!destination.active)
        throw validationFailed([
          { path: '/active', message: 'A paused destination sends nothing: make it active to send its backlog' },
        ]);
      await delivery.retryNow(destination.id);
      await deps.audit.record(
        db.knex,
        context,
        'retry',
        'destinations',
        destination.id,
        `Retry now for ${destination.name}`,
      );
      return answer(destination);
    },

    async testDestination(input: unknown, context: CallContext): Promise<DestinationTestResult> {
      const destination = await find(input);
      const result = await delivery.sendTest(destination);
      await deps.audit.record(
        db.knex,
        context,
        'test',
        'destinations',
        destination.id,
        `Sent a test batch to ${destination.name}: ${result.message}`,
      );
      return result;
    },

    async discardDeadLetters(input: unknown, context: CallContext): Promise<void> {
      const destination = await find(input);
      const ids = readSelection(input);
      const batches = await db.knex.transaction(async (trx) => {
        const discarded = await outboxRepo.discardDead(trx, destination.id, ids);
        const which = ids === undefined ? 'all dead letters' : `dead letters ${ids.join(', ')}`;
        await deps.audit.record(
          trx,
          context,
          'discard',
          'destinations',
          destination.id,
          `Discarded ${which} of ${destination.name}`,
        );
        return discarded;
      });
      delivery.discarded(destination.id, batches);
    },
  };
}
