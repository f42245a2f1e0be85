/**
 * Data shapes exchanged through the management contract. Names and enum values are the ones in
 * SPEC §3 and §10; every transport sends exactly these objects.
 */

export const EVENT_TYPES = [
  'AllData',
  'CustomTrigger',
  'EpcisMessage',
  'EpcisObject',
  'GhostData',
  'UHFTagRead',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const REQUEST_TYPES = ['HttpPost', 'HttpGet'] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];

export const AUTH_TYPES = ['noauth', 'basic', 'OAuth2'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** Payload type is never chosen: it follows from the event type (SPEC §3). */
export const PAYLOAD_TYPE_BY_EVENT_TYPE = {
  AllData: 'GenericJson',
  CustomTrigger: 'TriggerCommand',
  EpcisMessage: 'EPCISDocument',
  EpcisObject: 'EPCISEvent',
  GhostData: 'GhostTables',
  UHFTagRead: 'TagReadBatch',
} as const satisfies Record<EventType, string>;
export type PayloadType = (typeof PAYLOAD_TYPE_BY_EVENT_TYPE)[EventType];

export const EVENT_STATUSES = ['queued', 'processed', 'rejected', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export interface Route {
  id: number;
  name: string;
  eventType: EventType;
  requestType: RequestType;
  authType: AuthType;
  payloadType: PayloadType;
  active: boolean;
  async: boolean;
  roles: string[];
  epcisLenient: boolean;
  /** Ids of the destinations this route's processed events are delivered to (SPEC §11). */
  destinations: number[];
}

export interface Endpoint {
  id: number;
  name: string;
  baseRoutePath: string;
  active: boolean;
  routes: Route[];
}

/** What a client submits for a route; a route carrying an `id` keeps it (and its assignments). */
export interface RouteInput {
  id?: number;
  name: string;
  eventType: EventType;
  requestType: RequestType;
  authType: AuthType;
  active?: boolean;
  async?: boolean;
  roles?: string[];
  epcisLenient?: boolean;
  /** HttpPost routes only; default none. */
  destinations?: number[];
}

export interface EndpointInput {
  name: string;
  baseRoutePath: string;
  active?: boolean;
  routes: RouteInput[];
}

/** An endpoint PUT also tells which external users lost a route that stopped being `basic`. */
export interface EndpointUpdateResult extends Endpoint {
  revokedExternalUsers: string[];
}

export interface Role {
  id: number;
  name: string;
  description: string;
  builtIn: boolean;
}

export interface RoleInput {
  name: string;
  description?: string;
}

export interface User {
  id: number;
  username: string;
  displayName: string;
  roles: string[];
  active: boolean;
  createdAt: string;
}

export interface UserInput {
  username: string;
  displayName?: string;
  roles?: string[];
  active?: boolean;
  /** Required on create, optional on update (omitted = kept). */
  password?: string;
}

export interface ExternalUser {
  id: number;
  firstName: string;
  lastName: string;
  username: string;
  routes: string[];
  active: boolean;
}

export interface ExternalUserInput {
  firstName?: string;
  lastName?: string;
  username: string;
  routes?: string[];
  active?: boolean;
  password?: string;
}

export type AccessTokenStatus = 'Active' | 'Expired';

export interface AccessToken {
  id: number;
  name: string;
  role: string;
  expiryDate: string;
  description: string;
  createdDate: string;
  expiryInDays: number;
  status: AccessTokenStatus;
}

export interface AccessTokenInput {
  name: string;
  role: string;
  expiryDate: string;
  description?: string;
}

/** Returned by create and regenerate only: the one time the token value is ever shown. */
export interface AccessTokenWithValue extends AccessToken {
  token: string;
}

export interface Settings {
  port: number;
  host: string;
  bodyLimitBytes: number;
  maxQueueDepth: number;
  bearerTokenTtlSeconds: number;
  bcryptCost: number;
  timeZone: string;
  retentionDays: number;
  retentionMaxEvents: number;
  tagDedupWindowMs: number;
  authFailureLimit: number;
  tlsMode: TlsMode;
  httpsPort: number;
  /** IP addresses or CIDRs whose Forwarded / X-Forwarded-* headers are believed (SPEC §12). */
  trustedProxies: string[];
  adminAccess: AdminAccess;
  /** Items one destination's outbox may hold before new ones are dead-lettered (SPEC §11). */
  maxOutboxItems: number;
}

export type TlsMode = 'off' | 'on' | 'both';
export type AdminAccess = 'lan' | 'local';

/** SPEC §12: the certificate the HTTPS listener presents. */
export interface TlsCertificateInfo {
  source: 'generated' | 'installed';
  subject: string;
  altNames: string[];
  notBefore: string;
  notAfter: string;
  fingerprintSha256: string;
}

export interface TlsCertificateInput {
  certificatePem: string;
  privateKeyPem: string;
}

export type SettingsUpdateResult = Settings & { restartRequired?: true };

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface EventRecord {
  id: string;
  route: string;
  endpoint: string;
  eventType: EventType;
  status: EventStatus;
  receivedAt: string;
  processedAt: string | null;
  principal: string;
  sourceIp: string;
  requestId: string;
  payload: unknown;
  result: unknown;
  errors: { path: string; message: string }[] | null;
  /** The total when `errors` lists only the first 100 (SPEC §13). */
  errorCount?: number;
}

export interface EventQuery {
  route?: string;
  eventType?: EventType;
  status?: EventStatus;
  since?: string;
  limit?: number;
  cursor?: string;
}

export const AUDIT_ACTIONS = [
  'create',
  'update',
  'delete',
  'regenerate',
  'export',
  'import',
  'retry',
  'discard',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESOURCES = [
  'endpoints',
  'roles',
  'users',
  'external-users',
  'access-tokens',
  'settings',
  'backup',
  'tls',
  'destinations',
] as const;
export type AuditResource = (typeof AUDIT_RESOURCES)[number];

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: AuditAction;
  resource: AuditResource;
  resourceId: number | null;
  summary: string;
}

export interface AuditQuery {
  limit?: number;
  cursor?: string;
}

export interface Status {
  version: string;
  uptimeSeconds: number;
  listenUrls: string[];
  database: 'sqlite' | 'postgres';
  queueDepth: number;
  eventsPerMinute: number;
  destinations: DestinationSummary[];
}

/** Events received per minute over the last hour, oldest first (the dashboard's chart). */
export interface Traffic {
  minutes: { start: string; count: number }[];
}

export interface BackupExportInput {
  passphrase: string;
  /** SPEC §12: put the HTTPS private key (and its certificate) inside the encrypted file. */
  includeTlsKey?: boolean;
}

export interface BackupFile {
  filename: string;
  /** The encrypted backup, base64-encoded so it travels through JSON and IPC alike. */
  data: string;
}

export interface BackupImportInput {
  /** The encrypted backup file, base64-encoded. */
  file: string;
  passphrase: string;
  dryRun?: boolean;
}

export const BACKUP_RESOURCES = [
  'endpoints',
  'roles',
  'users',
  'externalUsers',
  'accessTokens',
  'settings',
  'destinations',
] as const;
export type BackupResource = (typeof BACKUP_RESOURCES)[number];

/** One setting whose effective value (stored, else the default) an import would change. */
export interface SettingChange {
  key: keyof Settings;
  from: Settings[keyof Settings];
  to: Settings[keyof Settings];
}

export interface BackupDiff {
  dryRun: boolean;
  /** `settings.changed` lists setting keys (those of `settingChanges`); `added`/`removed` stay empty. */
  changes: Record<BackupResource, { added: string[]; changed: string[]; removed: string[] }>;
  /** Dry runs only (SPEC §14): every setting whose effective value would change, old → new. */
  settingChanges?: SettingChange[];
}

export const DESTINATION_AUTH_TYPES = ['none', 'basic', 'bearer', 'hmac'] as const;
export type DestinationAuthType = (typeof DESTINATION_AUTH_TYPES)[number];

/** How a destination authenticates, as answered: passwords, tokens and secrets are write-only. */
export type DestinationAuth =
  { type: 'none' } | { type: 'basic'; username: string } | { type: 'bearer' } | { type: 'hmac' };

/**
 * As submitted. On update an omitted `password`/`token` keeps the stored one when the type is
 * unchanged; `hmac` has no input: the gateway makes the secret (SPEC §11).
 */
export type DestinationAuthInput =
  | { type: 'none' }
  | { type: 'basic'; username: string; password?: string }
  | { type: 'bearer'; token?: string }
  | { type: 'hmac' };

export const DESTINATION_STATES = ['healthy', 'retrying', 'failing', 'paused'] as const;
export type DestinationState = (typeof DESTINATION_STATES)[number];

/** A destination's delivery as it is now. */
export interface DestinationStatus {
  state: DestinationState;
  /** Items waiting to be delivered (dead letters not counted). */
  backlog: number;
  /** When the oldest of them finished processing, or null with nothing waiting. */
  oldestPendingAt: string | null;
  deliveredLastMinute: number;
  lastError: { at: string; status: number | null; message: string } | null;
}

export interface Destination {
  id: number;
  name: string;
  kind: 'http';
  url: string;
  headers: Record<string, string>;
  auth: DestinationAuth;
  timeoutMs: number;
  batchMaxEvents: number;
  batchMaxWaitMs: number;
  maxRetryAgeSeconds: number;
  tlsVerify: boolean;
  caCertificatePem: string | null;
  active: boolean;
  createdDate: string;
  status: DestinationStatus;
}

/** Create and regenerate of an `hmac` destination: the one time its secret is shown. */
export type DestinationWithSecret = Destination & { secret?: string };

export interface DestinationInput {
  name: string;
  kind?: 'http';
  url: string;
  headers?: Record<string, string>;
  auth?: DestinationAuthInput;
  timeoutMs?: number;
  batchMaxEvents?: number;
  batchMaxWaitMs?: number;
  maxRetryAgeSeconds?: number;
  tlsVerify?: boolean;
  caCertificatePem?: string | null;
  active?: boolean;
}

/** `/status`'s line per destination. */
export interface DestinationSummary {
  name: string;
  state: DestinationState;
  backlog: number;
  oldestPendingAt: string | null;
}

/** Why a batch was dead-lettered. */
export const DEAD_LETTER_REASONS = ['http_status', 'max_retry_age', 'outbox_full'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

export interface DeadLetter {
  id: number;
  batchId: string;
  itemCount: number;
  firstAttemptAt: string | null;
  failedAt: string;
  attempts: number;
  reason: DeadLetterReason;
  lastStatus: number | null;
  lastError: string | null;
}

export interface DeadLetterQuery {
  id: number;
  limit?: number;
  cursor?: string;
}

/** Dead letters of one destination to retry or discard: the listed `ids`, or all when absent. */
export interface DeadLetterSelection {
  id: number;
  ids?: number[];
}
