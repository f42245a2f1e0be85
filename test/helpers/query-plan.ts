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
