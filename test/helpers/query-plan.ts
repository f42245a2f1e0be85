import type { Knex } from 'knex';

/**
 * The first statement `run` sends through `knex`, with SQLite's plan for it (EXPLAIN QUERY PLAN,
 * its steps' details one per line): for tests that pin which index a query uses.
 */
export async function firstStatementPlan(
  knex: Knex,
  run: () => Promise<unknown>,
): Promise<{ statement: { sql: string; bindings: unknown[] }; plan: string }> {
  const statements: { sql: string; bindings: unknown[] }[] = [];
  const capture = (query: { sql: string; bindings: unknown[] }) => statements.push(query);
  knex.on('query', capture);
  try {
    await run();
  } finally {
    knex.removeListener('query', capture);
  }
  const [statement] = statements;
  if (!statement) throw new Error('no statement captured');
  const steps = await knex.raw<{ detail: string }[]>(
    `EXPLAIN QUERY PLAN ${statement.sql}`,
    statement.bindings as never,
  );
  return { statement, plan: steps.map((step) => step.detail).join('\n') };
}

/**
 * PostgreSQL's plan (EXPLAIN, text) of the first statement `run` sends: for tests that pin which
 * index a query uses once the planner has statistics (run ANALYZE on loaded tables first).
 */
export async function firstStatementPlanPostgres(knex: Knex, run: () => Promise<unknown>): Promise<string> {
  const statements: { sql: string; bindings: unknown[] }[] = [];
  const capture = (query: { sql: string; bindings: unknown[] }) => statements.push(query);
  knex.on('query', capture);
  try {
    await run();
  } finally {
    knex.removeListener('query', capture);
  }
  const [statement] = statements;
  if (!statement) throw new Error('no statement captured');
  // Knex numbers its `?`s in order ($1, $2 …): back to `?` for knex.raw with the same bindings.
  const sql = statement.sql.replace(/\$\d+/g, '?');
  const result = await knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(`EXPLAIN ${sql}`, statement.bindings as never);
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}
