import type { Settings } from '../../../server/contract/dto';

/**
 * People's words for the settings, the one table every screen uses (the Settings form, the
 * backup preview): `satisfies` makes a new setting without a label a type error.
 */
export const SETTING_LABELS = {
  port: 'Port',
  host: 'Host',
  bodyLimitBytes: 'Body limit (bytes)',
  maxQueueDepth: 'Max queue depth',
  bearerTokenTtlSeconds: 'Bearer token lifetime (s)',
  bcryptCost: 'bcrypt cost',
  timeZone: 'Time zone',
  retentionDays: 'Retention (days)',
  retentionMaxEvents: 'Retention (max events)',
  tagDedupWindowMs: 'Tag dedup window (ms)',
  authFailureLimit: 'Auth failure limit',
  tlsMode: 'HTTPS mode',
  httpsPort: 'HTTPS port',
  trustedProxies: 'Trusted proxies',
  adminAccess: 'Admin access',
  mqttMode: 'MQTT broker',
  mqttPort: 'MQTT port',
  mqttsPort: 'MQTT over TLS port',
  maxOutboxItems: 'Max outbox items per destination',
  readerSilentAfterSeconds: 'Reader silent after (s)',
} as const satisfies Record<keyof Settings, string>;

/** A setting key in people's words; an unknown key (a newer gateway's) is shown as it is. */
export const settingLabel = (key: string): string => (SETTING_LABELS as Record<string, string>)[key] ?? key;
