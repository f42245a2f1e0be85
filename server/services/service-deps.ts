import type { Db } from '../db';
import type { AuditService } from './audit.service';
import type { ConfigChanges } from '../db/config-changes';
import type { SettingsService } from './settings.service';
import type { SecretBox } from '../secret-box';

/** What every configuration service is built from: plain objects, no singletons. */
export interface ServiceDeps {
  db: Db;
  changes: ConfigChanges;
  audit: AuditService;
  settings: SettingsService;
  now: () => number;
  /** Seals the credentials stored for destinations (the data folder's key). */
  secrets: SecretBox;
}
