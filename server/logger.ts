import { RotatingLogFile } from './log-file';

/**
 * A tiny structured logger: one JSON line per entry on stderr and, for a running gateway, in
 * `<data-dir>/logs/gateway.log`. Callers pass facts, never secrets: no Authorization header,
 * password or token value is ever given to it. Redaction below is the safety net for what a
 * caller cannot see, such as a driver's error message quoting a statement's values.
 */
export interface Logger {
  /** Written only at log level `debug` (`GATEWAY_LOG_LEVEL=debug`); optional for test doubles. */
  debug?(message: string, fields?: Record<string, unknown>): void;
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

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggerOptions {
  /** Drop `info` entries. */
  quiet?: boolean;
  /** Lowest level written (default `info`). */
  level?: LogLevel;
  /** Also append every line to this file (see `gatewayLogFile`), rotated by size. */
  file?: string;
  /** Wall clock for the repeat limit (tests). */
  now?: () => number;
}

/** Lines of one level and message per window; the rest are counted, not written. */
export const REPEATS_PER_WINDOW = 20;
export const REPEAT_WINDOW_MS = 10_000;

/**
 * Counts lines per level and message in fixed windows. Failures that happen once per request
 * (the database away, clients resetting) would otherwise write thousands of identical lines a
 * second, each a synchronous disk write, and rotate the useful history out of the log file.
 */
class RepeatLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number) {}

  /** Whether to write this line; `suppressed` reports how many of the last window were not. */
  admit(key: string, suppressed: (count: number) => void): boolean {
    const now = this.now();
    let window = this.windows.get(key);
    if (window && now - window.start >= REPEAT_WINDOW_MS) {
      if (window.count > REPEATS_PER_WINDOW) suppressed(window.count - REPEATS_PER_WINDOW);
      window = undefined;
    }
    if (!window) {
      // Messages are the code's own constants; the bound only guards against one that is not.
      if (this.windows.size >= 1000) this.windows.clear();
      this.windows.set(key, (window = { start: now, count: 0 }));
    }
    return ++window.count <= REPEATS_PER_WINDOW;
  }

  /** The counts of windows still open (at close). */
  flush(suppressed: (key: string, count: number) => void): void {
    for (const [key, window] of this.windows)
      if (window.count > REPEATS_PER_WINDOW) suppressed(key, window.count - REPEATS_PER_WINDOW);
    this.windows.clear();
  }
}

export function createLogger(options: LoggerOptions = {}): Logger & { close(): void } {
  const file = options.file ? new RotatingLogFile(options.file) : null;
  const repeats = new RepeatLimit(options.now ?? Date.now);
  const emit = (level: string, message: string, fields?: Record<string, unknown>) => {
    const line = logLine(level, message, fields);
    process.stderr.write(line);
    file?.write(line);
  };
  const repeated = (level: string, message: string, count: number) =>
    emit(level, message, {
      repeated: count,
      note: `${count} more such lines in ${REPEAT_WINDOW_MS / 1000} s not written`,
    });
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    if (options.quiet && level === 'info') return;
    if (LOG_LEVELS.indexOf(level as LogLevel) < LOG_LEVELS.indexOf(options.level ?? 'info')) return;
    const key = `${level} ${message}`;
    if (repeats.admit(key, (count) => repeated(level, message, count))) emit(level, message, fields);
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    close: () => {
      repeats.flush((key, count) => {
        const space = key.indexOf(' ');
        repeated(key.slice(0, space), key.slice(space + 1), count);
      });
      file?.close();
    },
  };
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
