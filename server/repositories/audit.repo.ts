import type { AuditAction, AuditResource } from '../contract/dto';
import { num, numOrNull, type Queryable } from './db-types';

export interface AuditRecord {
  id: number;
  at: number;
  actor: string;
  action: AuditAction;
  resource: AuditResource;
  resourceId: number | null;
  summary: string;
}

export const auditRepo = {
  async insert(db: Queryable, entry: Omit<AuditRecord, 'id'>): Promise<void> {
    await db('audit_log').insert({
      at: entry.at,
      actor: entry.actor,
      action: entry.action,
      resource: entry.resource,
      resource_id: entry.resourceId,
      summary: entry.summary,
    });
  },

  /** Newest first; `beforeId` is the keyset cursor (the last id of the previous page). */
  async page(db: Queryable, limit: number, beforeId?: number): Promise<AuditRecord[]> {
    const query = db('audit_log').select('*').orderBy('id', 'desc').limit(limit);
    if (beforeId !== undefined) void query.where('id', '<', beforeId);
    const rows = (await query) as {
      id: unknown;
      at: unknown;
      actor: string;
      action: AuditAction;
      resource: AuditResource;
      resource_id: unknown;
      summary: string;
    }[];
    return rows.map((row) => ({
      id: num(row.id),
      at: num(row.at),
      actor: row.actor,
      action: row.action,
      resource: row.resource,
      resourceId: numOrNull(row.resource_id),
      summary: row.summary,
    }));
  },
};
