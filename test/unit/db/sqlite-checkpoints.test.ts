import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../server/db/create-db';
import { CHECKPOINT_EVERY_MS } from '../../../server/db/sqlite-checkpoints';

const PAGE = 4096;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('background checkpoints (SQLite)', () => {
  let dir: string;
  let db: Db | undefined;

  afterEach(async () => {
    await db?.close();
    db = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file beside the writer, below the writer’s own threshold', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-checkpoints-'));
    const filename = join(dir, 'gateway.sqlite');
    db = await createDb({ kind: 'sqlite', filename });
    await db.knex.raw('CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    // Wait out a checkpoint of the migrations, so the file's size now is the schema's.
    await sleep(CHECKPOINT_EVERY_MS * 1.5);
    const before = statSync(filename).size;

    // ~2,000 pages in one COMMIT: far below wal_autocheckpoint (10,000), so the writer copies nothing.
    await db.knex.raw(
      "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 4000) INSERT INTO filler SELECT n, printf('%.1900c', 'x') FROM k",
    );
    expect(statSync(filename).size - before).toBeLessThan(100 * PAGE);

    const deadline = Date.now() + CHECKPOINT_EVERY_MS * 4;
    while (statSync(filename).size - before < 1_900 * PAGE && Date.now() < deadline) await sleep(50);
    expect(statSync(filename).size - before).toBeGreaterThanOrEqual(1_900 * PAGE);
  });
});
