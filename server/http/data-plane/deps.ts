import type { CredentialVerifier } from '../../auth/credentials';
import type { Lockout } from '../../auth/lockout';
import type { Db } from '../../db';
import type { ReadRounds } from '../../db/read-rounds';
import type { Intake } from '../../intake/intake';
import type { LiveRoutes } from '../../intake/route-table';
import type { Logger } from '../../logger';
import type { SettingsService } from '../../services/settings.service';
import type { BodyBudget } from './body-budget';

/** What the HTTP data plane and its EPCIS paths are built from. */
export interface DataPlaneDeps {
  db: Db;
  routes: LiveRoutes;
  verifier: CredentialVerifier;
  lockout: Lockout;
  settings: SettingsService;
  /** Where a POST's body goes: the transport-neutral intake core. */
  intake: Intake;
  /** GET snapshots: identical ones asked for together share one read. */
  snapshots: ReadRounds;
  /** Memory for large bodies in flight (issue 38.3). */
  bodies: BodyBudget;
  logger: Logger;
}
