import { createHash } from 'node:crypto';
import type { BackupDiff, Settings, SettingChange } from '../../contract/dto';
import { nameKey } from '../../repositories/db-types';
import { defaultSettings } from '../settings.service';
import type { BackupConfig } from './format';

type Changes = BackupDiff['changes'][keyof BackupDiff['changes']];

/** One record reduced to what a person would call "the same": its name and its comparable fields. */
interface Comparable {
  name: string;
  fingerprint: string;
}

/** Reference lists are sets of names, compared case-insensitively like every name in the gateway. */
const refs = (names: string[]): string[] => names.map(nameKey).sort();

/**
 * Matches records by name (case-insensitively, as uniqueness is defined) and reports the names
 * added, changed and removed by going from `current` to `next`. Ids are not compared: they are
 * internal, differ between installations, and a restore rewrites them anyway; every other field
 * is, hashes included (a changed password is a change).
 */
function compare(current: Comparable[], next: Comparable[]): Changes {
  const before = new Map(current.map((item) => [nameKey(item.name), item]));
  const after = new Map(next.map((item) => [nameKey(item.name), item]));
  const byName = (a: string, b: string) => nameKey(a).localeCompare(nameKey(b)) || a.localeCompare(b);
  const added: string[] = [];
  const changed: string[] = [];
  for (const [key, item] of after) {
    const old = before.get(key);
    if (!old) added.push(item.name);
    // A rename that only changes case is a change of that record.
    else if (old.fingerprint !== item.fingerprint || old.name !== item.name) changed.push(item.name);
  }
  const removed = [...before].filter(([key]) => !after.has(key)).map(([, item]) => item.name);
  return { added: added.sort(byName), changed: changed.sort(byName), removed: removed.sort(byName) };
}

/** Comparable projections; JSON of objects built in a fixed key order is a stable fingerprint. */
function project(config: BackupConfig): Record<keyof BackupDiff['changes'], Comparable[]> {
  return {
    destinations: config.destinations.map((destination) => ({
      name: destination.name,
      fingerprint: JSON.stringify([
        destination.kind,
        destination.url,
        destination.headers,
        destination.auth.type,
        destination.auth.username ?? null,
        // A changed credential is a change, told without showing it.
        destination.auth.secret === undefined
          ? null
          : createHash('sha256').update(destination.auth.secret).digest('hex'),
        destination.timeoutMs,
        destination.batchMaxEvents,
        destination.batchMaxWaitMs,
        destination.maxRetryAgeSeconds,
        destination.tlsVerify,
        destination.caCertificatePem,
        destination.active,
      ]),
    })),
    roles: config.roles.map((role) => ({ name: role.name, fingerprint: JSON.stringify([role.description]) })),
    endpoints: config.endpoints.map((endpoint) => ({
      name: endpoint.name,
      fingerprint: JSON.stringify([
        endpoint.baseRoutePath,
        endpoint.active,
        // Route order is part of the endpoint (it is how the screens list them).
        endpoint.routes.map((route) => [
          route.name,
          route.eventType,
          route.requestType,
          route.authType,
          route.active,
          route.async,
          route.epcisLenient,
          route.mqttTopic ?? null,
          refs(route.roles),
          refs(route.destinations),
        ]),
      ]),
    })),
    users: config.users.map((user) => ({
      name: user.username,
      fingerprint: JSON.stringify([user.displayName, user.active, refs(user.roles), user.passwordHash, user.createdAt]),
    })),
    externalUsers: config.externalUsers.map((user) => ({
      name: user.username,
      fingerprint: JSON.stringify([
        user.firstName,
        user.lastName,
        user.active,
        refs(user.routes),
        user.passwordHash,
        user.createdAt,
      ]),
    })),
    accessTokens: config.accessTokens.map((token) => ({
      name: token.name,
      fingerprint: JSON.stringify([
        nameKey(token.role),
        token.expiryDate,
        token.description,
        token.tokenHash,
        token.createdAt,
      ]),
    })),
    // Settings are compared apart (settingChanges): a setting always exists.
    settings: [],
  };
}

/** What the gateway runs with: every key, the stored value or else the default (SPEC §14). */
const effectiveSettings = (config: BackupConfig): Settings => ({ ...defaultSettings(), ...config.settings });

/**
 * Every setting whose effective value would change, by key (alphabetical). A key missing from a
 * backup is not "removed" but back to its default, and storing a default changes nothing.
 */
export function diffSettings(current: BackupConfig, next: BackupConfig): SettingChange[] {
  const before = effectiveSettings(current);
  const after = effectiveSettings(next);
  return (Object.keys(after) as (keyof Settings)[])
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .sort()
    .map((key) => ({ key, from: before[key], to: after[key] }));
}

export function diffConfigurations(current: BackupConfig, next: BackupConfig): BackupDiff['changes'] {
  const before = project(current);
  const after = project(next);
  return {
    endpoints: compare(before.endpoints, after.endpoints),
    roles: compare(before.roles, after.roles),
    users: compare(before.users, after.users),
    externalUsers: compare(before.externalUsers, after.externalUsers),
    accessTokens: compare(before.accessTokens, after.accessTokens),
    destinations: compare(before.destinations, after.destinations),
    settings: { added: [], changed: diffSettings(current, next).map((change) => change.key), removed: [] },
  };
}

/** "endpoints +1 ~0 -2, …": counts only, for the audit log (names are fine there, counts are enough). */
export function summarize(changes: BackupDiff['changes']): string {
  return Object.entries(changes)
    .map(
      ([resource, change]) => `${resource} +${change.added.length} ~${change.changed.length} -${change.removed.length}`,
    )
    .join(', ');
}
