import { defineConfig } from 'vitest/config';

/** The tests whose subject is storage, services or the data plane: they run on both databases. */
const BOTH_DATABASES = [
  'test/integration/endpoints-rules.test.ts',
  'test/integration/identity-rules.test.ts',
  'test/integration/admin-auth.test.ts',
  'test/integration/data-plane-auth.test.ts',
  'test/integration/data-plane-ingest.test.ts',
  'test/integration/retention.test.ts',
  'test/integration/backup.test.ts',
  'test/integration/openapi-schemas.test.ts',
  'test/integration/group-commit.test.ts',
  'test/integration/write-batch.test.ts',
  'test/integration/inventory-state.test.ts',
  'test/integration/delivery.test.ts',
  'test/integration/delivery-guards.test.ts',
  'test/integration/outbox-ledger.test.ts',
  'test/integration/secrets-at-rest.test.ts',
  'test/integration/queue-claims.test.ts',
  'test/integration/mqtt.test.ts',
  'test/integration/epcis-repository.test.ts',
  'test/integration/readers.test.ts',
  'test/integration/epcis-repository-upkeep.test.ts',
  'test/integration/epcis-query-plan.test.ts',
  'test/integration/destination-actions.test.ts',
  'test/integration/inventory-admin.test.ts',
  'test/integration/disk-per-read-migration.test.ts',
  'test/integration/inventory-epc-bytes-migration.test.ts',
  'test/integration/inventory-uri-hash-migration.test.ts',
];

export default defineConfig({
  test: {
    // Integration tests start servers and child processes and write real database files; two
    // cores are all we have, so keep the pool small and give slow machines room.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/postgres/**'],
          // Builds the web admin for the browser tests when out/renderer is missing or stale.
          globalSetup: ['test/browser/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...BOTH_DATABASES, 'test/postgres/**/*.test.ts'],
          env: { GATEWAY_TEST_DATABASE: 'postgres' },
          globalSetup: ['test/helpers/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
