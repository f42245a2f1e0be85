import { readFileSync } from 'node:fs';
import { LOG_LEVELS, type LogLevel } from './logger';

/**
 * One row per setting that can come from a flag or the environment. A flag wins over its
 * environment variable, which wins over the stored setting (SPEC §9 stays the default). A new
 * flag is one more row here; `usage` and the readers below follow.
 * A secret row also reads `<env>_FILE` (Docker/systemd credentials), since environment
 * variables show in `/proc/<pid>/environ` and `docker inspect`.
 */
export const SERVE_SETTINGS = [
  { flag: 'port', env: 'GATEWAY_PORT', value: 'N', secret: false },
  { flag: 'https-port', env: 'GATEWAY_HTTPS_PORT', value: 'N', secret: false },
  { flag: 'mqtt-port', env: 'GATEWAY_MQTT_PORT', value: 'N', secret: false },
  { flag: 'mqtts-port', env: 'GATEWAY_MQTTS_PORT', value: 'N', secret: false },
  { flag: 'host', env: 'GATEWAY_HOST', value: 'H', secret: false },
  { flag: 'data-dir', env: 'GATEWAY_DATA_DIR', value: 'D', secret: false },
  { flag: 'database-url', env: 'GATEWAY_DATABASE_URL', value: 'URL', secret: true },
  { flag: 'log-level', env: 'GATEWAY_LOG_LEVEL', value: 'LEVEL', secret: false },
] as const;

export type SettingFlag = (typeof SERVE_SETTINGS)[number]['flag'];

/** Raised for a bad flag or environment value: usage on stderr, exit code 2. */
export class UsageError extends Error {}

type Env = Record<string, string | undefined>;

/**
 * A secret from `NAME` or from the file `NAME_FILE` names (trailing newline dropped); both set
 * is an error, since which one wins would be a guess.
 */
export function secretFromEnv(name: string, env: Env = process.env): string | undefined {
  const direct = env[name] || undefined;
  const file = env[`${name}_FILE`] || undefined;
  if (direct !== undefined && file !== undefined) throw new UsageError(`set ${name} or ${name}_FILE, not both`);
  if (file === undefined) return direct;
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new UsageError(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Each setting's flag value, else its environment value, else undefined (stored setting). */
export function resolveSettings(
  flags: Partial<Record<SettingFlag, string | undefined>>,
  env: Env = process.env,
): Partial<Record<SettingFlag, string>> {
  const out: Partial<Record<SettingFlag, string>> = {};
  for (const row of SERVE_SETTINGS) {
    const value = flags[row.flag] ?? (row.secret ? secretFromEnv(row.env, env) : env[row.env] || undefined);
    if (value !== undefined) out[row.flag] = value;
  }
  return out;
}

/** `--port` or `GATEWAY_PORT` as a number, with the flag's name in the error. */
export function parsePort(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  // Digits only: Number() would also take '0x50', '1e3' and surrounding spaces.
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`${name} must be 0–65535`);
  return port;
}

export function parseLogLevel(value: string | undefined): LogLevel {
  if (value === undefined) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
}

/** Where a flag's value came from, for the error message: `--port` or `GATEWAY_PORT`. */
export function sourceName(flag: SettingFlag, flags: Partial<Record<SettingFlag, string | undefined>>): string {
  const row = SERVE_SETTINGS.find((r) => r.flag === flag);
  return flags[flag] !== undefined || !row ? `--${flag}` : row.env;
}

/** The `serve` usage line, from the rows above. */
export function serveUsage(): string {
  return `  gateway serve ${SERVE_SETTINGS.map((row) => `[--${row.flag} ${row.value}]`).join(' ')}`;
}

/** The environment table, from the rows above. */
export function environmentUsage(): string {
  const envs = SERVE_SETTINGS.map((row) => `--${row.flag}: ${row.env}${row.secret ? ` or ${row.env}_FILE` : ''}`);
  return [
    `Environment (a flag wins over its variable, a variable over the stored setting):`,
    ...envs.map((line) => `  ${line}`),
    `  first admin's password: GATEWAY_ADMIN_PASSWORD or GATEWAY_ADMIN_PASSWORD_FILE`,
    `  key sealing destination credentials (default: <data dir>/secret.key): GATEWAY_SECRET_KEY or GATEWAY_SECRET_KEY_FILE`,
    `  log levels: ${LOG_LEVELS.join(', ')} (default info)`,
  ].join('\n');
}
