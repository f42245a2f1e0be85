import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../logger';
import { migrationSource } from './migration-source';
import { BackgroundCheckpoints } from './sqlite-checkpoints';
import { finalizePrepared, openState, withRawConnection, type SqliteConnection } from './sqlite-exec';
import { WRITER_LOCK_WAIT_MS } from './writer-limits';

export type DatabaseKind = 'sqlite' | 'postgres';

export type DbConfig = { kind: 'sqlite'; filename: string } | { kind: 'postgres'; url: string };

export interface Db {
  knex: Knex;
  /**
   * For GET snapshot pages: on SQLite, read-only connections of their own that read the last
   * commit beside the writer instead of queueing behind its transactions; elsewhere `knex`.
   */
  reads: Knex;
  kind: DatabaseKind;
  /**
   * Runs every pending migration; instances starting at once migrate once (Knex's migration lock,
   * and on PostgreSQL an advisory lock around it).
   */
  migrate(): Promise<void>;
  /** Rolls every migration back; used by `gateway migrate --down` and the migration test. */
  rollbackAll(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Pragmas are per connection in SQLite, so they are set whenever the pool opens one.
 * WAL lets readers run beside the writer; synchronous=FULL makes a returned COMMIT durable
 * (the promise behind every 202); busy_timeout rides out a checkpoint instead of failing.
 */
const SQLITE_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = FULL',
  'PRAGMA foreign_keys = ON',
  // The write lock held elsewhere (another process, a checkpoint) is waited for this long at most.
  `PRAGMA busy_timeout = ${WRITER_LOCK_WAIT_MS}`,
  // The writer's own checkpoint after ~40 MB of WAL instead of SQLite's ~4 MB (decision 0017).
  // The copying is done beside it, every second, by `BackgroundCheckpoints` (decision 0410): this
  // one finds the pages copied and restarts the WAL. Durability is the WAL's and is unchanged.
  'PRAGMA wal_autocheckpoint = 10000',
  // The script transaction's read guard is a TEMP table written in every transaction that read
  // first (sqlite-transaction.ts): kept in memory it costs no temp file I/O (nothing durable
  // lives in TEMP; the figures are in docs/performance.md).
  'PRAGMA temp_store = MEMORY',
];

/**
 * Two: the main thread and one read's SQLite thread overlap either way; a second read connection
 * lets the next page be read while the main thread still writes out the last one: GET inventory
 * answers clearly more requests per second with two read connections of their own than on the
 * writer's (figures: docs/performance.md, P06).
 */
const SQLITE_READ_CONNECTIONS = 2;

/**
 * A fixed number of SQLite connections, never reaped when idle: a connection with prepared
 * statements (`allPrepared`) must have them finalized before it closes, or SQLite refuses to
 * close it, so they are finalized once, in `Db.close`, before the pool is destroyed.
 */
interface SqlitePool {
  knex: Knex;
  finalize(): Promise<void>;
}

/**
 * The database and everything SQLite keeps beside it are the owner's alone, whatever the umask:
 * the folder is made 0700, the database file 0600 before SQLite opens it (SQLite gives its WAL
 * and shared-memory files the database file's mode), and files an earlier version left 0644 are
 * narrowed. A data folder that already exists keeps the mode its operator gave it. A file the
 * gateway may write but not chmod (another owner) is left as it is, with a warning.
 */
function keepPrivate(filename: string, logger: Logger | undefined): void {
  mkdirSync(dirname(filename), { recursive: true, mode: 0o700 });
  closeSync(openSync(filename, 'a', 0o600));
  for (const file of [filename, `${filename}-wal`, `${filename}-shm`, `${filename}-journal`]) {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPERM') logger?.warn('database file mode left as it is', { file, error: code });
      else if (code !== 'ENOENT') throw error;
    }
  }
}

function sqlitePool(
  filename: string,
  options: { size: number; pragmas: readonly string[]; readOnly?: boolean; log: Knex.Config['log'] },
): SqlitePool {
  const connections = new Set<SqliteConnection>();
  const knex = knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    log: options.log,
    pool: {
      min: options.size,
      max: options.size,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) {
        connections.add(connection);
        const pragmas = options.readOnly ? [...options.pragmas, 'PRAGMA query_only = ON'] : options.pragmas;
        const next = (index: number): void => {
          const pragma = pragmas[index];
          if (pragma === undefined) {
            // Its state (prepared statements, kept answers if it cannot write: sqlite-read-cache.ts).
            openState(connection, options.readOnly === true);
            return done(null, connection);
          }
          connection.run(pragma, (error) => (error ? done(error, connection) : next(index + 1)));
        };
        next(0);
      },
    },
  });
  return {
    knex,
    async finalize() {
      for (const connection of connections) await finalizePrepared(connection);
    },
  };
}

// BIGINT columns hold millisecond timestamps, far below 2^53: read them as numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

function postgresConfig(url: string): Knex.Config {
  return {
    client: 'pg',
    connection: url,
    // Fail fast when the server is gone, so requests answer 503 instead of hanging.
    acquireConnectionTimeout: 5_000,
    pool: { min: 0, max: 10 },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Knex refuses to migrate while another process holds its migration lock; with several
 * instances starting at once, the others wait here until the first has migrated.
 */
async function migrateWaitingForLock(knex: Knex, config: Knex.MigratorConfig): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await knex.migrate.latest(config);
      return;
    } catch (error) {
      // Also two SQLite first starts racing to create Knex's own bookkeeping tables.
      const locked = error instanceof Error && /already locked|already exists/i.test(error.message);
      if (!locked || attempt >= 300) throw error;
      await sleep(200);
    }
  }
}

/** An advisory lock key of its own: the inventory locks use the space 0x4757 (snapshots.repo.ts). */
const MIGRATION_LOCK_KEY = [0x474d, 0] as const; // "GM"

/**
 * Serializes migrations across instances sharing a PostgreSQL database. Knex's own lock lives in
 * a table Knex first has to create, and two first starts creating it at once collide in the
 * catalog (a unique violation on pg_class or pg_type, not a clean "already exists"). A session
 * advisory lock, held on a connection of its own while Knex migrates on others, needs no table.
 */
async function withPostgresMigrationLock(knex: Knex, migrate: () => Promise<void>): Promise<void> {
  await withRawConnection(knex, async (connection: { query(sql: string, values: unknown[]): Promise<unknown> }) => {
    await connection.query('select pg_advisory_lock($1, $2)', [...MIGRATION_LOCK_KEY]);
    try {
      await migrate();
    } finally {
      await connection.query('select pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK_KEY]);
    }
  });
}

/** Opens the database, migrates it (unless told not to), and hands back one object to close it. */
export async function createDb(config: DbConfig, options: { migrate?: boolean; logger?: Logger } = {}): Promise<Db> {
  const logger = options.logger;
  // Knex's own notices (pool connection errors while the database is away) go to our log, not the console.
  const log: Knex.Config['log'] = {
    warn: (message: unknown) => logger?.warn('database', { message: String(message) }),
    error: (message: unknown) => logger?.error('database', { message: String(message) }),
    deprecate: (message: unknown) => logger?.warn('database deprecation', { message: String(message) }),
    debug: () => undefined,
  };
  let writer: SqlitePool | undefined;
  let knex: Knex;
  if (config.kind === 'sqlite') {
    if (config.filename !== ':memory:') keepPrivate(config.filename, logger);
    // One connection: SQLite has one writer anyway, and group commit batches behind it.
    writer = sqlitePool(config.filename, { size: 1, pragmas: SQLITE_PRAGMAS, log });
    knex = writer.knex;
  } else {
    knex = knexFactory({ ...postgresConfig(config.url), log });
  }
  // Reads that need not wait for the writer (GET snapshot pages): WAL lets them read the last
  // commit meanwhile; `readOnly` (query_only) makes a write on them an error. An in-memory database exists
  // once per connection, so there it is read where it is written.
  const readPool =
    config.kind === 'sqlite' && config.filename !== ':memory:'
      ? sqlitePool(config.filename, {
          size: SQLITE_READ_CONNECTIONS,
          pragmas: SQLITE_PRAGMAS,
          readOnly: true,
          log,
        })
      : undefined;
  const reads = readPool?.knex ?? knex;
  // A connection of its own, so the copying runs on another SQLite thread than the writer's.
  const checkpointPool =
    config.kind === 'sqlite' && config.filename !== ':memory:'
      ? sqlitePool(config.filename, { size: 1, pragmas: SQLITE_PRAGMAS, log })
      : undefined;
  const checkpoints = checkpointPool ? new BackgroundCheckpoints(checkpointPool.knex, logger) : undefined;
  const migrations: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' };
  const db: Db = {
    knex,
    reads,
    kind: config.kind,
    async migrate() {
      const migrate = () => migrateWaitingForLock(knex, migrations);
      await (config.kind === 'postgres' ? withPostgresMigrationLock(knex, migrate) : migrate());
    },
    async rollbackAll() {
      await knex.migrate.rollback(migrations, true);
    },
    async close() {
      await checkpoints?.stop();
      await checkpointPool?.knex.destroy();
      await readPool?.finalize();
      await writer?.finalize();
      await readPool?.knex.destroy();
      await knex.destroy();
    },
  };
  try {
    // Touch the database now so a bad path or an unreachable server fails here, not mid-request.
    await knex.raw('select 1');
    if (options.migrate !== false) await db.migrate();
    checkpoints?.start();
  } catch (error) {
    await checkpointPool?.knex.destroy();
    await readPool?.knex.destroy();
    await knex.destroy();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot open the ${config.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database: ${reason}`, {
      cause: error,
    });
  }
  return db;
}
