import type {
  AccessToken,
  Destination,
  DestinationAuthType,
  Endpoint,
  ExternalUser,
  Role,
  Route,
  Settings,
  User,
} from '../../contract/dto';
import { AppError } from '../../errors';

/**
 * The plain (decrypted) backup: one JSON document. Secrets appear only as the hashes the gateway
 * already stores (bcrypt for passwords, SHA-256 hex for access tokens); there are no events and
 * no bearer tokens. Ids are carried so a restore keeps them (events, idempotency keys and
 * snapshot tables refer to routes and endpoints by id).
 */
export const BACKUP_FORMAT = 'gateway-backup';

/** The version this gateway writes. Bump it, and add an upgrade step below, when the shape changes. */
export const BACKUP_VERSION = 2;

/**
 * The backup's shapes are the contract's, with references by name (a restore resolves them) and
 * instants as ISO 8601 strings. `builtIn` of a role is informational: on import only the role
 * named `admin` is built in, whatever this says.
 */
export type BackupRole = Role;

export type BackupRoute = Omit<Route, 'payloadType' | 'mqttTopic' | 'destinations'> & {
  /** Absent in backups written before MQTT ingestion: no topic. */
  mqttTopic?: string | null;
  /** Destination names (SPEC §11). */
  destinations: string[];
};

/** Routes in submission order (the order the admin screens show). */
export type BackupEndpoint = Omit<Endpoint, 'routes'> & { routes: BackupRoute[] };

/** With its bcrypt hash as stored, and role names. */
export type BackupUser = User & { passwordHash: string };

/** With its bcrypt hash as stored, and route names (each a `basic` route). */
export type BackupExternalUser = ExternalUser & { passwordHash: string; createdAt: string };

/** With the SHA-256 hex of its value as stored (the value itself is never known) and its role's name. */
export type BackupAccessToken = Omit<AccessToken, 'createdDate' | 'expiryInDays' | 'status'> & {
  tokenHash: string;
  createdAt: string;
};

/**
 * A destination, its credential included: the gateway must be able to send it again after a
 * restore, and the whole file is encrypted (SPEC §11: secrets are encrypted inside backups).
 */
export type BackupDestination = Omit<Destination, 'id' | 'auth' | 'createdDate' | 'status' | 'routes'> & {
  auth: { type: DestinationAuthType; username?: string; secret?: string };
  createdAt: string;
};

export interface BackupConfig {
  destinations: BackupDestination[];
  roles: BackupRole[];
  endpoints: BackupEndpoint[];
  users: BackupUser[];
  externalUsers: BackupExternalUser[];
  accessTokens: BackupAccessToken[];
  /** Only the keys that are stored; absent keys mean "the default" on the restored gateway too. */
  settings: Partial<Settings>;
}

export interface BackupDocument {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  createdAt: string;
  /** The gateway version that wrote the file: a hint for support staff, never interpreted. */
  gatewayVersion: string;
  config: BackupConfig;
  /** The HTTPS certificate and private key, only when the export asked for them (SPEC §12). */
  tls?: BackupTls;
}

export interface BackupTls {
  certificatePem: string;
  privateKeyPem: string;
}

/** A plain JSON object of some older version, on its way to the current one. */
export type PlainDocument = Record<string, unknown>;

/** `steps[n]` turns a version-n document into a version-(n+1) one (it need not set `version`). */
export type UpgradeStep = (document: PlainDocument) => PlainDocument;

export interface FormatChain {
  current: number;
  steps: Readonly<Record<number, UpgradeStep>>;
}

/**
 * Version 2 added destinations (SPEC §11): a version-1 file had none, and its routes delivered
 * nowhere. Every older file walks the chain one step at a time, so each step only ever knows two
 * adjacent shapes.
 */
export const FORMAT_CHAIN: FormatChain = {
  current: BACKUP_VERSION,
  steps: {
    1: (document) => {
      const config = document.config;
      if (config === null || typeof config !== 'object' || Array.isArray(config)) return document;
      const endpoints = (config as Record<string, unknown>).endpoints;
      return {
        ...document,
        config: {
          ...config,
          destinations: [],
          endpoints: Array.isArray(endpoints)
            ? endpoints.map((endpoint: unknown) => withRouteDestinations(endpoint))
            : endpoints,
        },
      };
    },
  },
};

/** A version-1 endpoint with `destinations: []` on each of its routes. */
function withRouteDestinations(endpoint: unknown): unknown {
  if (endpoint === null || typeof endpoint !== 'object' || Array.isArray(endpoint)) return endpoint;
  const routes = (endpoint as Record<string, unknown>).routes;
  if (!Array.isArray(routes)) return endpoint;
  return {
    ...endpoint,
    routes: routes.map((route: unknown) =>
      route !== null && typeof route === 'object' && !Array.isArray(route) ? { destinations: [], ...route } : route,
    ),
  };
}

const notABackup = () =>
  new AppError('backup_invalid', 'The file decrypted, but it is not a gateway configuration backup');

/**
 * Checks the envelope of a decrypted document and upgrades it to the current version. Returns
 * the (still untrusted) configuration; `validateConfig` checks its contents.
 */
export function upgradeDocument(
  plain: unknown,
  chain: FormatChain = FORMAT_CHAIN,
): { createdAt: string | null; config: unknown } {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) throw notABackup();
  let document = plain as PlainDocument;
  if (document.format !== BACKUP_FORMAT) throw notABackup();
  const version = document.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) throw notABackup();
  if (version > chain.current) {
    throw new AppError(
      'backup_version_unsupported',
      `This backup was written by a newer gateway (format version ${version}); this gateway reads format versions up to ${chain.current}`,
    );
  }
  for (let from = version; from < chain.current; from += 1) {
    const step = chain.steps[from];
    if (!step) {
      throw new AppError(
        'backup_version_unsupported',
        `Backup format version ${version} is not supported by this gateway`,
      );
    }
    document = { ...step(document), format: BACKUP_FORMAT, version: from + 1 };
  }
  return { createdAt: instantOrNull(document.createdAt), config: document.config };
}

/** `createdAt` goes into the audit summary, so only a real timestamp is passed on, never free text. */
function instantOrNull(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const ms = Date.parse(value);
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
