import type { DestinationAuthType } from '../contract/dto';
import type { RoleReference } from '../contract/errors';
import type { SealedSecret } from '../secret-box';
import { bool, nameKey, num, type Queryable } from './db-types';

/** A destination as stored, secrets included: only services and the delivery engine see this. */
export interface DestinationRecord {
  id: number;
  name: string;
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  authType: DestinationAuthType;
  authUsername: string | null;
  /** The Basic password, bearer token or HMAC secret, sealed (secret-box.ts). */
  authSecret: SealedSecret | null;
  timeoutMs: number;
  batchMaxEvents: number;
  batchMaxWaitMs: number;
  maxRetryAgeSeconds: number;
  tlsVerify: boolean;
  caCertificatePem: string | null;
  active: boolean;
  createdAt: number;
}

export type DestinationWrite = Omit<DestinationRecord, 'id' | 'createdAt'>;

interface DestinationRow {
  id: number;
  name: string;
  kind: 'http';
  url: string;
  headers: string;
  auth_type: DestinationAuthType;
  auth_username: string | null;
  auth_secret: SealedSecret | null;
  timeout_ms: unknown;
  batch_max_events: unknown;
  batch_max_wait_ms: unknown;
  max_retry_age_seconds: unknown;
  tls_verify: unknown;
  ca_certificate_pem: string | null;
  active: unknown;
  created_at: unknown;
}

const toRecord = (row: DestinationRow): DestinationRecord => ({
  id: num(row.id),
  name: row.name,
  kind: row.kind,
  url: row.url,
  headers: JSON.parse(row.headers) as Record<string, string>,
  authType: row.auth_type,
  authUsername: row.auth_username,
  authSecret: row.auth_secret,
  timeoutMs: num(row.timeout_ms),
  batchMaxEvents: num(row.batch_max_events),
  batchMaxWaitMs: num(row.batch_max_wait_ms),
  maxRetryAgeSeconds: num(row.max_retry_age_seconds),
  tlsVerify: bool(row.tls_verify),
  caCertificatePem: row.ca_certificate_pem,
  active: bool(row.active),
  createdAt: num(row.created_at),
});

const toRow = (destination: DestinationWrite) => ({
  name: destination.name,
  name_key: nameKey(destination.name),
  kind: destination.kind,
  url: destination.url,
  headers: JSON.stringify(destination.headers),
  auth_type: destination.authType,
  auth_username: destination.authUsername,
  auth_secret: destination.authSecret,
  timeout_ms: destination.timeoutMs,
  batch_max_events: destination.batchMaxEvents,
  batch_max_wait_ms: destination.batchMaxWaitMs,
  max_retry_age_seconds: destination.maxRetryAgeSeconds,
  tls_verify: destination.tlsVerify,
  ca_certificate_pem: destination.caCertificatePem,
  active: destination.active,
});

export const destinationsRepo = {
  async list(db: Queryable): Promise<DestinationRecord[]> {
    return ((await db('destinations').select('*').orderBy('name_key')) as DestinationRow[]).map(toRecord);
  },

  async findById(db: Queryable, id: number): Promise<DestinationRecord | null> {
    const row = (await db('destinations').where({ id }).first()) as DestinationRow | undefined;
    return row ? toRecord(row) : null;
  },

  async findByName(db: Queryable, name: string): Promise<DestinationRecord | null> {
    const row = (await db('destinations')
      .where({ name_key: nameKey(name) })
      .first()) as DestinationRow | undefined;
    return row ? toRecord(row) : null;
  },

  async insert(db: Queryable, destination: DestinationWrite, createdAt: number): Promise<number> {
    const [row] = await db('destinations')
      .insert({ ...toRow(destination), created_at: createdAt })
      .returning<{ id: number }[]>('id');
    return num(row?.id);
  },

  async update(db: Queryable, id: number, destination: DestinationWrite): Promise<void> {
    await db('destinations').where({ id }).update(toRow(destination));
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db('destinations').where({ id }).delete();
  },

  /** The routes that deliver to this destination: it may not be deleted while any does. */
  async references(db: Queryable, destinationId: number): Promise<RoleReference[]> {
    const rows = (await db('route_destinations')
      .join('routes', 'routes.id', 'route_destinations.route_id')
      .where('route_destinations.destination_id', destinationId)
      .select('routes.id', 'routes.name')
      .orderBy('routes.name_key')) as { id: unknown; name: string }[];
    return rows.map((row) => ({ kind: 'route' as const, id: num(row.id), name: row.name }));
  },

  /** How many routes send to each destination (destinations no route names are absent). */
  async routeCounts(db: Queryable): Promise<Map<number, number>> {
    const rows: { destination_id: unknown; routes: unknown }[] = await db('route_destinations')
      .select('destination_id')
      .count({ routes: '*' })
      .groupBy('destination_id');
    return new Map(rows.map((row) => [num(row.destination_id), num(row.routes)]));
  },

  /** Every stored credential with its destination's id, sealed or (from before sealing) clear. */
  async secrets(db: Queryable): Promise<{ id: number; secret: SealedSecret }[]> {
    const rows: { id: unknown; auth_secret: SealedSecret }[] = await db('destinations')
      .whereNotNull('auth_secret')
      .select('id', 'auth_secret');
    return rows.map((row) => ({ id: num(row.id), secret: row.auth_secret }));
  },

  /** Replaces a credential if it is still `from` (another instance may have sealed it meanwhile). */
  async replaceSecret(db: Queryable, id: number, from: SealedSecret, to: SealedSecret): Promise<boolean> {
    return (await db('destinations').where({ id, auth_secret: from }).update({ auth_secret: to })) > 0;
  },

  /** Which of these ids exist. */
  async existingIds(db: Queryable, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows: { id: unknown }[] = await db('destinations').whereIn('id', ids).select('id');
    return new Set(rows.map((row) => num(row.id)));
  },

  /** Route id → the ids of the destinations it delivers to (routes without any are absent). */
  async byRoute(db: Queryable): Promise<Map<number, number[]>> {
    const rows = (await db('route_destinations')
      .select('route_id', 'destination_id')
      .orderBy(['route_id', 'destination_id'])) as { route_id: unknown; destination_id: unknown }[];
    const map = new Map<number, number[]>();
    for (const row of rows) {
      const routeId = num(row.route_id);
      const list = map.get(routeId) ?? [];
      list.push(num(row.destination_id));
      map.set(routeId, list);
    }
    return map;
  },

  /** Links routes to destinations (a restore: the routes' old links went with them). */
  async linkRoutes(db: Queryable, links: readonly { routeId: number; destinationId: number }[]): Promise<void> {
    for (let start = 0; start < links.length; start += 200)
      await db('route_destinations').insert(
        links.slice(start, start + 200).map((link) => ({ route_id: link.routeId, destination_id: link.destinationId })),
      );
  },
};
