import { fstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  parseLogLevel,
  parsePort,
  resolveSettings,
  environmentUsage,
  secretFromEnv,
  serveUsage,
  sourceName,
  UsageError,
} from './cli-options';
import { API_ROOT } from './contract/paths';
import { createDb } from './db';
import { AppError } from './errors';
import { createGateway, type Gateway } from './gateway';
import { gatewayLogFile } from './log-file';
import { createLogger, silentLogger, type Logger } from './logger';
import { openSecretBox } from './secret-box';
import { databaseConfig, startGateway, type StartedGateway } from './start-gateway';
import { staticAdmin } from './http/static-admin';
import { VERSION } from './version';

const USAGE = `Usage:
  gateway --version
${serveUsage()}
  gateway user add --username NAME --password-file FILE [--role ROLE ...] [--display-name TEXT]
  gateway backup export --out FILE --passphrase-file FILE
  gateway backup import FILE --passphrase-file FILE [--dry-run]
  gateway migrate [--down]
Common options: --data-dir D (default ./data, or GATEWAY_DATA_DIR), --database-url URL (or GATEWAY_DATABASE_URL)
${environmentUsage()}`;

const COMMON = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** parseArgs, with an unknown flag or a missing value reported as a usage error (exit 2). */
function parse<T extends ParseArgsConfig>(config: T) {
  try {
    return parseArgs(config);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS_'))
      throw new UsageError((error as Error).message);
    throw error;
  }
}

function storage(values: { 'data-dir'?: string; 'database-url'?: string }) {
  const settings = resolveSettings({ 'data-dir': values['data-dir'], 'database-url': values['database-url'] });
  return { dataDir: resolve(settings['data-dir'] ?? 'data'), databaseUrl: settings['database-url'] };
}

/**
 * The gateway behind a one-shot command (`user add`, `backup`). It never creates the first
 * admin: a password generated here would reach nobody (SPEC §9 prints it from `serve`), and the
 * next `serve` still creates and prints it, since no user holds the admin role yet.
 */
function oneShotGateway(values: { 'data-dir'?: string; 'database-url'?: string }): Promise<Gateway> {
  const { dataDir, databaseUrl } = storage(values);
  return createGateway({
    secrets: openSecretBox({ dataDir, fromEnv: secretFromEnv('GATEWAY_SECRET_KEY') }),
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

async function serve(args: string[]): Promise<void> {
  const { values } = parse({
    args,
    options: {
      ...COMMON,
      port: { type: 'string' },
      'https-port': { type: 'string' },
      'mqtt-port': { type: 'string' },
      'mqtts-port': { type: 'string' },
      host: { type: 'string' },
      'log-level': { type: 'string' },
    },
  });
  const settings = resolveSettings(values);
  const port = parsePort(settings.port, sourceName('port', values));
  const httpsPort = parsePort(settings['https-port'], sourceName('https-port', values));
  const mqttPort = parsePort(settings['mqtt-port'], sourceName('mqtt-port', values));
  const mqttsPort = parsePort(settings['mqtts-port'], sourceName('mqtts-port', values));
  const level = parseLogLevel(settings['log-level']);
  const adminPassword = secretFromEnv('GATEWAY_ADMIN_PASSWORD');
  const { dataDir, databaseUrl } = storage(values);
  // The same lines go to stderr and the data folder's log file, with SQLite and PostgreSQL alike.
  const logger = createLogger({ file: gatewayLogFile(dataDir), level });
  logger.debug?.('configuration', {
    dataDir,
    database: databaseUrl ? 'postgres' : 'sqlite',
    port: port ?? 'stored setting',
    host: settings.host ?? 'stored setting',
  });
  const running = await startGateway({
    dataDir,
    databaseUrl,
    port,
    httpsPort,
    mqttPort,
    mqttsPort,
    host: settings.host,
    adminPassword,
    secretKey: secretFromEnv('GATEWAY_SECRET_KEY'),
    adminAssets: staticAdmin(),
    logger,
  });
  const { server, https, gateway } = running;
  // Handlers first: whoever reads the listening line may signal at once, and a signal that
  // arrives before a handler exists kills the process without a graceful stop.
  stopOnSignals(running, logger);
  const shownHost = server.host.includes(':') ? `[${server.host}]` : server.host;
  // HTTP first, then HTTPS (SPEC §12); in tlsMode `on` the HTTP port only redirects, so only HTTPS
  // is announced, as only HTTPS is listed in `/status` (`running.urls`).
  if (gateway.deps.settings.current().tlsMode !== 'on') {
    process.stdout.write(`Gateway listening on http://${shownHost}:${server.port}${API_ROOT}\n`);
  }
  if (https) process.stdout.write(`Gateway listening on https://${shownHost}:${https.port}${API_ROOT}\n`);
  for (const url of gateway.mqtt.urls()) process.stdout.write(`MQTT listening on ${url}\n`);
  for (const line of webAdminLines(running.urls, gateway.deps.settings.current().adminAccess))
    process.stdout.write(`${line}\n`);
  if (gateway.firstAdmin?.generatedPassword) showFirstPassword(gateway.firstAdmin, dataDir);
  for (const url of running.urls) logger.info('reachable', { url });
}

/**
 * Where to open the web admin, one line per address the gateway answers on (every LAN address,
 * HTTPS too when it is on), so a first start ends with a URL to click. With `adminAccess` `local`
 * the admin answers on this machine only: only the loopback addresses are printed, and the line
 * says why.
 */
function webAdminLines(urls: readonly string[], adminAccess: 'lan' | 'local'): string[] {
  const loopback = (url: string) => /^https?:\/\/(127\.|\[::1\]|localhost[:/])/.test(url);
  const shown = urls.filter((url) => /^https?:\/\//.test(url) && (adminAccess === 'lan' || loopback(url)));
  const note = adminAccess === 'local' ? ' (this machine only: adminAccess is "local")' : '';
  return shown.map((url) => `Web admin: ${url}/_admin/${note}`);
}

/**
 * SPEC §9 prints the generated first admin password once on stdout. Where stdout is the
 * journal (systemd's JOURNAL_STREAM names stdout's device:inode) or the container log (the
 * image sets GATEWAY_SERVICE=1) and not a terminal, it is kept and shipped for months: there
 * the password goes once to a 0600 file in the data folder instead, and stdout names the file.
 */
function showFirstPassword(admin: { username: string; generatedPassword: string | null }, dataDir: string): void {
  if (process.stdout.isTTY || !(process.env.GATEWAY_SERVICE === '1' || stdoutIsJournal())) {
    process.stdout.write(
      `First start: created user "${admin.username}" with password ${admin.generatedPassword} (shown once; change it in Users)\n`,
    );
    return;
  }
  const file = join(dataDir, 'first-admin-password.txt');
  // Overwritten on purpose: a first start that runs again (the admin was removed) made a new
  // password, and the old one in the file no longer opens anything.
  writeFileSync(file, `${admin.generatedPassword}\n`, { mode: 0o600, flag: 'w' });
  process.stdout.write(
    `First start: created user "${admin.username}"; its password is in ${file} (mode 0600; read it once, then delete it and change the password in Users)\n`,
  );
}

/** systemd's documented test: JOURNAL_STREAM holds the device and inode of the journal stream. */
function stdoutIsJournal(): boolean {
  const [dev, ino] = (process.env.JOURNAL_STREAM ?? '').split(':');
  if (!dev || !ino) return false;
  try {
    const stat = fstatSync(1, { bigint: true });
    return stat.dev === BigInt(dev) && stat.ino === BigInt(ino);
  } catch {
    return false;
  }
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
  const { values } = parse({
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
  // The action first: without it no other message (a missing passphrase file) helps.
  if (action !== 'export' && action !== 'import')
    throw new UsageError(
      action === undefined ? 'backup needs an action: "export" or "import"' : `unknown backup action "${action}"`,
    );
  const { values, positionals } = parse({
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
  const { values } = parse({ args, options: { ...COMMON, down: { type: 'boolean' } } });
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
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`gateway ${VERSION}\n`);
    return;
  }
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
