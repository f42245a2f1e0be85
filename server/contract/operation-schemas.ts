import { s, type SchemaNode } from './schema';
import * as S from './schemas';

/** A record's id in the path (`:id`): a number, or a string for events and readers. */
const ID = s.integer();
const TEXT_ID = s.string();

/**
 * Every management operation, written once: what it reads and what it answers, as schemas. The
 * contract's `Operations` type is read from this table (server/contract/operations.ts), so a new
 * operation here is typed everywhere at once, and the compiler then asks for its route
 * (admin-routes.ts), its handler, and its IPC and renderer bindings. `id` is the path's `:id`;
 * `input` the body or query; `output` is null where nothing is answered (204). The OpenAPI
 * document's request bodies, query parameters and responses come from here too.
 */
export const OPERATION_SCHEMAS = {
  listEndpoints: { output: s.array(S.ENDPOINT) },
  getEndpoint: { id: ID, output: S.ENDPOINT },
  createEndpoint: { input: S.ENDPOINT_INPUT, output: S.ENDPOINT },
  updateEndpoint: { id: ID, input: S.ENDPOINT_INPUT, output: S.ENDPOINT_UPDATE_RESULT },
  deleteEndpoint: { id: ID, output: null },

  listRoles: { output: s.array(S.ROLE) },
  getRole: { id: ID, output: S.ROLE },
  createRole: { input: S.ROLE_INPUT, output: S.ROLE },
  updateRole: { id: ID, input: S.ROLE_INPUT, output: S.ROLE },
  deleteRole: { id: ID, output: null },

  listUsers: { output: s.array(S.USER) },
  getUser: { id: ID, output: S.USER },
  createUser: { input: S.USER_CREATE_INPUT, output: S.USER },
  updateUser: { id: ID, input: S.USER_UPDATE_INPUT, output: S.USER },
  deleteUser: { id: ID, output: null },

  listExternalUsers: { output: s.array(S.EXTERNAL_USER) },
  getExternalUser: { id: ID, output: S.EXTERNAL_USER },
  createExternalUser: { input: S.EXTERNAL_USER_CREATE_INPUT, output: S.EXTERNAL_USER },
  updateExternalUser: { id: ID, input: S.EXTERNAL_USER_UPDATE_INPUT, output: S.EXTERNAL_USER },
  deleteExternalUser: { id: ID, output: null },

  listAccessTokens: { output: s.array(S.ACCESS_TOKEN) },
  getAccessToken: { id: ID, output: S.ACCESS_TOKEN },
  createAccessToken: { input: S.ACCESS_TOKEN_INPUT, output: S.ACCESS_TOKEN_WITH_VALUE },
  regenerateAccessToken: { id: ID, output: S.ACCESS_TOKEN_WITH_VALUE },
  deleteAccessToken: { id: ID, output: null },

  listEvents: { input: S.EVENT_QUERY, output: S.EVENT_PAGE },
  getEvent: { id: TEXT_ID, output: S.EVENT_RECORD },
  getEventReads: { id: TEXT_ID, output: S.EVENT_READS },
  listInventory: { input: S.INVENTORY_QUERY, output: S.INVENTORY_PAGE },

  getSettings: { output: S.SETTINGS },
  updateSettings: { input: S.SETTINGS_INPUT, output: S.SETTINGS_UPDATE_RESULT },

  getTls: { output: S.TLS_CERTIFICATE_INFO },
  installTls: { input: S.TLS_CERTIFICATE_INPUT, output: S.TLS_CERTIFICATE_INFO },
  regenerateTls: { output: S.TLS_CERTIFICATE_INFO },

  listAudit: { input: S.AUDIT_QUERY, output: S.AUDIT_PAGE },
  /** The last refused requests, newest first (in memory; issue 40). */
  listRefusals: { input: S.REFUSAL_QUERY, output: S.REFUSAL_LIST },

  exportBackup: { input: S.BACKUP_EXPORT_INPUT, output: S.BACKUP_FILE },
  importBackup: { input: S.BACKUP_IMPORT_INPUT, output: S.BACKUP_DIFF },

  getStatus: { output: S.STATUS },
  getTraffic: { output: S.TRAFFIC },

  listDestinations: { output: s.array(S.DESTINATION) },
  getDestination: { id: ID, output: S.DESTINATION },
  createDestination: { input: S.DESTINATION_INPUT, output: S.DESTINATION_WITH_SECRET },
  updateDestination: { id: ID, input: S.DESTINATION_INPUT, output: S.DESTINATION_WITH_SECRET },
  deleteDestination: { id: ID, output: null },
  regenerateDestinationSecret: { id: ID, output: S.DESTINATION_WITH_SECRET },
  listDeadLetters: { id: ID, input: S.DEAD_LETTER_QUERY, output: S.DEAD_LETTER_PAGE },
  /** 202: the batches are back at the head of the outbox; `retried` counts them. */
  retryDeadLetters: { id: ID, input: S.DEAD_LETTER_SELECTION, output: S.DEAD_LETTER_RETRY_RESULT },
  discardDeadLetters: { id: ID, input: S.DEAD_LETTER_SELECTION, output: null },
  retryDestinationNow: { id: ID, output: S.DESTINATION },
  testDestination: { id: ID, output: S.DESTINATION_TEST_RESULT },

  /** SPEC §16: readers are kept from the traffic; a technician names them and sets their threshold. */
  listReaders: { output: s.array(S.READER) },
  /** `id` is the reader's `readerId` (URL-encoded in the path). */
  getReader: { id: TEXT_ID, output: S.READER },
  updateReader: { id: TEXT_ID, input: S.READER_INPUT, output: S.READER },
  deleteReader: { id: TEXT_ID, output: null },
  getReaderHistory: { id: TEXT_ID, input: S.READER_HISTORY_QUERY, output: S.READER_HISTORY },
} satisfies Record<string, OperationSchemas>;

export interface OperationSchemas {
  id?: SchemaNode;
  input?: SchemaNode & { kind: 'object' };
  output: SchemaNode | null;
}
