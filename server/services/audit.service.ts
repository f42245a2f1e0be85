import type { AuditAction, AuditEntry, AuditResource, Page } from '../contract/dto';
import type { CallContext } from '../contract/operations';
import type { Db } from '../db';
import { auditRepo } from '../repositories/audit.repo';
import type { Queryable } from '../repositories/db-types';
import { validationFailed } from '../errors';
import { iso } from '../time';
import { storedId } from '../validation';
import { readListQuery } from './paging';
import { AUDIT_QUERY, filtersOf } from '../contract/schemas';

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
      // The same query rules as /events: no filters here, and the cursor is an entry's id.
      const { limit, cursor, errors } = readListQuery(query, {
        filters: filtersOf(AUDIT_QUERY),
        isCursor: (value) => storedId(value) !== null,
      });
      if (errors.length > 0) throw validationFailed(errors);
      const beforeId = cursor === undefined ? undefined : (storedId(cursor) ?? undefined);
      const rows = await auditRepo.page(deps.db.knex, limit + 1, beforeId);
      const items = rows.slice(0, limit).map((row) => ({ ...row, at: iso(row.at) }));
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > limit && last ? String(last.id) : null };
    },
  };
}
