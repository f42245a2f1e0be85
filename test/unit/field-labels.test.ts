import { describe, expect, it } from 'vitest';
import { fieldAt, messageInWords } from '../../renderer/src/lib/field-labels';
import type { FieldError } from '../../server/contract/errors';
import { readDestination } from '../../server/services/destinations.service';
import { validateSettings } from '../../server/services/settings.service';

/** A service's own field errors for an input, as the screens receive them. */
function refusal(validate: (input: unknown) => unknown, input: unknown): FieldError[] {
  try {
    validate(input);
  } catch (error) {
    return (error as { errors: FieldError[] }).errors;
  }
  throw new Error('expected the input to be refused');
}

const settingsErrors = (input: unknown) => refusal(validateSettings, input);

describe('API errors in the forms’ words', () => {
  it('words the settings service’s messages with the Settings form’s labels', () => {
    const errors = settingsErrors({ bcryptCost: 20, tagDedupWindowMs: -1, tlsMode: 'sometimes', bogus: 1 });
    expect(errors.map((error) => messageInWords('settings', error))).toEqual([
      'bcrypt cost must be an integer from 4 to 14',
      'Tag dedup window (ms) must be an integer from 0 to 3600000',
      'HTTPS mode must be "off", "on" or "both"',
      // An unknown key has no label: the message stays as the service wrote it.
      'Unknown setting "bogus"',
    ]);
  });

  it('words the sign-in form’s keys, and leaves messages already in words alone', () => {
    expect(messageInWords('signIn', { path: '/userName', message: 'userName is required' })).toBe(
      'Username is required',
    );
    expect(messageInWords('signIn', { path: '/password', message: 'password is required' })).toBe(
      'Password is required',
    );
    expect(messageInWords('role', { path: '/name', message: 'Role Name is required' })).toBe('Role Name is required');
    // Only a whole key at the start is replaced: "activeX" is not "active".
    expect(messageInWords('user', { path: '/active', message: 'activeX is odd' })).toBe('activeX is odd');
  });

  it('follows a path into list items: routes of an endpoint, resources of a backup file', () => {
    expect(fieldAt('endpoint', '/routes/1/authType')).toEqual({ key: 'authType', label: 'Auth Type' });
    expect(fieldAt('endpoint', '/routes')).toEqual({ key: 'routes', label: 'Routes' });
    expect(fieldAt('user', '/roles/0')).toEqual({ key: 'roles', label: 'Roles' });
    expect(fieldAt('backupImport', '/settings/retentionDays')).toEqual({
      key: 'retentionDays',
      label: 'Retention (days)',
    });
    expect(fieldAt('backupImport', '/users/2/active')).toEqual({ key: 'active', label: 'Active' });
    expect(messageInWords('user', { path: '/roles/0', message: 'roles entries must be non-empty strings' })).toBe(
      'Roles entries must be non-empty strings',
    );
    expect(
      messageInWords('backupImport', {
        path: '/settings/bcryptCost',
        message: 'bcryptCost must be an integer from 4 to 14',
      }),
    ).toBe('bcrypt cost must be an integer from 4 to 14');
    // Paths that name no field of the form: no label.
    expect(fieldAt('backupImport', '/users')).toBeNull();
    expect(fieldAt('role', '/unknown')).toBeNull();
    expect(fieldAt('role', '/name/extra')).toBeNull();
  });

  it('words a destination’s errors, its auth’s too, with the Destinations form’s labels', () => {
    const errors = refusal(readDestination, {
      name: 'WMS',
      url: 'https://wms.example',
      tlsVerify: 'yes',
      active: 'no',
    });
    expect(errors.map((error) => messageInWords('destination', error))).toEqual([
      'Verify TLS certificates must be true or false',
      'Active must be true or false',
    ]);
    expect(messageInWords('destination', { path: '/auth/token', message: 'token is required' })).toBe(
      'Token is required',
    );
    expect(fieldAt('destination', '/auth/username')).toEqual({ key: 'username', label: 'Username' });
    expect(fieldAt('destination', '/auth')).toEqual({ key: 'auth', label: 'Authentication' });
    expect(fieldAt('destination', '/tlsVerify')).toEqual({ key: 'tlsVerify', label: 'Verify TLS certificates' });
    // A header's errors name the header, which no label stands for: the message stays.
    expect(fieldAt('destination', '/headers/X-Site')).toBeNull();
  });
});
