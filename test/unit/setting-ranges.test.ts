import { afterEach, describe, expect, it } from 'vitest';
import type { SchemaNode } from '../../server/contract/schema';
import { SETTINGS, settingRange } from '../../server/contract/schemas/settings.schema';
import { validateSettings } from '../../server/services/settings.service';

// The settings screen's number fields ask `settingRange` for their min and max; the service
// checks with the same schema. Changing a range in the one schema object moves both.
const properties = SETTINGS.properties as unknown as Record<string, SchemaNode>;
const original = { ...properties };

afterEach(() => Object.assign(properties, original));

describe('settingRange', () => {
  it('gives each integer setting the bounds its schema states', () => {
    expect(settingRange('port')).toEqual({ min: 0, max: 65535 });
    expect(settingRange('bcryptCost')).toEqual({ min: 4, max: 14 });
    expect(settingRange('readerSilentAfterSeconds')).toEqual({ min: 10, max: 86_400 });
  });

  it('follows a range changed in the schema, as the service does', () => {
    expect(() => validateSettings({ bcryptCost: 13 })).not.toThrow();
    properties.bcryptCost = { kind: 'integer', min: 6, max: 12 };
    expect(settingRange('bcryptCost')).toEqual({ min: 6, max: 12 });
    expect(() => validateSettings({ bcryptCost: 13 })).toThrow('bcryptCost must be an integer from 6 to 12');
    properties.retentionDays = { kind: 'integer', min: 7, max: 90 };
    expect(settingRange('retentionDays')).toEqual({ min: 7, max: 90 });
  });
});
