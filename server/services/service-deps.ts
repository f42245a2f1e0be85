import type { Db } from '../db';
import type { AuditService } from './audit.service';
import type { ConfigChanges } from '../db/config-changes';
import type { SettingsService } from './settings.service';

/** What every configuration service is built from: plain objects, no singletons. */
export interface ServiceDeps {
  db: Db;
  changes: ConfigChanges;
  audit: AuditService;
  settings: SettingsService;
  now: () => number;
}
