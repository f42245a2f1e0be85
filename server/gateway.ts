import type { TlsStore } from './tls/tls-store';
import { tlsHandlers } from './services/tls.service';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { CredentialVerifier } from './auth/credentials';
import { AuthDirectory } from './auth/directory';
import { Lockout } from './auth/lockout';
import type { GatewayHandlers } from './contract/operations';
import { createDb, type Db, type DbConfig } from './db';
import { API_ROOT } from './contract/paths';
import { createApp } from './http/app';
import { HostAllowList, namesOfUrls } from './http/middleware/host-allow-list';
import { createLogger, type Logger } from './logger';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { RefusalLog } from './metrics/refusal-log';
import { REFUSAL_QUERY } from './contract/schemas';
import { parseInput } from './validation';
import { dataPlane } from './http/data-plane/data-plane';
import type { EpcisIndexBackfill } from './intake/epcis-backfill';
import type { Housekeeping } from './intake/housekeeping';
import type { GroupCommit } from './intake/commit/group-commit';
import { assembleDataPlane } from './assemble-data-plane';
import { createAccessTokensService } from './services/access-tokens.service';
import { createAuditService } from './services/audit.service';
import { createBackupService } from './services/backup';
import { ensureBuiltInRoles, ensureFirstAdmin, sealDestinationSecrets } from './services/bootstrap';
import { ConfigChanges } from './db/config-changes';
import { createEndpointsService } from './services/endpoints.service';
import { createEventsService } from './services/events.service';
import { createExternalUsersService } from './services/external-users.service';
import { createRolesService } from './services/roles.service';
import type { ServiceDeps } from './services/service-deps';
import { createSessionsService } from './auth/sessions.service';
import { createStatusService } from './services/status.service';
import { createSettingsService } from './services/settings.service';
import { createUsersService } from './services/users.service';
import { createDestinationsService } from './services/destinations.service';
import { createInventoryService } from './services/inventory.service';
import { createReadersService } from './services/readers.service';
import { ReaderWatch } from './services/reader-watch';
import { MqttBroker } from './mqtt/broker';
import { MqttPublications } from './mqtt/publications';
import { addressesGateway, type Listening } from './self-address';
import type { SecretBox } from './secret-box';

export interface GatewayOptions {
  database: DbConfig;
  logger?: Logger;
  /** First-start admin password (GATEWAY_ADMIN_PASSWORD); generated when absent. */
  adminPassword?: string;
  /**
   * Whether this process creates the first admin when no user holds the admin role (default
   * true): `serve`, the desktop and tests, which show or know its password. One-shot commands
   * (`user add`, `backup`) pass false: a password generated there would be seen by nobody, and
   * the next `serve` creates and prints it instead.
   */
  createFirstAdmin?: boolean;
  adminAssets?: Middleware;
  now?: () => number;
  /** Run the queue worker in this process (default true); false makes an ingest-only instance. */
  processQueue?: boolean;
  /** The HTTPS certificate store (data folder); absent, the TLS operations answer 404. */
  tls?: TlsStore;
  /** Seals destination credentials at rest: the data folder's key, or GATEWAY_SECRET_KEY (`openSecretBox`). */
  secrets: SecretBox;
}

/** What the status operation needs from the running server (set once it listens). */
export interface RuntimeInfo {
  listenUrls: string[];
  /** The sockets it listens on: a destination may not point at them (delivery loops, issue 38). */
  listening: Listening[];
  startedAt: number;
  /** tlsMode `on`: the HTTPS port plain HTTP is redirected to (set once HTTPS listens). */
  httpsRedirectPort: number | null;
}

export interface Gateway {
  app: Koa;
  db: Db;
  handlers: GatewayHandlers;
  changes: ConfigChanges;
  deps: ServiceDeps;
  runtime: RuntimeInfo;
  commit: GroupCommit;
  housekeeping: Housekeeping;
  /** Indexes EPCIS events stored before the EPCIS repository's index (SPEC §17). */
  epcisBackfill: EpcisIndexBackfill;
  /** The embedded MQTT broker (SPEC §15): `listen` once the HTTP listeners run; it follows `mqttMode`. */
  mqtt: MqttBroker;
  /** Readers turning silent and coming back (SPEC §16): the desktop app's notifications and tray. */
  readerWatch: ReaderWatch;
  /** Set on the first start only: the generated admin password, to print once. */
  firstAdmin: { username: string; generatedPassword: string | null } | null;
  close(): Promise<void>;
}

/**
 * The composition root shared by `gateway serve`, the desktop shell and the tests: opens the
 * database, builds services over it, and assembles the contract handlers and the Koa app.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const logger = options.logger ?? createLogger();
  const now = options.now ?? Date.now;
  const db = await createDb(options.database, { logger });
  const changes = new ConfigChanges();
  const audit = createAuditService({ db, now });
  const settings = createSettingsService({ db, changes, audit });
  await settings.reload();
  await ensureBuiltInRoles(db);
  await sealDestinationSecrets(db, options.secrets, logger);
  const firstAdmin =
    options.createFirstAdmin === false
      ? null
      : await ensureFirstAdmin(db, {
          password: options.adminPassword,
          bcryptCost: settings.current().bcryptCost,
          now: now(),
          logger,
        });

  const deps: ServiceDeps = { db, changes, audit, settings, now, secrets: options.secrets };
  const directory = new AuthDirectory(db, changes);
  const verifier = new CredentialVerifier({ db, directory, settings, now }, changes);
  const lockout = new Lockout(() => settings.current().authFailureLimit, now, logger);
  const sessions = createSessionsService({ db, settings, verifier, changes, now });
  const runtime: RuntimeInfo = { listenUrls: [], listening: [], startedAt: now(), httpsRedirectPort: null };

  const plane = await assembleDataPlane({
    db,
    database: options.database,
    changes,
    settings,
    sessions,
    logger,
    now,
    processQueue: options.processQueue !== false,
    secrets: options.secrets,
  });
  const { delivery } = plane;
  const readers = createReadersService({ ...deps, untracked: () => plane.readers.untrackedCount });
  const publications = new MqttPublications({
    unroutedTopic: (clientId, topic) => readers.noteUnroutedTopic(clientId, topic, logger),
    routes: plane.routes,
    intake: plane.intake,
    verifier,
    lockout,
    logger,
    now,
  });
  const mqtt = new MqttBroker({ publications, settings: () => settings.current(), tls: options.tls ?? null, logger });
  // `mqttMode` takes effect at once: the broker starts or stops without a restart (SPEC §15).
  changes.subscribe((resources) => {
    if (resources.has('settings'))
      mqtt.apply().catch((error: unknown) => logger.error('mqtt broker could not follow the settings', { error }));
  });

  const readerWatch = new ReaderWatch({
    db,
    logger,
    now,
    silentAfterSeconds: () => settings.current().readerSilentAfterSeconds,
  });
  readerWatch.start();
  const refusals = new RefusalLog();
  const handlers = {
    ...createEndpointsService(deps),
    ...createRolesService(deps),
    ...createUsersService(deps),
    ...createExternalUsersService(deps),
    ...createAccessTokensService(deps),
    ...createEventsService({ db, settings }),
    ...createInventoryService({ db, settings }),
    getSettings: () => settings.get(),
    updateSettings: (input, context) => settings.update(input, context),
    ...tlsHandlers(options.tls, { db, audit }),
    listAudit: (input) => audit.listAudit(input),
    listRefusals: (input) => Promise.resolve().then(() => refusals.list(parseInput(REFUSAL_QUERY, input ?? {}))),
    ...createBackupService(deps, options.tls),
    ...createStatusService({
      db,
      now,
      runtime,
      queueDepth: () => plane.depth.current,
      destinations: () => delivery.summaries(),
      mqtt: () => ({ mode: settings.current().mqttMode, clients: mqtt.clients(), urls: mqtt.urls() }),
      readers: () => readers.counts(),
    }),
    ...createDestinationsService({
      ...deps,
      delivery,
      addressesGateway: (url) => addressesGateway(url, runtime.listening, { apiRoot: API_ROOT }),
    }),
    ...readers.handlers,
  } satisfies GatewayHandlers;
  const metrics = new GatewayMetrics({
    events: plane.counters,
    status: () => handlers.getStatus(),
    commitStats: plane.commitStats,
    destinations: () => delivery.metrics(),
    mqtt: () => ({ clients: mqtt.clients(), messages: publications.counts }),
    readers: () => readers.metrics(),
    refusals: refusals.counts,
  });

  const app = createApp({
    logger,
    handlers,
    verifier,
    lockout,
    sessions,
    metrics,
    refusals,
    adminAssets: options.adminAssets,
    allowedHosts: new HostAllowList(() => [...namesOfUrls(runtime.listenUrls), settings.current().host]),
    network: {
      settings: () => settings.current(),
      httpsRedirectPort: () => runtime.httpsRedirectPort,
      certificatePem: () => options.tls?.current()?.certificatePem ?? null,
    },
    dataPlane: dataPlane({ db, verifier, lockout, settings, logger, ...plane }),
    gatewayId: plane.instanceId,
    health: plane.health,
  });

  return {
    app,
    db,
    handlers,
    changes,
    deps,
    runtime,
    firstAdmin,
    commit: plane.commit,
    housekeeping: plane.housekeeping,
    epcisBackfill: plane.epcisBackfill,
    mqtt,
    readerWatch,
    async close() {
      await readerWatch.stop();
      await mqtt.stop();
      await plane.close();
      await directory.settle();
      await db.close();
    },
  };
}
