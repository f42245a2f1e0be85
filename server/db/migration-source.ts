import type { Knex } from 'knex';
import * as configuration from '../../migrations/20261123070000_configuration';
import * as events from '../../migrations/20261123070100_events';
import * as queueOrder from '../../migrations/20261123100000_queue_order_index';
import * as inventoryPage from '../../migrations/20261123190000_inventory_page';
import * as eventIndexTrim from '../../migrations/20261123210000_event_index_trim';
import * as destinations from '../../migrations/20261125090000_destinations';
import * as eventPageIndex from '../../migrations/20261125220000_event_page_index';
import * as mqttIngestion from '../../migrations/20261127120000_mqtt_ingestion';
import * as epcisRepository from '../../migrations/20261201090000_epcis_repository';
import * as readers from '../../migrations/20261201090000_readers';
import * as diskPerRead from '../../migrations/20261202090000_disk_per_read';
import * as epcisTimeLead from '../../migrations/20261202090000_epcis_time_lead';
import * as inventoryEpcBytes from '../../migrations/20261203090000_inventory_epc_bytes';
import * as inventoryUriHashPartial from '../../migrations/20261204090000_inventory_uri_hash_partial';
import * as textPieces from '../../migrations/20261205090000_text_pieces';

interface MigrationModule {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Migrations are imported, not discovered: a bundled desktop app has no `migrations/` folder to
 * scan. A test checks that this list names every file in `migrations/`, in order.
 */
export const MIGRATIONS: readonly { name: string; module: MigrationModule }[] = [
  { name: '20261123070000_configuration', module: configuration },
  { name: '20261123070100_events', module: events },
  { name: '20261123100000_queue_order_index', module: queueOrder },
  { name: '20261123190000_inventory_page', module: inventoryPage },
  { name: '20261123210000_event_index_trim', module: eventIndexTrim },
  { name: '20261125090000_destinations', module: destinations },
  { name: '20261125220000_event_page_index', module: eventPageIndex },
  { name: '20261127120000_mqtt_ingestion', module: mqttIngestion },
  { name: '20261201090000_epcis_repository', module: epcisRepository },
  { name: '20261201090000_readers', module: readers },
  { name: '20261202090000_disk_per_read', module: diskPerRead },
  { name: '20261202090000_epcis_time_lead', module: epcisTimeLead },
  { name: '20261203090000_inventory_epc_bytes', module: inventoryEpcBytes },
  { name: '20261204090000_inventory_uri_hash_partial', module: inventoryUriHashPartial },
  { name: '20261205090000_text_pieces', module: textPieces },
];

export const migrationSource: Knex.MigrationSource<(typeof MIGRATIONS)[number]> = {
  getMigrations: () => Promise.resolve([...MIGRATIONS]),
  getMigrationName: (migration) => migration.name,
  getMigration: (migration) => Promise.resolve(migration.module),
};
