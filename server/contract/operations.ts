import type {
  AccessToken,
  AccessTokenInput,
  AccessTokenWithValue,
  AuditEntry,
  AuditQuery,
  BackupDiff,
  BackupExportInput,
  BackupFile,
  BackupImportInput,
  DeadLetter,
  DeadLetterQuery,
  DeadLetterRetryResult,
  DeadLetterSelection,
  Destination,
  DestinationInput,
  DestinationTestResult,
  DestinationWithSecret,
  Endpoint,
  EndpointInput,
  EndpointUpdateResult,
  EventQuery,
  EventReads,
  EventRecord,
  ExternalUser,
  ExternalUserInput,
  InventoryPage,
  InventoryQuery,
  Page,
  Reader,
  ReaderHistoryQuery,
  ReaderInput,
  ReaderMinute,
  RefusalList,
  RefusalQuery,
  Role,
  RoleInput,
  Settings,
  SettingsUpdateResult,
  TlsCertificateInfo,
  TlsCertificateInput,
  Status,
  Traffic,
  User,
  UserInput,
} from './dto';
import type { ErrorData } from './errors';

interface ById {
  id: number;
}

/**
 * Every management operation with its input and output. This map is the single source that the
 * services implement and that the HTTP admin routes, the IPC handler table, the preload bridge
 * and the renderer's `api` module are typed against: adding an operation here without a handler
 * in each of them fails `tsc`.
 */
export interface Operations {
  listEndpoints: { input: void; output: Endpoint[] };
  getEndpoint: { input: ById; output: Endpoint };
  createEndpoint: { input: EndpointInput; output: Endpoint };
  updateEndpoint: { input: ById & EndpointInput; output: EndpointUpdateResult };
  deleteEndpoint: { input: ById; output: void };

  listRoles: { input: void; output: Role[] };
  getRole: { input: ById; output: Role };
  createRole: { input: RoleInput; output: Role };
  updateRole: { input: ById & RoleInput; output: Role };
  deleteRole: { input: ById; output: void };

  listUsers: { input: void; output: User[] };
  getUser: { input: ById; output: User };
  createUser: { input: UserInput; output: User };
  updateUser: { input: ById & UserInput; output: User };
  deleteUser: { input: ById; output: void };

  listExternalUsers: { input: void; output: ExternalUser[] };
  getExternalUser: { input: ById; output: ExternalUser };
  createExternalUser: { input: ExternalUserInput; output: ExternalUser };
  updateExternalUser: { input: ById & ExternalUserInput; output: ExternalUser };
  deleteExternalUser: { input: ById; output: void };

  listAccessTokens: { input: void; output: AccessToken[] };
  getAccessToken: { input: ById; output: AccessToken };
  createAccessToken: { input: AccessTokenInput; output: AccessTokenWithValue };
  regenerateAccessToken: { input: ById; output: AccessTokenWithValue };
  deleteAccessToken: { input: ById; output: void };

  listEvents: { input: EventQuery; output: Page<EventRecord> };
  getEvent: { input: { id: string }; output: EventRecord };
  /** The tag reads of a UHFTagRead event, decoded as its processor decodes them (issue 40). */
  getEventReads: { input: { id: string }; output: EventReads };
  /** One endpoint's live tag inventory: the GET route's snapshot, with its filters (issue 40). */
  listInventory: { input: InventoryQuery; output: InventoryPage };

  getSettings: { input: void; output: Settings };
  updateSettings: { input: Partial<Settings>; output: SettingsUpdateResult };

  getTls: { input: void; output: TlsCertificateInfo };
  installTls: { input: TlsCertificateInput; output: TlsCertificateInfo };
  regenerateTls: { input: void; output: TlsCertificateInfo };

  listAudit: { input: AuditQuery; output: Page<AuditEntry> };
  /** The last refused requests, newest first (in memory; issue 40). */
  listRefusals: { input: RefusalQuery; output: RefusalList };

  exportBackup: { input: BackupExportInput; output: BackupFile };
  importBackup: { input: BackupImportInput; output: BackupDiff };

  getStatus: { input: void; output: Status };
  getTraffic: { input: void; output: Traffic };

  listDestinations: { input: void; output: Destination[] };
  getDestination: { input: ById; output: Destination };
  createDestination: { input: DestinationInput; output: DestinationWithSecret };
  updateDestination: { input: ById & DestinationInput; output: DestinationWithSecret };
  deleteDestination: { input: ById; output: void };
  regenerateDestinationSecret: { input: ById; output: DestinationWithSecret };
  listDeadLetters: { input: DeadLetterQuery; output: Page<DeadLetter> };
  /** 202: the batches are back at the head of the outbox; `retried` counts them. */
  retryDeadLetters: { input: DeadLetterSelection; output: DeadLetterRetryResult };
  discardDeadLetters: { input: DeadLetterSelection; output: void };
  /** The batch waiting for a retry goes now, not at its backoff time; answers the destination. */
  retryDestinationNow: { input: ById; output: Destination };
  /** Sends one signed, marked test item to the receiver now; nothing goes into the outbox. */
  testDestination: { input: ById; output: DestinationTestResult };

  /** SPEC §16: readers are kept from the traffic; a technician names them and sets their threshold. */
  listReaders: { input: void; output: Reader[] };
  /** `id` is the reader's `readerId` (URL-encoded in the path). */
  getReader: { input: { id: string }; output: Reader };
  updateReader: { input: ReaderInput; output: Reader };
  deleteReader: { input: { id: string }; output: void };
  getReaderHistory: { input: ReaderHistoryQuery; output: ReaderMinute[] };
}

export type OperationName = keyof Operations;
export type OperationInput<K extends OperationName> = Operations[K]['input'];
export type OperationOutput<K extends OperationName> = Operations[K]['output'];

/** Who performs a call: recorded in the audit log as `user:<username>` or `cli`. */
export interface CallContext {
  actor: string;
}

/**
 * The server side: every operation, given the caller. Inputs arrive as `unknown` because every
 * transport delivers untrusted data; the services validate them at run time.
 */
export type GatewayHandlers = {
  [K in OperationName]: (input: unknown, context: CallContext) => Promise<OperationOutput<K>>;
};

/** The client side (renderer, preload): the transport supplies the caller. */
export type GatewayApi = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<OperationOutput<K>>;
};

/** How results cross IPC: thrown errors lose their fields there, so failures travel as data. */
export type IpcResult<T> = { ok: true; data: T } | ({ ok: false } & ErrorData);

/** What the preload exposes as `window.api`: each operation, answering with an IpcResult. */
export type IpcBridge = {
  [K in OperationName]: (input: OperationInput<K>) => Promise<IpcResult<OperationOutput<K>>>;
};

const OPERATION_SET = {
  listEndpoints: true,
  getEndpoint: true,
  createEndpoint: true,
  updateEndpoint: true,
  deleteEndpoint: true,
  listRoles: true,
  getRole: true,
  createRole: true,
  updateRole: true,
  deleteRole: true,
  listUsers: true,
  getUser: true,
  createUser: true,
  updateUser: true,
  deleteUser: true,
  listExternalUsers: true,
  getExternalUser: true,
  createExternalUser: true,
  updateExternalUser: true,
  deleteExternalUser: true,
  listAccessTokens: true,
  getAccessToken: true,
  createAccessToken: true,
  regenerateAccessToken: true,
  deleteAccessToken: true,
  listEvents: true,
  getEvent: true,
  getEventReads: true,
  listInventory: true,
  getSettings: true,
  updateSettings: true,
  getTls: true,
  installTls: true,
  regenerateTls: true,
  listAudit: true,
  listRefusals: true,
  exportBackup: true,
  importBackup: true,
  getStatus: true,
  getTraffic: true,
  listDestinations: true,
  getDestination: true,
  createDestination: true,
  updateDestination: true,
  deleteDestination: true,
  regenerateDestinationSecret: true,
  listDeadLetters: true,
  retryDeadLetters: true,
  discardDeadLetters: true,
  retryDestinationNow: true,
  testDestination: true,
  listReaders: true,
  getReader: true,
  updateReader: true,
  deleteReader: true,
  getReaderHistory: true,
} as const satisfies Record<OperationName, true>;

/** Every operation name at run time (IPC binding, preload); `satisfies` keeps it complete. */
export const OPERATION_NAMES = Object.keys(OPERATION_SET) as OperationName[];
