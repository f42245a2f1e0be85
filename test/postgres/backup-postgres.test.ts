import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CallContext } from '../../server/contract/operations';
import { createGateway, type Gateway } from '../../server/gateway';
import { silentLogger } from '../../server/logger';
import { usersRepo } from '../../server/repositories/users.repo';
import { createSecretBox, type SealedSecret } from '../../server/secret-box';
import { readConfiguration } from '../../server/services/backup/snapshot';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

const ctx: CallContext = { actor: 'user:admin' };
const PASSPHRASE = 'correct horse battery staple';
const ALICE_PASSWORD = 'alice-password-1';

/**
 * The same restore on PostgreSQL (explicit ids in serial columns, sequences, table locks), on the
 * throwaway cluster the postgres test project starts.
 */
const POSTGRES_URL = inject('postgresUrl');

/** The gateway's own way to open its stored destination credentials. */
const opener = (gateway: Gateway) => (stored: SealedSecret) => gateway.deps.secrets.open(stored);

describe('backup import on PostgreSQL', () => {
  let admin: Knex;
  const names = [`gw_backup_a_${process.pid}`, `gw_backup_b_${process.pid}`];
  const gateways: Gateway[] = [];

  const open = async (database: string): Promise<Gateway> => {
    const url = new URL(POSTGRES_URL ?? '');
    url.pathname = `/${database}`;
    const gateway = await createGateway({
      secrets: createSecretBox(randomBytes(32)),
      database: { kind: 'postgres', url: url.toString() },
      logger: silentLogger,
      adminPassword: ADMIN_PASSWORD,
    });
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
    for (const name of names) {
      await admin.raw('drop database if exists ??', [name]);
      await admin.raw('create database ??', [name]);
    }
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const name of names) await admin.raw('drop database if exists ??', [name]);
    await admin.destroy();
  });

  it('replaces a populated configuration, keeps ids, and new records still get fresh ids', async () => {
    const [pa, pb] = [await open(names[0] ?? ''), await open(names[1] ?? '')];
    const route = (name: string) => ({ name, eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' });
    // B has more routes than A (its sequence is ahead); A's ids are not B's.
    await pb.handlers.createEndpoint(
      { name: 'Other', baseRoutePath: 'other', routes: [route('o1'), route('o2'), route('o3'), route('o4')] },
      ctx,
    );
    await pa.handlers.createRole({ name: 'operators' }, ctx);
    await pa.handlers.createEndpoint(
      {
        name: 'Warehouse',
        baseRoutePath: 'warehouse',
        routes: [{ ...route('epcis'), authType: 'OAuth2', roles: ['operators'] }, route('plain')],
      },
      ctx,
    );
    await pa.handlers.createUser({ username: 'alice', roles: ['operators'], password: ALICE_PASSWORD }, ctx);
    const backup = await pa.handlers.exportBackup({ passphrase: PASSPHRASE }, ctx);

    const diff = await pb.handlers.importBackup({ file: backup.data, passphrase: PASSPHRASE }, ctx);
    expect(diff.changes.endpoints).toEqual({ added: ['Warehouse'], changed: [], removed: ['Other'] });
    expect(await readConfiguration(pb.db.knex, opener(pb))).toEqual(await readConfiguration(pa.db.knex, opener(pa)));
    const alice = await usersRepo.findByUsername(pb.db.knex, 'alice');
    expect(await bcrypt.compare(ALICE_PASSWORD, alice?.passwordHash ?? '')).toBe(true);

    const yard = await pb.handlers.createEndpoint(
      { name: 'Yard', baseRoutePath: 'yard', routes: [route('gate')] },
      ctx,
    );
    // Past every id used before (B's own routes o1..o4 included), like SQLite's AUTOINCREMENT.
    expect(yard.routes[0]?.id).toBeGreaterThan(4);
    await pb.handlers.createRole({ name: 'late' }, ctx);
    await pb.handlers.createUser({ username: 'bob', password: ALICE_PASSWORD }, ctx);

    // Importing again over the changed configuration works the same way; two imports at once
    // queue behind the table lock instead of colliding on the explicit ids.
    const [again, twice] = await Promise.all([
      pb.handlers.importBackup({ file: backup.data, passphrase: PASSPHRASE }, ctx),
      pb.handlers.importBackup({ file: backup.data, passphrase: PASSPHRASE }, ctx),
    ]);
    expect([again.changes.endpoints.removed, twice.changes.endpoints.removed]).toContainEqual(['Yard']);
    expect(await readConfiguration(pb.db.knex, opener(pb))).toEqual(await readConfiguration(pa.db.knex, opener(pa)));
  });
});
