import sqlite3 from 'sqlite3';

/** Bytes a table takes on disk with its indexes, from SQLite's `dbstat` (whole pages). */
export interface TableBytes {
  table: string;
  /** The table's own b-tree. */
  tableBytes: number;
  /** All its indexes together. */
  indexBytes: number;
  /** Each b-tree of the table (its own and every index's), largest first. */
  trees: { name: string; bytes: number }[];
}

export interface DiskUse {
  tables: TableBytes[];
  /** Every b-tree page of the database (free pages are not counted). */
  totalBytes: number;
  /** Rows of the live inventory: the distinct reads stored. */
  distinctReads: number;
}

/**
 * The database file's pages per table (indexes booked to their table), largest first: what a
 * read costs at rest. Opened read-only beside the running gateway (WAL: a reader sees the last
 * commit and blocks no writer).
 */
export async function diskUse(file: string): Promise<DiskUse> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) =>
      error ? reject(error) : resolve(opened),
    );
  });
  try {
    const rows = await new Promise<{ name: string; tbl: string | null; type: string | null; bytes: number }[]>(
      (resolve, reject) =>
        db.all(
          `SELECT s.name AS name, m.tbl_name AS tbl, m.type AS type, SUM(s.pgsize) AS bytes
             FROM dbstat AS s LEFT JOIN sqlite_schema AS m ON m.name = s.name
            GROUP BY s.name`,
          (error, result: { name: string; tbl: string | null; type: string | null; bytes: number }[]) =>
            error ? reject(error) : resolve(result),
        ),
    );
    const [count] = await new Promise<{ n: number }[]>((resolve, reject) =>
      db.all('SELECT COUNT(*) AS n FROM tag_inventory', (error, result: { n: number }[]) =>
        error ? reject(error) : resolve(result),
      ),
    );
    const tables = new Map<string, TableBytes>();
    for (const row of rows) {
      const table = row.tbl ?? row.name;
      const entry = tables.get(table) ?? { table, tableBytes: 0, indexBytes: 0, trees: [] };
      if (row.type === 'index') entry.indexBytes += row.bytes;
      else entry.tableBytes += row.bytes;
      entry.trees.push({ name: row.name, bytes: row.bytes });
      tables.set(table, entry);
    }
    for (const entry of tables.values()) entry.trees.sort((a, b) => b.bytes - a.bytes);
    const list = [...tables.values()].sort((a, b) => b.tableBytes + b.indexBytes - (a.tableBytes + a.indexBytes));
    return {
      tables: list,
      totalBytes: list.reduce((sum, t) => sum + t.tableBytes + t.indexBytes, 0),
      distinctReads: count?.n ?? 0,
    };
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

/** The tables that hold most of the bytes, per read: `events 250 B (index 0), tag_inventory …`. */
export function diskUseText(use: DiskUse, top = 5): string {
  const reads = use.distinctReads;
  const per = (bytes: number) => (reads > 0 ? bytes / reads : 0).toFixed(0);
  const tables = use.tables
    .slice(0, top)
    .map((t) => `${t.table} ${per(t.tableBytes + t.indexBytes)} B (indexes ${per(t.indexBytes)})`)
    .join(', ');
  const trees = use.tables
    .slice(0, 2)
    .flatMap((t) => t.trees.filter((tree) => tree.bytes >= reads))
    .map((tree) => `${tree.name} ${(reads > 0 ? tree.bytes / reads : 0).toFixed(1)} B`)
    .join(', ');
  return `${per(use.totalBytes)} B per distinct read at rest (${reads} reads): ${tables}\n  b-trees: ${trees}`;
}
