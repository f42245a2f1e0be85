import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { gatewayLogFile, LOG_FILE_MAX_BYTES, LOG_FILE_RETRY_MS, RotatingLogFile } from '../../server/log-file';
import { createLogger, logLine, REPEAT_WINDOW_MS, REPEATS_PER_WINDOW } from '../../server/logger';

const dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;

describe('log lines', () => {
  it('never carry a secret: by field name, or by the shape of token values and bcrypt hashes', () => {
    const token = `gwat_${'A'.repeat(43)}`;
    const hash = `$2a$10$${'b'.repeat(53)}`;
    const line = logLine('error', `login with ${token} failed`, {
      password: 'hunter2-secret',
      nested: { Authorization: 'Basic abc', passphrase: 'open sesame', kept: 'reader-7' },
      error: new Error(`insert into users values ('admin', '${hash}') - UNIQUE`),
      list: [`Bearer gwbt_${'z'.repeat(43)}`],
    });
    expect(line).not.toMatch(/hunter2|Basic abc|open sesame|AAAAAAAAAA|bbbbbbbbbb|zzzzzzzzzz/);
    expect(entry(line)).toMatchObject({
      level: 'error',
      message: 'login with gwat_[redacted] failed',
      password: '[redacted]',
      nested: { Authorization: '[redacted]', passphrase: '[redacted]', kept: 'reader-7' },
      error: { name: 'Error', message: "insert into users values ('admin', '[redacted bcrypt hash]') - UNIQUE" },
      list: ['Bearer gwbt_[redacted]'],
    });
  });

  it('go to stderr and, when a file is given, the same line to the file', () => {
    const file = gatewayLogFile(join(dir, 'data'));
    expect(file).toBe(join(dir, 'data', 'logs', 'gateway.log'));
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const logger = createLogger({ file });
      logger.info('gateway started', { port: 8080 });
      logger.close();
      const [written] = stderr.mock.calls.map(([chunk]) => String(chunk));
      expect(readFileSync(file, 'utf8')).toBe(written);
      expect(entry(written ?? '')).toMatchObject({ level: 'info', message: 'gateway started', port: 8080 });
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('repeated lines', () => {
  it('writes at most REPEATS_PER_WINDOW of one message per window, then says how many it left out', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      let now = 1_000_000;
      const logger = createLogger({ now: () => now });
      for (let i = 0; i < REPEATS_PER_WINDOW + 30; i++) logger.warn('database unavailable', { i });
      logger.warn('another message');
      const lines = () => stderr.mock.calls.map(([chunk]) => entry(String(chunk)));
      expect(lines()).toHaveLength(REPEATS_PER_WINDOW + 1);
      now += REPEAT_WINDOW_MS;
      logger.warn('database unavailable', { i: 'next window' });
      expect(lines().slice(-2)).toMatchObject([
        { level: 'warn', message: 'database unavailable', repeated: 30 },
        { level: 'warn', message: 'database unavailable', i: 'next window' },
      ]);
      for (let i = 0; i < REPEATS_PER_WINDOW + 5; i++) logger.error('storage write failed');
      logger.close();
      expect(lines().at(-1)).toMatchObject({ level: 'error', message: 'storage write failed', repeated: 5 });
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('RotatingLogFile', () => {
  it('rotates by size and keeps a bounded number of old files', () => {
    const folder = join(dir, 'rotate');
    const log = new RotatingLogFile(join(folder, 'gateway.log'), { maxBytes: 100, keep: 2 });
    const line = (n: number) => `${String(n).padStart(39, '0')}\n`; // 40 bytes
    for (let n = 1; n <= 9; n++) log.write(line(n));
    log.close();
    expect(readdirSync(folder).sort()).toEqual(['gateway.log', 'gateway.log.1', 'gateway.log.2']);
    // Two lines per file (a third would pass 100 bytes): 7–9 remain, 1–4 are gone.
    expect(readFileSync(join(folder, 'gateway.log'), 'utf8')).toBe(line(9));
    expect(readFileSync(join(folder, 'gateway.log.1'), 'utf8')).toBe(line(7) + line(8));
    expect(readFileSync(join(folder, 'gateway.log.2'), 'utf8')).toBe(line(5) + line(6));
  });

  it('follows a file another process rotated instead of writing into (and rotating) the old one', () => {
    const folder = join(dir, 'shared');
    const path = join(folder, 'gateway.log');
    const line = (who: string, n: number) => `${who}${String(n).padStart(38, '0')}\n`; // 40 bytes
    const a = new RotatingLogFile(path, { maxBytes: 100, keep: 3 });
    const b = new RotatingLogFile(path, { maxBytes: 100, keep: 3 });
    a.write(line('a', 1));
    b.write(line('b', 1));
    a.write(line('a', 2)); // the file holds 120 bytes; A has counted its own 80
    a.write(line('a', 3)); // A's count passes 100: it rotates (a1 b1 a2 → .1), a3 starts the new file
    b.write(line('b', 2)); // B's count passes 100 too, but the file at the path is A's new one
    a.close();
    b.close();
    expect(readFileSync(path, 'utf8')).toBe(line('a', 3) + line('b', 2));
    expect(readFileSync(`${path}.1`, 'utf8')).toBe(line('a', 1) + line('b', 1) + line('a', 2));
    expect(readdirSync(folder).sort()).toEqual(['gateway.log', 'gateway.log.1']);
  });

  it('continues an existing file and rotates it when already full', () => {
    const folder = join(dir, 'existing');
    const path = join(folder, 'gateway.log');
    const earlier = new RotatingLogFile(path);
    earlier.write('first\n');
    earlier.close();
    writeFileSync(path, 'x'.repeat(95), { flag: 'a' });
    const log = new RotatingLogFile(path, { maxBytes: 100, keep: 1 });
    log.write('second\n');
    log.close();
    expect(readFileSync(path, 'utf8')).toBe('second\n');
    expect(readFileSync(`${path}.1`, 'utf8')).toBe(`first\n${'x'.repeat(95)}`);
  });

  it('stops writing, without throwing, when the file cannot be written', () => {
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const log = new RotatingLogFile(join(blocker, 'logs', 'gateway.log'));
      expect(() => log.write('line\n')).not.toThrow();
      expect(() => log.write('line\n')).not.toThrow();
      expect(stderr).toHaveBeenCalledTimes(1);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('RotatingLogFile after a failed write', () => {
  it('writes to the file again once the disk takes lines, instead of staying broken until restart', () => {
    const path = join(dir, 'recovering', 'gateway.log');
    let now = 1_000_000;
    let diskFull = false;
    const writes = {
      writeSync: (fd: number, line: string): number => {
        if (diskFull) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return writeSync(fd, line);
      },
      now: () => now,
    };
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const log = new RotatingLogFile(path, { maxBytes: LOG_FILE_MAX_BYTES, keep: 1 }, writes);
      log.write('before\n');
      diskFull = true;
      expect(() => log.write('lost 1\n')).not.toThrow();
      expect(() => log.write('lost 2\n')).not.toThrow();
      diskFull = false;
      now += LOG_FILE_RETRY_MS + 1;
      log.write('after\n');
      log.write('later\n');
      log.close();
      expect(readFileSync(path, 'utf8')).toBe('before\nafter\nlater\n');
      const notes = stderr.mock.calls.map(([text]) => String(text));
      expect(notes.filter((text) => text.includes('stopped writing'))).toHaveLength(1);
      expect(notes.some((text) => text.includes('writing') && text.includes('again'))).toBe(true);
    } finally {
      stderr.mockRestore();
    }
  });
});
