import type { TypeOf } from './schema';
import type * as Schemas from './schemas';

/**
 * Data shapes exchanged through the management contract. Names and enum values are the ones in
 * SPEC §3 and §10; every transport sends exactly these objects. Each shape is written once, as a
 * schema in ./schemas; the types here are read from those schemas (type-only imports, so the
 * renderer bundles the enum lists of ./enums and nothing more).
 */

export {
  AUDIT_ACTIONS,
  AUDIT_RESOURCES,
  BACKUP_RESOURCES,
  EVENT_STATUSES,
  EVENT_TYPES,
  PAYLOAD_TYPE_BY_EVENT_TYPE,
  REQUEST_TYPES,
  AUTH_TYPES,
  DEAD_LETTER_REASONS,
  DESTINATION_AUTH_TYPES,
  DESTINATION_STATES,
  type AuditAction,
  type AuditResource,
  type AuthType,
  type BackupResource,
  type DeadLetterReason,
  type DestinationAuthType,
  type DestinationState,
  type EventStatus,
  type EventType,
  type PayloadType,
  type RequestType,
  type Transport,
} from './enums';

type Of<K extends keyof typeof Schemas> = TypeOf<(typeof Schemas)[K]>;

export type Route = Of<'ROUTE'>;
export type Endpoint = Of<'ENDPOINT'>;
/** What a client submits for a route; a route carrying an `id` keeps it (and its assignments). */
export type RouteInput = Of<'ROUTE_INPUT'>;
export type EndpointInput = Of<'ENDPOINT_INPUT'>;
/** An endpoint PUT also tells which external users lost a route that stopped being `basic`. */
export type EndpointUpdateResult = Of<'ENDPOINT_UPDATE_RESULT'>;

export type Role = Of<'ROLE'>;
export type RoleInput = Of<'ROLE_INPUT'>;

export type User = Of<'USER'>;
/** `password` is required on create, optional on update (omitted = kept). */
export type UserInput = Of<'USER_UPDATE_INPUT'>;

export type ExternalUser = Of<'EXTERNAL_USER'>;
export type ExternalUserInput = Of<'EXTERNAL_USER_UPDATE_INPUT'>;

export type AccessToken = Of<'ACCESS_TOKEN'>;
export type AccessTokenStatus = AccessToken['status'];
export type AccessTokenInput = Of<'ACCESS_TOKEN_INPUT'>;
/** Returned by create and regenerate only: the one time the token value is ever shown. */
export type AccessTokenWithValue = Of<'ACCESS_TOKEN_WITH_VALUE'>;

export type Settings = Of<'SETTINGS'>;
export type TlsMode = Settings['tlsMode'];
export type AdminAccess = Settings['adminAccess'];
export type SettingsUpdateResult = Of<'SETTINGS_UPDATE_RESULT'>;

/** SPEC §12: the certificate the HTTPS listener presents. */
export type TlsCertificateInfo = Of<'TLS_CERTIFICATE_INFO'>;
export type TlsCertificateInput = Of<'TLS_CERTIFICATE_INPUT'>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export type EventRecord = Of<'EVENT_RECORD'>;
export type EventQuery = Of<'EVENT_QUERY'>;
export type AuditEntry = Of<'AUDIT_ENTRY'>;
export type AuditQuery = Of<'AUDIT_QUERY'>;
/** Issue 40: a recent refusal, and the list the Events screen shows. */
export type RefusedRequest = Of<'REFUSED_REQUEST'>;
export type RefusalQuery = Of<'REFUSAL_QUERY'>;
export type RefusalList = Of<'REFUSAL_LIST'>;

export type Status = Of<'STATUS'>;
/** Events received per minute over the last hour, oldest first (the dashboard's chart). */
export type Traffic = Of<'TRAFFIC'>;

export type BackupExportInput = Of<'BACKUP_EXPORT_INPUT'>;
export type BackupFile = Of<'BACKUP_FILE'>;
export type BackupImportInput = Of<'BACKUP_IMPORT_INPUT'>;

/** One setting whose effective value (stored, else the default) an import would change. */
export type SettingChange = Of<'SETTING_CHANGE'>;
export type BackupDiff = Of<'BACKUP_DIFF'>;

/** SPEC §11. */
export type Destination = Of<'DESTINATION'>;
export type DestinationWithSecret = Of<'DESTINATION_WITH_SECRET'>;
export type DestinationInput = Of<'DESTINATION_INPUT'>;
export type DestinationAuthInput = NonNullable<DestinationInput['auth']>;
export type DestinationStatus = Of<'DESTINATION_STATUS'>;
export type DestinationSummary = Of<'DESTINATION_SUMMARY'>;
export type DeadLetter = Of<'DEAD_LETTER'>;
export type DeadLetterQuery = { id: number } & Of<'DEAD_LETTER_QUERY'>;
/** Dead letters of one destination to retry or discard: the listed `ids`, or all when absent. */
export type DeadLetterSelection = { id: number } & Of<'DEAD_LETTER_SELECTION'>;
export type DeadLetterRetryResult = Of<'DEAD_LETTER_RETRY_RESULT'>;

/** SPEC §16. */
export type Reader = Of<'READER'>;
export type ReaderAntenna = Of<'READER_ANTENNA'>;
export type ReaderHealthInfo = Of<'READER_HEALTH'>;
export type ReaderAlarmInfo = Of<'READER_ALARM'>;
/** `id` is the reader's `readerId`. */
export type ReaderInput = { id: string } & Of<'READER_INPUT'>;
export type ReaderHistoryQuery = { id: string } & Of<'READER_HISTORY_QUERY'>;
export type ReaderMinute = TypeOf<typeof Schemas.READER_HISTORY>[number];
export type ReaderCounts = Of<'READER_COUNTS'>;

/** Issue 40: the live inventory of one endpoint, as the admin reads it. */
export type InventoryQuery = Of<'INVENTORY_QUERY'>;
export type InventoryItem = Of<'INVENTORY_ITEM'>;
export type InventoryPage = Of<'INVENTORY_PAGE'>;
/** The decoded tag reads of one stored UHFTagRead event. */
export type EventReads = Of<'EVENT_READS'>;
/** What a test batch to a destination came to (it is never put in the outbox). */
export type DestinationTestResult = Of<'DESTINATION_TEST_RESULT'>;
