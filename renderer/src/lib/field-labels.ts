import type {
  AccessTokenInput,
  DestinationAuthInput,
  DestinationInput,
  EndpointInput,
  ExternalUserInput,
  RoleInput,
  RouteInput,
  UserInput,
} from '../../../server/contract/dto';
import type { FieldError } from '../../../server/contract/errors';
import { SETTING_LABELS } from './setting-labels';

/**
 * People's words for every field a form sends, per form: the forms take their labels from here
 * and API errors are worded with the same ones, so "userName is required" reads "Username is
 * required" beside the field called Username. `satisfies` makes a new input field without a label
 * a type error. The API's own messages stay as they are (clients may match them); only the
 * renderer words them for people.
 */
export const FIELD_LABELS = {
  signIn: { userName: 'Username', password: 'Password' },
  user: {
    username: 'Username',
    displayName: 'Display Name',
    password: 'Password',
    roles: 'Roles',
    active: 'Active',
  } satisfies Record<keyof UserInput, string>,
  externalUser: {
    firstName: 'First Name',
    lastName: 'Last Name',
    username: 'Username',
    password: 'Password',
    routes: 'Endpoint(s)',
    active: 'Active',
  } satisfies Record<keyof ExternalUserInput, string>,
  role: { name: 'Role Name', description: 'Description' } satisfies Record<keyof RoleInput, string>,
  accessToken: {
    name: 'Token Name',
    role: 'Role',
    expiryDate: 'Expiry Date',
    description: 'Description',
  } satisfies Record<keyof AccessTokenInput, string>,
  endpoint: {
    name: 'Endpoint Name',
    baseRoutePath: 'Base Route Path',
    active: 'Active',
    routes: 'Routes',
  } satisfies Record<keyof EndpointInput, string>,
  route: {
    id: 'Route id',
    name: 'Route Name',
    eventType: 'Event Type',
    requestType: 'Request Type',
    authType: 'Auth Type',
    active: 'Active',
    async: 'Async',
    roles: 'Roles',
    epcisLenient: 'EPCIS lenient',
    mqttTopic: 'MQTT topic',
    destinations: 'Destinations',
  } satisfies Record<keyof RouteInput, string>,
  destination: {
    name: 'Name',
    kind: 'Kind',
    url: 'URL',
    headers: 'Headers',
    auth: 'Authentication',
    timeoutMs: 'Timeout (ms)',
    batchMaxEvents: 'Batch size (events)',
    batchMaxWaitMs: 'Batch wait (ms)',
    maxRetryAgeSeconds: 'Retry for (seconds)',
    tlsVerify: 'Verify TLS certificates',
    caCertificatePem: 'CA certificate (PEM)',
    active: 'Active',
  } satisfies Record<keyof DestinationInput, string>,
  /** A destination's `auth`: its own scope, as its errors' paths run `/auth/username`. */
  destinationAuth: {
    type: 'Authentication',
    username: 'Username',
    password: 'Password',
    token: 'Token',
  } satisfies Record<keyof DestinationAuthInput, string>,
  settings: SETTING_LABELS,
  backupExport: { passphrase: 'Export passphrase', passphraseRepeat: 'Repeat passphrase' },
  backupImport: { file: 'Backup file', passphrase: 'Import passphrase' },
} as const;

export type FieldScope = keyof typeof FIELD_LABELS;

/**
 * Lists (or objects) inside a form's input whose items are another form's fields: an endpoint's
 * routes, a destination's auth, and the resources a backup file holds (its errors point into the file: `/users/0/username`).
 */
const NESTED: Partial<Record<FieldScope, Record<string, FieldScope>>> = {
  endpoint: { routes: 'route' },
  destination: { auth: 'destinationAuth' },
  backupImport: {
    endpoints: 'endpoint',
    roles: 'role',
    users: 'user',
    externalUsers: 'externalUser',
    accessTokens: 'accessToken',
    settings: 'settings',
  },
};

/**
 * The field an error path names, in people's words, with the key the API used for it:
 * `/routes/1/name` on the endpoint form is the route's Route Name. List indexes are skipped
 * (`/roles/0` is about Roles); null when the path names no field of the form.
 */
export function fieldAt(scope: FieldScope, path: string): { key: string; label: string } | null {
  let current: FieldScope = scope;
  /** The last named segment: a field of `current`, or a list of another form's items. */
  let last: { key: string; label: string | undefined } | null = null;
  for (const segment of path.split('/').slice(1)) {
    if (/^[0-9]+$/.test(segment)) continue;
    if (last) {
      const child: FieldScope | undefined = NESTED[current]?.[last.key];
      if (!child) return null;
      current = child;
    }
    const label: string | undefined = (FIELD_LABELS[current] as Record<string, string>)[segment];
    if (label === undefined && !NESTED[current]?.[segment]) return null;
    last = { key: segment, label };
  }
  return last?.label === undefined ? null : { key: last.key, label: last.label };
}

/**
 * An API message in the form's words: a message that opens with the field's key
 * ("bcryptCost must be an integer from 4 to 14") opens with its label instead ("bcrypt cost must
 * be…"). Messages the API already words with a label are left alone.
 */
export function messageInWords(scope: FieldScope, error: FieldError): string {
  const field = fieldAt(scope, error.path);
  if (!field) return error.message;
  const opening = new RegExp(`^${field.key}(?![\\w])`);
  return opening.test(error.message) ? error.message.replace(opening, field.label) : error.message;
}
