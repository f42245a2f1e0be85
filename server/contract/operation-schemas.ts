import type { OperationName, OperationOutput } from './operations';
import { s, type Schema, type SchemaNode } from './schema';
import * as S from './schemas';

/**
 * What each operation reads and answers, as schemas: the OpenAPI document's request bodies,
 * query parameters and responses come from here. `input` is the body or query (an `:id` in the
 * path is the route table's business); `output` is null where nothing is answered (204).
 * `satisfies` makes a new operation without its schemas a compile error, and an output schema
 * that does not describe the operation's output type another.
 */
export const OPERATION_SCHEMAS = {
  listEndpoints: { output: s.array(S.ENDPOINT) },
  getEndpoint: { output: S.ENDPOINT },
  createEndpoint: { input: S.ENDPOINT_INPUT, output: S.ENDPOINT },
  updateEndpoint: { input: S.ENDPOINT_INPUT, output: S.ENDPOINT_UPDATE_RESULT },
  deleteEndpoint: { output: null },

  listRoles: { output: s.array(S.ROLE) },
  getRole: { output: S.ROLE },
  createRole: { input: S.ROLE_INPUT, output: S.ROLE },
  updateRole: { input: S.ROLE_INPUT, output: S.ROLE },
  deleteRole: { output: null },

  listUsers: { output: s.array(S.USER) },
  getUser: { output: S.USER },
  createUser: { input: S.USER_CREATE_INPUT, output: S.USER },
  updateUser: { input: S.USER_UPDATE_INPUT, output: S.USER },
  deleteUser: { output: null },

  listExternalUsers: { output: s.array(S.EXTERNAL_USER) },
  getExternalUser: { output: S.EXTERNAL_USER },
  createExternalUser: { input: S.EXTERNAL_USER_CREATE_INPUT, output: S.EXTERNAL_USER },
  updateExternalUser: { input: S.EXTERNAL_USER_UPDATE_INPUT, output: S.EXTERNAL_USER },
  deleteExternalUser: { output: null },

  listAccessTokens: { output: s.array(S.ACCESS_TOKEN) },
  getAccessToken: { output: S.ACCESS_TOKEN },
  createAccessToken: { input: S.ACCESS_TOKEN_INPUT, output: S.ACCESS_TOKEN_WITH_VALUE },
  regenerateAccessToken: { output: S.ACCESS_TOKEN_WITH_VALUE },
  deleteAccessToken: { output: null },

  listEvents: { input: S.EVENT_QUERY, output: S.EVENT_PAGE },
  getEvent: { output: S.EVENT_RECORD },
  getEventReads: { output: S.EVENT_READS },
  listInventory: { input: S.INVENTORY_QUERY, output: S.INVENTORY_PAGE },

  getSettings: { output: S.SETTINGS },
  updateSettings: { input: S.SETTINGS_INPUT, output: S.SETTINGS_UPDATE_RESULT },

  getTls: { output: S.TLS_CERTIFICATE_INFO },
  installTls: { input: S.TLS_CERTIFICATE_INPUT, output: S.TLS_CERTIFICATE_INFO },
  regenerateTls: { output: S.TLS_CERTIFICATE_INFO },

  listAudit: { input: S.AUDIT_QUERY, output: S.AUDIT_PAGE },
  listRefusals: { input: S.REFUSAL_QUERY, output: S.REFUSAL_LIST },

  exportBackup: { input: S.BACKUP_EXPORT_INPUT, output: S.BACKUP_FILE },
  importBackup: { input: S.BACKUP_IMPORT_INPUT, output: S.BACKUP_DIFF },

  getStatus: { output: S.STATUS },
  getTraffic: { output: S.TRAFFIC },

  listDestinations: { output: s.array(S.DESTINATION) },
  getDestination: { output: S.DESTINATION },
  createDestination: { input: S.DESTINATION_INPUT, output: S.DESTINATION_WITH_SECRET },
  updateDestination: { input: S.DESTINATION_INPUT, output: S.DESTINATION_WITH_SECRET },
  deleteDestination: { output: null },
  regenerateDestinationSecret: { output: S.DESTINATION_WITH_SECRET },
  listDeadLetters: { input: S.DEAD_LETTER_QUERY, output: S.DEAD_LETTER_PAGE },
  retryDeadLetters: { input: S.DEAD_LETTER_SELECTION, output: S.DEAD_LETTER_RETRY_RESULT },
  discardDeadLetters: { input: S.DEAD_LETTER_SELECTION, output: null },
  retryDestinationNow: { output: S.DESTINATION },
  testDestination: { output: S.DESTINATION_TEST_RESULT },

  listReaders: { output: s.array(S.READER) },
  getReader: { output: S.READER },
  updateReader: { input: S.READER_INPUT, output: S.READER },
  deleteReader: { output: null },
  getReaderHistory: { input: S.READER_HISTORY_QUERY, output: S.READER_HISTORY },
} satisfies { [K in OperationName]: OperationSchemas<OperationOutput<K>> };

interface OperationSchemas<Output> {
  input?: SchemaNode & { kind: 'object' };
  output: [Output] extends [void] ? null : Schema<Output>;
}
