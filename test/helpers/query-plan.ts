import type { Knex } from 'knex';

type Statement = { sql: string; bindings: readonly unknown[] };

/** The first statement `run` sends through `knex`. */
async function firstStatement(knex: Knex, run: () => Promise<unknown>): Promise<Statement> {
  const statements: Statement[] = [];
  const capture = (query: Statement) => statements.push(query);
  knex.on('query', capture);
  try {
    await run();
  } finally {
    knex.removeListener('query', capture);
  }
  const [statement] = statements;
  if (!statement) throw new Error('no statement captured');
  return statement;
}

/**
 * The first statement `run` sends through `knex`, with SQLite's plan for it (EXPLAIN QUERY PLAN,
 * its steps' details one per line): for tests that pin which index a query uses.
 */
export async function firstStatementPlan(
  knex: Knex,
  run: () => Promise<unknown>,
): Promise<{ statement: Statement; plan: string }> {
  const statement = await firstStatement(knex, run);
  return { statement, plan: await statementPlan(knex, statement) };
}

/** SQLite's plan for a statement (EXPLAIN QUERY PLAN, its steps' details one per line). */
export async function statementPlan(knex: Knex, statement: Statement): Promise<string> {
  const steps = await knex.raw<{ detail: string }[]>(
    `EXPLAIN QUERY PLAN ${statement.sql}`,
    statement.bindings as never,
  );
  return steps.map((step) => step.detail).join('\n');
}

/**
 * PostgreSQL's plan (EXPLAIN, text) of the first statement `run` sends: for tests that pin which
 * index a query uses once the planner has statistics (run ANALYZE on loaded tables first).
 */
export async function firstStatementPlanPostgres(knex: Knex, run: () => Promise<unknown>): Promise<string> {
  return statementPlanPostgres(knex, await firstStatement(knex, run));
}

/** PostgreSQL's plan (EXPLAIN, text) of a statement in Knex's native form (`$1`, `$2` …). */
export async function statementPlanPostgres(knex: Knex, statement: Statement): Promise<string> {
  // Knex numbers its `?`s in order ($1, $2 …): back to `?` for knex.raw with the same bindings.
  const sql = statement.sql.replace(/\$\d+/g, '?');
  const result = await knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(`EXPLAIN ${sql}`, statement.bindings as never);
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}
