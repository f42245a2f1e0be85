import { ALL_RESOURCES } from '../../db/config-changes';
import type { BackupDiff, BackupFile } from '../../contract/dto';
import type { CallContext } from '../../contract/operations';
import { AppError, validationFailed } from '../../errors';
import { backupRepo } from '../../repositories/backup.repo';
import { SecretKeyMismatch, type SealedSecret } from '../../secret-box';
import { iso, todayIn } from '../../time';
import { parseInput, readInput } from '../../validation';
import { BACKUP_EXPORT_INPUT, BACKUP_IMPORT_INPUT } from '../../contract/schemas';
import { checkInstallable } from '../../tls/certificate';
import { VERSION } from '../../version';
import type { ServiceDeps } from '../service-deps';
import { replaceConfiguration } from './apply';
import { decryptBackup, encryptBackup } from './crypto';
import { diffConfigurations, diffSettings, summarize } from './diff';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  upgradeDocument,
  type BackupConfig,
  type BackupDocument,
  type BackupTls,
} from './format';
import { readConfiguration } from './snapshot';
import { validateConfig } from './validate';

export { decryptBackup, encryptBackup } from './crypto';
export { BACKUP_FORMAT, BACKUP_VERSION, type BackupConfig, type BackupDocument } from './format';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Standard or URL-safe base64; line breaks (as `base64` tools wrap) are allowed. */
function decodeBase64(text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new AppError('backup_invalid', 'The backup file is not valid base64');
  }
  return Buffer.from(compact, 'base64');
}

function parseJson(plain: Buffer): unknown {
  try {
    return JSON.parse(plain.toString('utf8')) as unknown;
  } catch {
    throw new AppError('backup_invalid', 'The file decrypted, but it is not a gateway configuration backup');
  }
}

/**
 * Configuration backups (SPEC §6 `/backup`, §10 "Backups"): export the whole configuration as
 * one passphrase-encrypted file, and import one back, first as a dry-run diff, then atomically.
 */
/** The HTTPS key store, seen from backups: read the pair, install one (SPEC §12). */
export interface BackupTlsPort {
  current(): BackupTls | null;
  install(input: BackupTls): Promise<unknown>;
}

/** A backup's `tls` member, checked before anything is written (key matches, not expired). */
function readBackupTls(plain: unknown): BackupTls | null {
  const tls = plain !== null && typeof plain === 'object' ? (plain as { tls?: unknown }).tls : undefined;
  if (tls === undefined) return null;
  try {
    const checked = checkInstallable(tls !== null && typeof tls === 'object' ? tls : {});
    return { certificatePem: checked.certificatePem, privateKeyPem: checked.privateKeyPem };
  } catch (error) {
    if (error instanceof AppError && error.errors) {
      throw validationFailed(error.errors.map((e) => ({ path: `/tls${e.path}`, message: e.message })));
    }
    throw error;
  }
}

export function createBackupService(deps: ServiceDeps, tls?: BackupTlsPort) {
  const { db } = deps;

  const { secrets } = deps;
  /**
   * The "before" side of an import compares credentials by their hash only, and a credential this
   * key cannot open (a database moved without its key) is compared as stored: it shows as changed,
   * and the restore, which is how such a gateway gets its credentials back, replaces it.
   */
  const openForDiff = (stored: SealedSecret): string => {
    try {
      return secrets.open(stored);
    } catch (error) {
      if (error instanceof SecretKeyMismatch) return stored;
      throw error;
    }
  };

  /** One consistent view of every configuration table (a snapshot on PostgreSQL too). */
  const readConsistently = (openSecret: (stored: SealedSecret) => string): Promise<BackupConfig> =>
    db.knex.transaction(
      (trx) => readConfiguration(trx, openSecret),
      db.kind === 'postgres' ? { isolationLevel: 'repeatable read' } : undefined,
    );

  return {
    async exportBackup(input: unknown, context: CallContext): Promise<BackupFile> {
      const { value, errors } = readInput(BACKUP_EXPORT_INPUT, input);
      const { passphrase, includeTlsKey } = value;
      const tlsPair = includeTlsKey ? (tls?.current() ?? null) : null;
      if (includeTlsKey && !tlsPair)
        errors.push({ path: '/includeTlsKey', message: 'This gateway has no HTTPS key to include' });
      if (errors.length > 0) throw validationFailed(errors);
      const now = deps.now();
      const document: BackupDocument = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        createdAt: iso(now),
        gatewayVersion: VERSION,
        // A credential this key cannot open fails the export: a backup without it could not be restored.
        config: await readConsistently((stored) => secrets.open(stored)),
        // Inside the encrypted document only, and only on request: the key never leaves otherwise.
        ...(tlsPair ? { tls: { certificatePem: tlsPair.certificatePem, privateKeyPem: tlsPair.privateKeyPem } } : {}),
      };
      const file = await encryptBackup(Buffer.from(JSON.stringify(document), 'utf8'), passphrase);
      const { config } = document;
      await deps.audit.record(
        db.knex,
        context,
        'export',
        'backup',
        null,
        `Exported a backup of ${config.endpoints.length} endpoint(s), ${config.roles.length} role(s), ${config.users.length} user(s), ` +
          `${config.externalUsers.length} external user(s), ${config.accessTokens.length} access token(s)`,
      );
      const date = todayIn(deps.settings.current().timeZone, now);
      return { filename: `gateway-${date}.gwbackup`, data: file.toString('base64') };
    },

    async importBackup(input: unknown, context: CallContext): Promise<BackupDiff> {
      const { file, passphrase, dryRun } = parseInput(BACKUP_IMPORT_INPUT, input);

      // Every check that can fail runs before anything is written: decrypt, upgrade, validate.
      const plain = await decryptBackup(decodeBase64(file), passphrase);
      const parsed = parseJson(plain);
      const { createdAt, config: untrusted } = upgradeDocument(parsed);
      const next = validateConfig(untrusted);
      const tlsPair = readBackupTls(parsed);

      if (dryRun) {
        const current = await readConsistently(openForDiff);
        return {
          dryRun: true,
          changes: diffConfigurations(current, next),
          settingChanges: diffSettings(current, next),
        };
      }

      const changes = await db.knex.transaction(async (trx) => {
        await backupRepo.lockConfiguration(trx, db.kind);
        const current = await readConfiguration(trx, openForDiff);
        const diff = diffConfigurations(current, next);
        await replaceConfiguration(trx, db.kind, current, next, secrets);
        const from = createdAt ? ` made ${createdAt}` : '';
        await deps.audit.record(
          trx,
          context,
          'import',
          'backup',
          null,
          `Imported a backup${from}: ${summarize(diff)}; all sessions ended`,
        );
        return diff;
      });
      // The key travels with the configuration it was exported with; served from the next handshake.
      if (tlsPair && tls) await tls.install(tlsPair);
      // Settings first, so listeners woken by the change already read the restored values.
      try {
        await deps.settings.reload();
      } finally {
        // The whole configuration was replaced, and every session ended with it.
        deps.changes.publish(...ALL_RESOURCES);
      }
      return { dryRun: false, changes };
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
