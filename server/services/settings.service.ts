import { isIP } from 'node:net';
import type { CallContext } from '../contract/operations';
import type { Settings, SettingsUpdateResult } from '../contract/dto';
import { integerRange, type SchemaNode } from '../contract/schema';
import { SETTINGS } from '../contract/schemas';
import type { Db } from '../db';
import { validationFailed } from '../errors';
import { parseAddressRange } from '../address-ranges';
import { settingsRepo } from '../repositories/settings.repo';
import { canonicalTimeZone, systemTimeZone } from '../time';
import type { AuditService } from './audit.service';
import type { ConfigChanges } from '../db/config-changes';

export function defaultSettings(): Settings {
  return {
    port: 8080,
    host: '0.0.0.0',
    bodyLimitBytes: 1_048_576,
    maxQueueDepth: 100_000,
    bearerTokenTtlSeconds: 3600,
    bcryptCost: 10,
    timeZone: systemTimeZone(),
    retentionDays: 30,
    retentionMaxEvents: 5_000_000,
    tagDedupWindowMs: 1000,
    authFailureLimit: 10,
    tlsMode: 'both',
    httpsPort: 8443,
    trustedProxies: [],
    adminAccess: 'lan',
    mqttMode: 'off',
    mqttPort: 1883,
    mqttsPort: 8883,
    maxOutboxItems: 10_000_000,
    // Three Zebra heartbeats (one a minute by default): one missed beat is no alarm (SPEC §16).
    readerSilentAfterSeconds: 180,
  };
}

/** Every setting's rules (ranges, allowed values) are the contract's schema, which the document shows. */
const SETTING_RULES: Readonly<Record<string, SchemaNode>> = SETTINGS.properties;
const SETTING_KEYS = Object.keys(SETTING_RULES) as (keyof Settings)[];
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * An IP address, or a host name whose last label is not all digits (RFC 1123 §2.1, RFC 3696 §2):
 * `256.1.1.1` or `999.999.999.999` look like addresses, are none, and a resolver may read them
 * as one anyway (`inet_aton` takes `1.2.3` or `123`), so they are refused rather than bound to.
 */
function isHost(value: string): boolean {
  if (isIP(value) !== 0) return true;
  const lastLabel = value.slice(value.lastIndexOf('.') + 1);
  return HOST_NAME.test(value) && !/^[0-9]+$/.test(lastLabel);
}

const MAX_TRUSTED_PROXIES = SETTINGS.properties.trustedProxies.maxItems ?? Infinity;

/** What is wrong with a setting read by its schema alone (an integer range, one of some values). */
function settingProblem(key: string, rules: SchemaNode | undefined, value: unknown): string | null {
  if (rules?.kind === 'enum')
    return rules.values.includes(value as string) ? null : (rules.message ?? `${key} is invalid`);
  if (rules?.kind === 'integer') {
    const { min, max } = integerRange(rules);
    const valid = typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
    return valid ? null : `${key} must be an integer from ${min} to ${max}`;
  }
  return `${key} cannot be set`;
}

/** Validates a partial settings object; returns it typed, or throws 400 listing every problem. */
export function validateSettings(input: unknown): Partial<Settings> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw validationFailed([{ path: '', message: 'Expected a JSON object of settings' }]);
  }
  const errors: { path: string; message: string }[] = [];
  const result: Partial<Record<keyof Settings, unknown>> = {};
  for (const [key, value] of Object.entries(input)) {
    const path = `/${key}`;
    if (!(SETTING_KEYS as string[]).includes(key)) {
      errors.push({ path, message: `Unknown setting "${key}"` });
    } else if (key === 'host') {
      if (typeof value !== 'string' || !isHost(value)) {
        errors.push({ path, message: 'host must be an IP address or a host name' });
      } else result.host = value;
    } else if (key === 'timeZone') {
      const zone = typeof value === 'string' ? canonicalTimeZone(value) : null;
      if (zone === null) {
        errors.push({ path, message: 'timeZone must be a valid IANA time zone name, such as Europe/Berlin' });
      } else result.timeZone = zone;
    } else if (key === 'trustedProxies') {
      const bad = Array.isArray(value) ? value.findIndex((entry) => parseAddressRange(entry) === null) : -1;
      if (!Array.isArray(value) || value.length > MAX_TRUSTED_PROXIES) {
        errors.push({ path, message: 'trustedProxies must be an array of IP addresses or CIDRs' });
      } else if (bad >= 0) {
        errors.push({ path: `${path}/${bad}`, message: 'Expected an IP address or a CIDR such as 10.0.0.0/8' });
      } else result.trustedProxies = (value as string[]).map((entry) => entry.trim());
    } else {
      const problem = settingProblem(key, SETTING_RULES[key], value);
      if (problem) errors.push({ path, message: problem });
      else result[key as keyof Settings] = value;
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return result as Partial<Settings>;
}

export interface SettingsService {
  /** The settings in force, from memory: the hot path reads this on every request. */
  current(): Settings;
  /** Re-reads the stored settings (start-up, or a change made by another instance). */
  reload(): Promise<void>;
  get(): Promise<Settings>;
  update(input: unknown, context: CallContext): Promise<SettingsUpdateResult>;
}

export function createSettingsService(deps: { db: Db; changes: ConfigChanges; audit: AuditService }): SettingsService {
  let current = defaultSettings();

  const service: SettingsService = {
    current: () => current,

    async reload() {
      current = { ...defaultSettings(), ...validStoredSettings(await settingsRepo.getAll(deps.db.knex)) };
    },

    get: () => Promise.resolve({ ...current }),

    async update(input, context) {
      const changes = validateSettings(input);
      const before = current;
      await deps.db.knex.transaction(async (trx) => {
        await settingsRepo.putMany(trx, changes);
        await deps.audit.record(
          trx,
          context,
          'update',
          'settings',
          null,
          `Changed ${Object.keys(changes).join(', ') || 'nothing'}`,
        );
      });
      current = { ...current, ...changes };
      deps.changes.publish('settings');
      const restart =
        (changes.port !== undefined && changes.port !== before.port) ||
        (changes.host !== undefined && changes.host !== before.host) ||
        (changes.tlsMode !== undefined && changes.tlsMode !== before.tlsMode) ||
        (changes.httpsPort !== undefined && changes.httpsPort !== before.httpsPort) ||
        (changes.mqttPort !== undefined && changes.mqttPort !== before.mqttPort) ||
        (changes.mqttsPort !== undefined && changes.mqttsPort !== before.mqttsPort);
      return restart ? { ...current, restartRequired: true } : { ...current };
    },
  };
  return service;
}

/**
 * The stored settings that still pass validation. One that no longer does (say, a time zone
 * dropped from ICU) is not in force: the gateway falls back to its default rather than refuse to
 * start, and a backup leaves it out (it would make the file impossible to import), which restores
 * the same effective settings.
 */
export function validStoredSettings(stored: Record<string, unknown>): Partial<Settings> {
  const result: Partial<Settings> = {};
  for (const [key, value] of Object.entries(stored)) {
    try {
      Object.assign(result, validateSettings({ [key]: value }));
    } catch {
      // left out on purpose, see above
    }
  }
  return result;
}
