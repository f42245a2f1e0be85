import { extend, integerRange, named, optional, partial, s, type TypeOf } from '../schema';

const count = (min: number, max: number) => s.integer({ min, max });

/** Every setting (SPEC §12); the integer ranges here are the ones `PUT /settings` enforces. */
export const SETTINGS = named(
  'Settings',
  s.object({
    port: count(0, 65535),
    host: s.string({ description: 'An IP address or a host name.' }),
    bodyLimitBytes: count(1024, 104_857_600),
    maxQueueDepth: count(1, 10_000_000),
    bearerTokenTtlSeconds: count(1, 2_592_000),
    bcryptCost: count(4, 14),
    timeZone: s.string({ description: 'An IANA time zone name, such as Europe/Berlin.' }),
    retentionDays: count(1, 3650),
    retentionMaxEvents: count(1000, 1_000_000_000),
    tagDedupWindowMs: count(0, 3_600_000),
    authFailureLimit: count(1, 1_000_000),
    tlsMode: s.enum(['off', 'on', 'both'], { message: 'tlsMode must be "off", "on" or "both"' }),
    httpsPort: count(0, 65535),
    trustedProxies: s.array(s.string(), {
      maxItems: 1000,
      description: 'IP addresses or CIDRs whose Forwarded / X-Forwarded-* headers are believed.',
    }),
    adminAccess: s.enum(['lan', 'local'], { message: 'adminAccess must be "lan" or "local"' }),
    mqttMode: s.enum(['off', 'on'], {
      message: 'mqttMode must be "off" or "on"',
      description: 'The embedded MQTT broker for readers that publish (SPEC §15); starts and stops at once.',
    }),
    mqttPort: count(0, 65535),
    mqttsPort: count(0, 65535),
    maxOutboxItems: s.integer({
      min: 1000,
      max: 100_000_000,
      description: "Items one destination's outbox may hold; past it new items are dead-lettered (outbox_full).",
    }),
    readerSilentAfterSeconds: s.integer({
      min: 10,
      max: 86_400,
      description: 'A reader not heard from for this long is silent (SPEC §16); a reader may set its own.',
    }),
  }),
);

type SettingValues = TypeOf<typeof SETTINGS>;
export type IntegerSettingKey = {
  [K in keyof SettingValues]: SettingValues[K] extends number ? K : never;
}[keyof SettingValues];

/** An integer setting's range: what `PUT /settings` enforces and the settings screen offers. */
export const settingRange = (key: IntegerSettingKey): { min: number; max: number } =>
  integerRange(SETTINGS.properties[key]);

/** `PUT /settings`: any subset; an unknown key is refused. */
export const SETTINGS_INPUT = partial(SETTINGS, 'SettingsInput');

export const SETTINGS_UPDATE_RESULT = extend(
  SETTINGS,
  { restartRequired: optional(s.literal(true)) },
  'SettingsUpdateResult',
);
