import { describe, expect, it } from 'vitest';
import { BACKUP_VERSION, FORMAT_CHAIN, upgradeDocument, type FormatChain } from '../../server/services/backup/format';

describe('backup format versions', () => {
  it('reads the current version as is', () => {
    const config = { roles: [] };
    expect(
      upgradeDocument({
        format: 'gateway-backup',
        version: BACKUP_VERSION,
        createdAt: '2026-01-01T00:00:00.000Z',
        config,
      }),
    ).toEqual({
      createdAt: '2026-01-01T00:00:00.000Z',
      config,
    });
    expect(FORMAT_CHAIN.current).toBe(2);
  });

  it('upgrades a version-1 file (before destinations): no destinations, routes delivering nowhere', () => {
    const v1 = {
      format: 'gateway-backup',
      version: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      config: { roles: [], endpoints: [{ name: 'E', routes: [{ name: 'r' }, { name: 's' }] }] },
    };
    expect(upgradeDocument(v1).config).toEqual({
      roles: [],
      destinations: [],
      endpoints: [
        {
          name: 'E',
          routes: [
            { name: 'r', destinations: [] },
            { name: 's', destinations: [] },
          ],
        },
      ],
    });
  });

  it('walks an older document through every upgrade step in order', () => {
    // A hypothetical chain, as it will look once version 3 exists: each step knows two shapes.
    const chain: FormatChain = {
      current: 3,
      steps: {
        1: (v1) => ({ ...v1, config: { ...(v1.config as object), roles: [], renamedFromV1: true } }),
        2: (v2) => ({ ...v2, config: { ...(v2.config as object), settings: { fromV2: true } } }),
      },
    };
    expect(upgradeDocument({ format: 'gateway-backup', version: 1, config: { endpoints: [] } }, chain)).toEqual({
      createdAt: null,
      config: { endpoints: [], roles: [], renamedFromV1: true, settings: { fromV2: true } },
    });
    expect(upgradeDocument({ format: 'gateway-backup', version: 2, config: {} }, chain).config).toEqual({
      settings: { fromV2: true },
    });
  });

  it('refuses a newer version, and an older one no step leads from, with backup_version_unsupported', () => {
    expect(() => upgradeDocument({ format: 'gateway-backup', version: 99, config: {} })).toThrow(
      expect.objectContaining({ code: 'backup_version_unsupported', status: 400 }),
    );
    expect(() => upgradeDocument({ format: 'gateway-backup', version: 0, config: {} })).toThrow(
      expect.objectContaining({ code: 'backup_version_unsupported' }),
    );
  });

  it('refuses anything that is not a gateway backup with backup_invalid', () => {
    for (const plain of [
      null,
      [],
      'text',
      { version: 1, config: {} },
      { format: 'other', version: 1 },
      { format: 'gateway-backup', version: '1' },
      { format: 'gateway-backup', version: 1.5 },
    ]) {
      expect(() => upgradeDocument(plain)).toThrow(expect.objectContaining({ code: 'backup_invalid' }));
    }
  });
});
