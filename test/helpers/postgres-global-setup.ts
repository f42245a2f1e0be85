import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the throwaway cluster (database `postgres`). */
    postgresUrl: string;
  }
}

/** One throwaway PostgreSQL cluster for the whole postgres test project; each test makes its own database. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgresCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
