/**
 * The closed value lists of the contract (SPEC §3, §10): plain data that the schemas, the services
 * and the renderer's screens share. Kept apart from the schemas so a screen that needs a list
 * bundles only the lists.
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

/** What an EPCIS capture does with a document that holds invalid events (SPEC §17). */
export const CAPTURE_BEHAVIOURS = ['rollback', 'proceed'] as const;
export type CaptureBehaviour = (typeof CAPTURE_BEHAVIOURS)[number];

/** What carried an event to the gateway (SPEC §15). */
export const TRANSPORTS = ['http', 'mqtt'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const EVENT_STATUSES = ['queued', 'processed', 'rejected', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export const AUDIT_ACTIONS = [
  'create',
  'update',
  'delete',
  'regenerate',
  'export',
  'import',
  'retry',
  'discard',
  'test',
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
  'readers',
] as const;
export type AuditResource = (typeof AUDIT_RESOURCES)[number];

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

/** SPEC §11: how a destination authenticates. */
export const DESTINATION_AUTH_TYPES = ['none', 'basic', 'bearer', 'hmac'] as const;
export type DestinationAuthType = (typeof DESTINATION_AUTH_TYPES)[number];

export const DESTINATION_STATES = ['healthy', 'retrying', 'failing', 'paused'] as const;
export type DestinationState = (typeof DESTINATION_STATES)[number];

/** Why a batch was dead-lettered. */
export const DEAD_LETTER_REASONS = ['http_status', 'max_retry_age', 'outbox_full'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** SPEC §16. */
export const READER_STATES = ['online', 'silent'] as const;
export type ReaderState = (typeof READER_STATES)[number];

export const READER_ALARM_CODES = ['reader_error', 'reader_warning', 'reader_overflow'] as const;
export type ReaderAlarmCode = (typeof READER_ALARM_CODES)[number];
