import { RotatingLogFile } from './log-file';

/**
 * A tiny structured logger: one JSON line per entry on stderr and, for a running gateway, in
 * `<data-dir>/logs/gateway.log`. Callers pass facts, never secrets: no Authorization header,
 * password or token value is ever given to it. Redaction below is the safety net for what a
 * caller cannot see, such as a driver's error message quoting a statement's values.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Field names whose values are secrets whatever they hold. */
const SECRET_FIELD = /pass(word|phrase)|secret|authorization|cookie|^(access_)?token$|token_?hash|password_?hash/i;
/** Secret values by their shape: gateway token values and bcrypt hashes. */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bgw(at|bt)_[A-Za-z0-9_-]{43}/g, 'gw$1_[redacted]'],
  [/\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}/g, '[redacted bcrypt hash]'],
];
const REDACTED = '[redacted]';
const MAX_DEPTH = 6;

function scrub(text: string): string {
  return SECRET_TEXT.reduce((result, [pattern, replacement]) => result.replace(pattern, replacement), text);
}

/** A field value as it is logged: errors made plain, secrets by name or shape replaced. */
function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value instanceof Error) {
    return { name: value.name, message: scrub(value.message), stack: value.stack && scrub(value.stack) };
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) ? REDACTED : redact(field, depth + 1);
  }
  return out;
}

/** The JSON line of one entry, exactly as both sinks receive it. */
export function logLine(level: string, message: string, fields?: Record<string, unknown>, at = new Date()): string {
  const redacted = redact(fields ?? {}) as Record<string, unknown>;
  return JSON.stringify({ at: at.toISOString(), level, message: scrub(message), ...redacted }) + '\n';
}

export interface LoggerOptions {
  /** Drop `info` entries. */
  quiet?: boolean;
  /** Also append every line to this file (see `gatewayLogFile`), rotated by size. */
  file?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger & { close(): void } {
  const file = options.file ? new RotatingLogFile(options.file) : null;
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    if (options.quiet && level === 'info') return;
    const line = logLine(level, message, fields);
    process.stderr.write(line);
    file?.write(line);
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    close: () => file?.close(),
  };
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
