import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDb } from './db';
import { AppError } from './errors';
import { createGateway, type Gateway } from './gateway';
import { gatewayLogFile } from './log-file';
import { createLogger, silentLogger, type Logger } from './logger';
import { databaseConfig, startGateway, type StartedGateway } from './start-gateway';
import { staticAdmin } from './http/static-admin';

const USAGE = `Usage:
  gateway serve [--port N] [--https-port N] [--host H] [--data-dir D] [--database-url URL]
  gateway user add --username NAME --password-file FILE [--role ROLE ...] [--display-name TEXT]
  gateway backup export --out FILE --passphrase-file FILE
  gateway backup import FILE --passphrase-file FILE [--dry-run]
  gateway migrate [--down]
Common options: --data-dir D (default ./data), --database-url URL (or GATEWAY_DATABASE_URL)`;

const COMMON = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

function storage(values: { 'data-dir'?: string; 'database-url'?: string }) {
  const dataDir = resolve(values['data-dir'] ?? 'data');
  const databaseUrl = values['database-url'] ?? (process.env.GATEWAY_DATABASE_URL || undefined);
  return { dataDir, databaseUrl };
}

/**
 * The gateway behind a one-shot command (`user add`, `backup`). It never creates the first
 * admin: a password generated here would reach nobody (SPEC §9 prints it from `serve`), and the
 * next `serve` still creates and prints it, since no user holds the admin role yet.
 */
function oneShotGateway(values: { 'data-dir'?: string; 'database-url'?: string }): Promise<Gateway> {
  const { dataDir, databaseUrl } = storage(values);
  return createGateway({
    database: databaseConfig(dataDir, databaseUrl),
    logger: silentLogger,
    createFirstAdmin: false,
  });
}

/** Secrets come from files, never from argv (visible to every user in `ps`). */
function readSecretFile(path: string | undefined, what: string): string {
  if (!path) throw new UsageError(`--${what}-file is required`);
  return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
}

function portFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--${name} must be 0–65535`);
  }
  return port;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { ...COMMON, port: { type: 'string' }, 'https-port': { type: 'string' }, host: { type: 'string' } },
  });
  const port = portFlag(values.port, 'port');
  const httpsPort = portFlag(values['https-port'], 'https-port');
  const { dataDir, databaseUrl } = storage(values);
  // The same lines go to stderr and the data folder's log file, with SQLite and PostgreSQL alike.
  const logger = createLogger({ file: gatewayLogFile(dataDir) });
  const running = await startGateway({
    dataDir,
    databaseUrl,
    port,
    httpsPort,
    host: values.host,
    adminPassword: process.env.GATEWAY_ADMIN_PASSWORD,
    adminAssets: staticAdmin(),
    logger,
  });
  const { server, https, gateway } = running;
  // Handlers first: whoever reads the listening line may signal at once, and a signal that
  // arrives before a handler exists kills the process without a graceful stop.
  stopOnSignals(running, logger);
  const shownHost = server.host.includes(':') ? `[${server.host}]` : server.host;
  // HTTP first, then HTTPS (SPEC §12); in tlsMode `on` the HTTP port only redirects, so only HTTPS is announced.
  if (gateway.deps.settings.current().tlsMode !== 'on') {
    process.stdout.write(`Gateway listening on http://${shownHost}:${server.port}/GWENDPOINTAPI\n`);
  }
  if (https) process.stdout.write(`Gateway listening on https://${shownHost}:${https.port}/GWENDPOINTAPI\n`);
  if (gateway.firstAdmin?.generatedPassword) {
    process.stdout.write(
      `First start: created user "${gateway.firstAdmin.username}" with password ${gateway.firstAdmin.generatedPassword} (shown once; change it in Users)\n`,
    );
  }
  for (const url of server.urls) logger.info('reachable', { url });
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish, exit within 10 s (SPEC §10). */
function stopOnSignals(running: StartedGateway, logger: Logger): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    // Hard deadline: SPEC promises an exit within 10 s of SIGTERM/SIGINT.
    setTimeout(() => process.exit(1), 9_500).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function userAdd(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...COMMON,
      username: { type: 'string' },
      'password-file': { type: 'string' },
      role: { type: 'string', multiple: true },
      'display-name': { type: 'string' },
    },
  });
  if (!values.username) throw new UsageError('--username is required');
  const password = readSecretFile(values['password-file'], 'password');
  const gateway = await oneShotGateway(values);
  try {
    const user = await gateway.handlers.createUser(
      { username: values.username, password, roles: values.role ?? [], displayName: values['display-name'] ?? '' },
      { actor: 'cli' },
    );
    process.stdout.write(`Created user ${user.username} (roles: ${user.roles.join(', ') || 'none'})\n`);
  } finally {
    await gateway.close();
  }
}

async function backup(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...COMMON,
      out: { type: 'string' },
      'passphrase-file': { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
  });
  const passphrase = readSecretFile(values['passphrase-file'], 'passphrase');
  const gateway = await oneShotGateway(values);
  try {
    if (action === 'export') {
      if (!values.out) throw new UsageError('--out is required');
      const file = await gateway.handlers.exportBackup({ passphrase }, { actor: 'cli' });
      writeFileSync(values.out, Buffer.from(file.data, 'base64'), { mode: 0o600 });
      process.stdout.write(`Wrote ${values.out}\n`);
    } else if (action === 'import') {
      const path = positionals[0];
      if (!path) throw new UsageError('the backup file to import is required');
      const file = readFileSync(path).toString('base64');
      const diff = await gateway.handlers.importBackup(
        { file, passphrase, dryRun: values['dry-run'] === true },
        { actor: 'cli' },
      );
      process.stdout.write(JSON.stringify(diff, null, 2) + '\n');
    } else {
      throw new UsageError('backup needs "export" or "import"');
    }
  } finally {
    await gateway.close();
  }
}

async function migrate(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { ...COMMON, down: { type: 'boolean' } } });
  const { dataDir, databaseUrl } = storage(values);
  const db = await createDb(databaseConfig(dataDir, databaseUrl), { migrate: false });
  try {
    if (values.down) await db.rollbackAll();
    else await db.migrate();
    process.stdout.write(values.down ? 'Rolled back every migration\n' : 'Database is up to date\n');
  } finally {
    await db.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (argv.includes('--help') || argv.includes('-h') || command === undefined || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (command === 'serve') return serve(args);
  if (command === 'user' && args[0] === 'add') return userAdd(args.slice(1));
  if (command === 'backup') return backup(args);
  if (command === 'migrate') return migrate(args);
  throw new UsageError(`Unknown command "${argv.join(' ')}"`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // One clear line, never a stack: a user-facing tool (SPEC §9, issue: unreachable database).
  if (error instanceof UsageError) process.stderr.write(`gateway: ${error.message}\n${USAGE}\n`);
  else if (error instanceof AppError) {
    const details = error.errors?.map((e) => `\n  ${e.path}: ${e.message}`).join('') ?? '';
    process.stderr.write(`gateway: ${error.message} (${error.code})${details}\n`);
  } else process.stderr.write(`gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
