import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Rotate before a line would take the file past this size. */
export const LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Rotated files kept beside the current one: gateway.log.1 (newest) … gateway.log.3. */
export const LOG_FILES_KEPT = 3;
/** After a failed write (a full disk), lines are dropped from the file this long before it is tried again. */
export const LOG_FILE_RETRY_MS = 5_000;

/** What the file writes through; a test replaces it to inject a failure (a full disk). */
export interface LogFileSeams {
  writeSync: (fd: number, line: string) => number;
  now: () => number;
}

/**
 * Where the gateway keeps its local log: in the data folder, for SQLite and PostgreSQL alike
 * (SPEC §10: with PostgreSQL `--data-dir` still holds the local files).
 */
export const gatewayLogFile = (dataDir: string): string => join(dataDir, 'logs', 'gateway.log');

/**
 * An append-only log file rotated by size: when the next line would pass `maxBytes`, the file
 * becomes `<file>.1` (`.1` becomes `.2`, …, the oldest beyond `keep` is dropped) and a new one
 * starts. Writes are synchronous: the gateway logs rarely (start, stop, failures), and a line
 * written just before `process.exit` must still reach the disk.
 */
export class RotatingLogFile {
  private fd: number | null = null;
  private size = 0;
  /** When the last write failed (null while writing works): lines wait for LOG_FILE_RETRY_MS. */
  private failedAt: number | null = null;

  constructor(
    readonly path: string,
    private readonly limits = { maxBytes: LOG_FILE_MAX_BYTES, keep: LOG_FILES_KEPT },
    private readonly seams: LogFileSeams = { writeSync, now: Date.now },
  ) {}

  write(line: string): void {
    if (this.failedAt !== null && this.seams.now() - this.failedAt < LOG_FILE_RETRY_MS) return;
    try {
      const bytes = Buffer.byteLength(line);
      let fd = this.fd ?? this.open();
      if (this.size + bytes > this.limits.maxBytes) {
        // Instances sharing a data folder append to (and rotate) the same file: before rotating,
        // follow the path to the current file and take its real size.
        fd = this.reopenIfMoved();
        if (this.size > 0 && this.size + bytes > this.limits.maxBytes) fd = this.rotate();
      }
      this.seams.writeSync(fd, line);
      this.size += bytes;
      if (this.failedAt !== null) {
        this.failedAt = null;
        process.stderr.write(`gateway: writing ${this.path} again\n`);
      }
    } catch (error) {
      // A full disk or a read-only folder must not stop the gateway: stderr still has every line.
      // The file is reopened (and its real size taken) at the next try, once the disk has room.
      const first = this.failedAt === null;
      this.failedAt = this.seams.now();
      this.closeQuietly();
      if (first) process.stderr.write(`gateway: stopped writing ${this.path}: ${(error as Error).message}\n`);
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private closeQuietly(): void {
    try {
      this.close();
    } catch {
      this.fd = null;
    }
  }

  /** Opened at the first line, so a process that logs nothing (a second desktop instance) leaves no file. */
  private open(): number {
    // Owner only: log lines carry IP addresses and usernames.
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const fd = openSync(this.path, 'a', 0o600);
    this.fd = fd;
    this.size = fstatSync(fd).size;
    return fd;
  }

  /** Another process rotated the file under us: write to the one now at `path`. */
  private reopenIfMoved(): number {
    const fd = this.fd ?? this.open();
    const current = statSync(this.path, { throwIfNoEntry: false });
    if (current && current.ino === fstatSync(fd).ino) {
      this.size = current.size;
      return fd;
    }
    this.close();
    return this.open();
  }

  private rotate(): number {
    this.close();
    const { keep } = this.limits;
    rmSync(`${this.path}.${keep}`, { force: true });
    for (let index = keep - 1; index >= 1; index--) {
      if (existsSync(`${this.path}.${index}`)) renameSync(`${this.path}.${index}`, `${this.path}.${index + 1}`);
    }
    if (keep > 0) renameSync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
    return this.open();
  }
}
