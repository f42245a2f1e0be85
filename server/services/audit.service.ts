import type { AuditAction, AuditEntry, AuditResource, Page } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import type { Db } from '../db';
import { auditRepo } from '../repositories/audit.repo';
import type { Queryable } from '../repositories/db-types';
import { iso } from '../time';
import { readPaging } from './paging';

export interface AuditService {
  /** Written inside the caller's transaction, so a change and its audit entry commit together. */
  record(
    db: Queryable,
    context: CallContext,
    action: AuditAction,
    resource: AuditResource,
    resourceId: number | null,
    summary: string,
  ): Promise<void>;
  listAudit(query: unknown): Promise<Page<AuditEntry>>;
}

export function createAuditService(deps: { db: Db; now: () => number }): AuditService {
  return {
    async record(db, context, action, resource, resourceId, summary) {
      await auditRepo.insert(db, { at: deps.now(), actor: context.actor, action, resource, resourceId, summary });
    },

    async listAudit(query) {
      const { limit, cursor } = readPaging(query);
      const beforeId = cursor === undefined ? undefined : Number(cursor);
      const rows = await auditRepo.page(deps.db.knex, limit + 1, Number.isSafeInteger(beforeId) ? beforeId : undefined);
      const items = rows.slice(0, limit).map((row) => ({ ...row, at: iso(row.at) }));
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > limit && last ? String(last.id) : null };
    },
  };
}
