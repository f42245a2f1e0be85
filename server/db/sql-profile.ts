import { writeFileSync } from 'node:fs';

/** Time spent per kind of statement on SQLite's writer, in ms, and how many ran. */
export type SqlProfileTotals = Record<string, { count: number; ms: number }>;

/**
 * The SQLite-side share of a profiled run (`npm run bench` with `BENCH_PROFILE=1` sets
 * `GATEWAY_SQL_PROFILE` to a file): the writer then sends each write of a transaction as a trip of
 * its own and times it, so the figures say which statements the database spends its time on. A
 * profiled gateway is slower for it; an unprofiled one never reaches this code.
 */
export class SqlProfile {
  private readonly totals: SqlProfileTotals = {};

  constructor(private readonly file: string) {
    process.once('exit', () => this.save());
  }

  async time<T>(kind: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      const entry = (this.totals[kind] ??= { count: 0, ms: 0 });
      entry.count += 1;
      entry.ms += performance.now() - started;
    }
  }

  save(): void {
    writeFileSync(this.file, JSON.stringify(this.totals, null, 2) + '\n');
  }
}

const file = process.env.GATEWAY_SQL_PROFILE;
export const sqlProfile: SqlProfile | null = file ? new SqlProfile(file) : null;

/** A statement's kind for the profile: its verb and table, e.g. `insert tag_inventory`. */
export function statementKind(sql: string): string {
  const match = /^\s*(insert|update|delete|select|with)\b(?:\s+(?:or\s+\w+\s+)?(?:into|from)?)?\s*[`"]?(\w+)/i.exec(
    sql,
  );
  return match ? `${(match[1] ?? '').toLowerCase()} ${match[2] ?? ''}` : sql.slice(0, 24);
}
