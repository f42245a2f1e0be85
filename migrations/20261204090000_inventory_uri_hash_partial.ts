import type { Knex } from 'knex';

// A migration stays as it was written: it imports no application code, which may change later.

/** Rows per statement when hashes are written here. */
const CHUNK = 500;

const FULL_INDEX = 'CREATE INDEX tag_inventory_uri_hash_idx ON tag_inventory (endpoint_id, epc_uri_hash)';
const PARTIAL_INDEX = `${FULL_INDEX} WHERE epc_uri_hash IS NOT NULL`;

/** The gateway's URI hash (FNV-1a over UTF-16 code units, 30 bits), as it was when this was written. */
function uriHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 1) & 0x3fff_ffff;
}

/**
 * The URI hash index holds only the rows that carry a hash (issue 37;
 * docs/decisions/0415-epc-uri-filter-by-its-epcs.md). From now on a row whose URI lists its EPC
 * (a raw URI, an SGTIN-96) is written without one. The rows there are keep theirs, and the URI
 * filter finds them by it, until each is written again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX tag_inventory_uri_hash_idx');
  await knex.raw(PARTIAL_INDEX);
}

/** Before this, every row carried its URI's hash: the rows written without one get it back. */
export async function down(knex: Knex): Promise<void> {
  let after: [number, Buffer] = [-1, Buffer.alloc(0)];
  for (;;) {
    const rows = await knex('tag_inventory')
      .whereNull('epc_uri_hash')
      .whereRaw('(endpoint_id, epc) > (?, ?)', after)
      .orderBy(['endpoint_id', 'epc'])
      .limit(CHUNK)
      .select<{ endpoint_id: number | string; epc: Buffer; epc_uri: string }[]>('endpoint_id', 'epc', 'epc_uri');
    const last = rows[rows.length - 1];
    if (!last) break;
    after = [Number(last.endpoint_id), last.epc];
    await knex.transaction(async (trx) => {
      for (const row of rows)
        await trx('tag_inventory')
          .where({ endpoint_id: Number(row.endpoint_id), epc: row.epc })
          .update({ epc_uri_hash: uriHash(row.epc_uri) });
    });
  }
  await knex.raw('DROP INDEX tag_inventory_uri_hash_idx');
  await knex.raw(FULL_INDEX);
}
