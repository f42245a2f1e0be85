import { BACKUP_RESOURCES } from '../enums';
import { named, optional, s, type TypeOf } from '../schema';
import { SETTINGS } from './settings.schema';

const MAX_PASSPHRASE_CHARS = 1024;
const passphrase = (min?: number) =>
  s.string({ allowBlank: true, max: MAX_PASSPHRASE_CHARS, label: 'Passphrase', format: 'password', min });

export const BACKUP_EXPORT_INPUT = named(
  'BackupExportInput',
  s.object({
    passphrase: passphrase(8),
    includeTlsKey: optional(
      s.boolean({ description: 'Put the HTTPS private key (and its certificate) inside the encrypted file.' }),
      false,
    ),
  }),
);

/** Over IPC; HTTP sends the file itself (application/octet-stream). */
export const BACKUP_FILE = named(
  'BackupFile',
  s.object({ filename: s.string(), data: s.string({ description: 'The encrypted backup, base64-encoded.' }) }),
);

export const BACKUP_IMPORT_INPUT = named(
  'BackupImportInput',
  s.object({
    file: s.string({ label: 'Backup file', description: 'The encrypted backup file, base64-encoded.' }),
    // Any length may be tried: a short one simply does not decrypt (backup_invalid).
    passphrase: passphrase(),
    dryRun: optional(s.boolean(), false),
  }),
);

const CHANGE_LISTS = s.object({
  added: s.array(s.string()),
  changed: s.array(s.string()),
  removed: s.array(s.string()),
});

type Settings = TypeOf<typeof SETTINGS>;
type SettingKey = keyof Settings;
const SETTING_KEYS = Object.keys(SETTINGS.properties) as SettingKey[];

/** One setting whose effective value (stored, else the default) an import would change. */
export const SETTING_CHANGE = named(
  'SettingChange',
  s.object({
    key: s.enum(SETTING_KEYS),
    from: s.unknown<Settings[SettingKey]>({ description: "The setting's value now." }),
    to: s.unknown<Settings[SettingKey]>({ description: 'Its value after the import.' }),
  }),
);

export const BACKUP_DIFF = named(
  'BackupDiff',
  s.object({
    dryRun: s.boolean(),
    changes: s.record(BACKUP_RESOURCES, CHANGE_LISTS, {
      description: '`settings.changed` lists setting keys (those of `settingChanges`); `added`/`removed` stay empty.',
    }),
    settingChanges: optional(
      s.array(SETTING_CHANGE, { description: 'Dry runs only: every setting whose effective value would change.' }),
    ),
  }),
);
