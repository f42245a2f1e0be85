import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../server/contract/errors';
import { AppError } from '../../server/errors';
import { diffConfigurations, diffSettings } from '../../server/services/backup/diff';
import type { BackupConfig } from '../../server/services/backup/format';
import { validateConfig } from '../../server/services/backup/validate';

const bcrypt = (fill: string) => `$2b$04$${fill.repeat(53)}`;
const sha = (fill: string) => fill.repeat(64);

/** A valid configuration in the backup's shape; tests break one rule at a time. */
function config(): BackupConfig {
  return {
    destinations: [
      {
        name: 'ERP',
        kind: 'http',
        url: 'https://erp.example/in',
        headers: { 'X-Site': 'north' },
        auth: { type: 'bearer', secret: 'erp-token' },
        timeoutMs: 10000,
        batchMaxEvents: 100,
        batchMaxWaitMs: 1000,
        maxRetryAgeSeconds: 604800,
        tlsVerify: true,
        caCertificatePem: null,
        active: true,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ],
    roles: [
      { id: 1, name: 'admin', description: 'Manages the gateway', builtIn: true },
      { id: 2, name: 'operators', description: '', builtIn: false },
    ],
    endpoints: [
      {
        id: 4,
        name: 'Warehouse',
        baseRoutePath: 'warehouse',
        active: true,
        routes: [
          {
            id: 7,
            name: 'dock-in',
            eventType: 'UHFTagRead',
            requestType: 'HttpPost',
            authType: 'basic',
            active: true,
            async: false,
            epcisLenient: false,
            mqttTopic: null,
            roles: [],
            destinations: [],
          },
          {
            id: 8,
            name: 'epcis',
            eventType: 'EpcisObject',
            requestType: 'HttpPost',
            authType: 'OAuth2',
            active: true,
            async: true,
            epcisLenient: true,
            mqttTopic: null,
            roles: ['operators'],
            destinations: ['ERP'],
          },
        ],
      },
      {
        id: 5,
        name: 'Office',
        baseRoutePath: 'office',
        active: false,
        routes: [
          {
            id: 9,
            name: 'ping',
            eventType: 'AllData',
            requestType: 'HttpGet',
            authType: 'noauth',
            active: true,
            async: false,
            epcisLenient: false,
            mqttTopic: null,
            roles: [],
            destinations: [],
          },
        ],
      },
    ],
    users: [
      {
        id: 1,
        username: 'admin',
        displayName: 'Administrator',
        active: true,
        roles: ['admin'],
        passwordHash: bcrypt('a'),
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ],
    externalUsers: [
      {
        id: 3,
        firstName: 'Dock',
        lastName: 'Reader',
        username: 'reader01',
        active: true,
        routes: ['dock-in'],
        passwordHash: bcrypt('b'),
        createdAt: '2026-01-02T00:00:00.000Z',
      },
    ],
    accessTokens: [
      {
        id: 2,
        name: 'mes',
        role: 'operators',
        expiryDate: '2020-01-31',
        description: 'expired tokens are restored too',
        tokenHash: sha('c'),
        createdAt: '2019-01-01T00:00:00.000Z',
      },
    ],
    settings: { bcryptCost: 4, timeZone: 'Europe/Berlin' },
  };
}

/** The field errors validateConfig reports for a configuration (an empty list when it is valid). */
function problems(input: unknown): FieldError[] {
  try {
    validateConfig(input);
    return [];
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation_failed') return error.errors ?? [];
    throw error;
  }
}

const paths = (input: unknown) => problems(input).map((problem) => problem.path);

describe('backup contents validation (SPEC §3 on the whole configuration)', () => {
  it('accepts a valid configuration, expired tokens and route-less external users included', () => {
    const valid = config();
    valid.externalUsers[0].routes = [];
    expect(problems(valid)).toEqual([]);
    expect(validateConfig(config())).toEqual(config());
  });

  it('reports names used twice, case-insensitively, in every namespace', () => {
    const c = config();
    c.endpoints[1].name = 'WAREHOUSE';
    c.endpoints[1].baseRoutePath = 'WareHouse';
    c.endpoints[1].routes[0].name = 'Dock-In';
    c.roles.push({ id: 3, name: 'Operators', description: '', builtIn: false });
    c.users.push({ ...c.users[0], id: 2, username: 'ADMIN' });
    c.externalUsers.push({ ...c.externalUsers[0], id: 4, username: 'Reader01' });
    c.accessTokens.push({ ...c.accessTokens[0], id: 3, name: 'MES', tokenHash: sha('d') });
    expect(paths(c)).toEqual([
      '/roles/2/name',
      '/endpoints/1/name',
      '/endpoints/1/baseRoutePath',
      '/endpoints/1/routes/0/name',
      '/users/1/username',
      '/externalUsers/1/username',
      '/accessTokens/1/name',
    ]);
  });

  it('keeps users and external users in separate namespaces', () => {
    const c = config();
    c.externalUsers[0].username = 'admin';
    expect(problems(c)).toEqual([]);
  });

  it('reports duplicate ids and token hashes', () => {
    const c = config();
    c.roles[1].id = 1;
    c.endpoints[1].id = 4;
    c.endpoints[1].routes[0].id = 7;
    c.accessTokens.push({ ...c.accessTokens[0], id: 2, name: 'other' });
    expect(paths(c)).toEqual([
      '/roles/1/id',
      '/endpoints/1/id',
      '/endpoints/1/routes/0/id',
      '/accessTokens/1/id',
      '/accessTokens/1/tokenHash',
    ]);
  });

  it('reports references to roles and routes that do not exist or do not fit', () => {
    const c = config();
    c.endpoints[0].routes[1].roles = ['operators', 'ghosts'];
    c.users[0].roles = ['admin', 'nobody'];
    c.accessTokens[0].role = 'missing';
    c.externalUsers[0].routes = ['dock-in', 'epcis', 'nowhere'];
    expect(problems(c)).toEqual([
      { path: '/endpoints/0/routes/1/roles/1', message: 'Role "ghosts" does not exist' },
      { path: '/users/0/roles/1', message: 'Role "nobody" does not exist' },
      { path: '/externalUsers/0/routes/1', message: 'Route "epcis" does not use basic authentication' },
      { path: '/externalUsers/0/routes/2', message: 'Route "nowhere" does not exist' },
      { path: '/accessTokens/0/role', message: 'Role "missing" does not exist' },
    ]);
  });

  it('applies the per-record rules of the services, at paths inside the backup', () => {
    const c = config();
    c.endpoints[0].routes[1].roles = [];
    c.endpoints[1].routes[0].async = true;
    c.endpoints[1].baseRoutePath = '9lives';
    c.users[0].username = 'no spaces';
    expect(paths(c)).toEqual([
      '/endpoints/0/routes/1/roles',
      '/endpoints/1/baseRoutePath',
      '/endpoints/1/routes/0/async',
      '/users/0/username',
    ]);
  });

  it('requires the built-in admin role, ids, hashes and timestamps', () => {
    const c = config() as unknown as {
      roles: unknown[];
      endpoints: { routes: Record<string, unknown>[] }[];
      users: Record<string, unknown>[];
      accessTokens: Record<string, unknown>[];
    };
    c.roles.splice(0, 1);
    c.users[0].roles = [];
    delete c.endpoints[0].routes[0].id;
    c.users[0].passwordHash = 'plain-text-password';
    c.users[0].createdAt = 'yesterday';
    c.accessTokens[0].tokenHash = 'ABC';
    c.accessTokens[0].expiryDate = '2025-02-30';
    expect(paths(c)).toEqual([
      '/roles',
      '/endpoints/0/routes/0/id',
      '/users/0/passwordHash',
      '/users/0/createdAt',
      '/users',
      '/accessTokens/0/tokenHash',
      '/accessTokens/0/expiryDate',
    ]);
  });

  it('refuses password hashes with a bcrypt cost above 14 (the bcryptCost range)', () => {
    const c = config() as unknown as { users: Record<string, unknown>[]; externalUsers: Record<string, unknown>[] };
    c.users[0].passwordHash = `$2b$14$${'a'.repeat(53)}`;
    expect(paths(c)).toEqual([]);
    c.users[0].passwordHash = `$2b$15$${'a'.repeat(53)}`;
    c.externalUsers[0].passwordHash = `$2b$31$${'a'.repeat(53)}`;
    expect(paths(c)).toEqual(['/users/0/passwordHash', '/externalUsers/0/passwordHash']);
  });

  it('refuses a backup whose users hold no active admin (SPEC §14)', () => {
    const c = config() as unknown as { users: Record<string, unknown>[] };
    c.users[0].active = false;
    expect(paths(c)).toEqual(['/users']);
    c.users[0].active = true;
    c.users[0].roles = [];
    expect(paths(c)).toEqual(['/users']);
    c.users[0].roles = ['ADMIN'];
    expect(paths(c)).toEqual([]);
    c.users = [];
    expect(paths(c)).toEqual(['/users']);
  });

  it('checks settings with the settings rules and requires every list', () => {
    const c = config() as unknown as Record<string, unknown>;
    c.settings = { bcryptCost: 99, colour: 'blue' };
    delete c.users;
    expect(paths(c)).toEqual(['/users', '/settings/bcryptCost', '/settings/colour']);
    expect(paths(null)).toEqual(['']);
  });
});

describe('backup diff', () => {
  it('lists names added, changed and removed, matching names case-insensitively', () => {
    const before = config();
    const after = config();
    after.roles[1].description = 'now described';
    after.endpoints[0].routes[0].active = false;
    after.endpoints.splice(1, 1);
    after.endpoints.push({ ...config().endpoints[1], id: 6, name: 'Yard', baseRoutePath: 'yard' });
    after.users[0].passwordHash = bcrypt('z');
    after.externalUsers[0].username = 'READER01';
    after.accessTokens = [];
    after.settings = { timeZone: 'Europe/Berlin', retentionDays: 7 };
    expect(diffConfigurations(before, after)).toEqual({
      endpoints: { added: ['Yard'], changed: ['Warehouse'], removed: ['Office'] },
      roles: { added: [], changed: ['operators'], removed: [] },
      users: { added: [], changed: ['admin'], removed: [] },
      externalUsers: { added: [], changed: ['READER01'], removed: [] },
      accessTokens: { added: [], changed: [], removed: ['mes'] },
      destinations: { added: [], changed: [], removed: [] },
      // By effective value: bcryptCost goes back to its default, retentionDays leaves it.
      settings: { added: [], changed: ['bcryptCost', 'retentionDays'], removed: [] },
    });
    expect(diffSettings(before, after)).toEqual([
      { key: 'bcryptCost', from: 4, to: 10 },
      { key: 'retentionDays', from: 30, to: 7 },
    ]);
  });

  it('ignores ids and the order of reference lists', () => {
    const before = config();
    const after = config();
    after.roles[1].id = 40;
    after.endpoints[0].routes[1].roles = ['OPERATORS'];
    after.users[0].id = 99;
    const empty = { added: [], changed: [], removed: [] };
    expect(diffConfigurations(before, after)).toEqual({
      endpoints: empty,
      roles: empty,
      users: empty,
      externalUsers: empty,
      accessTokens: empty,
      destinations: empty,
      settings: empty,
    });
  });
});
