/**
 * The Destinations form's draft and what Submit sends (SPEC §11): headers as name/value rows with
 * stable keys, auth as one flat set of fields, and secrets write-only (an empty password or token
 * on edit keeps the stored one, so it is left out of the input).
 */
import type {
  Destination,
  DestinationAuthInput,
  DestinationAuthType,
  DestinationInput,
} from '../../../server/contract/dto';

export interface HeaderRow {
  key: string;
  name: string;
  value: string;
}

export interface DestinationDraft {
  name: string;
  url: string;
  headers: HeaderRow[];
  authType: DestinationAuthType;
  username: string;
  /** Write-only: empty on edit means "keep the stored password". */
  password: string;
  /** Write-only: empty on edit means "keep the stored token". */
  token: string;
  /** null while the input is empty: the gateway's default applies. */
  timeoutMs: number | null;
  batchMaxEvents: number | null;
  batchMaxWaitMs: number | null;
  maxRetryAgeSeconds: number | null;
  tlsVerify: boolean;
  caCertificatePem: string;
  active: boolean;
}

/** SPEC §11's ranges and defaults, for the fields' limits and hints. */
export const DESTINATION_NUMBERS = {
  timeoutMs: { min: 1000, max: 120_000, fallback: 10_000 },
  batchMaxEvents: { min: 1, max: 1000, fallback: 100 },
  batchMaxWaitMs: { min: 0, max: 60_000, fallback: 1000 },
  maxRetryAgeSeconds: { min: 60, max: 2_592_000, fallback: 604_800 },
} as const;

let nextKey = 0;
export const newHeaderRow = (name = '', value = ''): HeaderRow => ({ key: `h${++nextKey}`, name, value });

export function blankDestination(): DestinationDraft {
  return {
    name: '',
    url: '',
    headers: [],
    authType: 'none',
    username: '',
    password: '',
    token: '',
    timeoutMs: DESTINATION_NUMBERS.timeoutMs.fallback,
    batchMaxEvents: DESTINATION_NUMBERS.batchMaxEvents.fallback,
    batchMaxWaitMs: DESTINATION_NUMBERS.batchMaxWaitMs.fallback,
    maxRetryAgeSeconds: DESTINATION_NUMBERS.maxRetryAgeSeconds.fallback,
    tlsVerify: true,
    caCertificatePem: '',
    active: true,
  };
}

export function destinationToDraft(destination: Destination): DestinationDraft {
  return {
    name: destination.name,
    url: destination.url,
    headers: Object.entries(destination.headers).map(([name, value]) => newHeaderRow(name, value)),
    authType: destination.auth.type,
    username: destination.auth.type === 'basic' ? (destination.auth.username ?? '') : '',
    password: '',
    token: '',
    timeoutMs: destination.timeoutMs,
    batchMaxEvents: destination.batchMaxEvents,
    batchMaxWaitMs: destination.batchMaxWaitMs,
    maxRetryAgeSeconds: destination.maxRetryAgeSeconds,
    tlsVerify: destination.tlsVerify,
    caCertificatePem: destination.caCertificatePem ?? '',
    active: destination.active,
  };
}

function authInput(draft: DestinationDraft): DestinationAuthInput {
  switch (draft.authType) {
    case 'basic':
      return {
        type: 'basic',
        username: draft.username.trim(),
        ...(draft.password ? { password: draft.password } : {}),
      };
    case 'bearer':
      return { type: 'bearer', ...(draft.token.trim() ? { token: draft.token.trim() } : {}) };
    case 'hmac':
      return { type: 'hmac' };
    default:
      return { type: 'none' };
  }
}

type NumberKey = keyof typeof DESTINATION_NUMBERS;

/** The number fields that hold a value; an emptied one is left out, so the gateway's default applies. */
function numbersOf(draft: DestinationDraft): Partial<Record<NumberKey, number>> {
  const keys = Object.keys(DESTINATION_NUMBERS) as NumberKey[];
  return Object.fromEntries(keys.flatMap((key) => (draft[key] === null ? [] : [[key, draft[key]]])));
}

/**
 * What Submit sends. Header rows left wholly empty are dropped (an "Add header" clicked by
 * mistake); a row with a value and no name is sent as is, so the gateway names the problem.
 */
export function destinationInput(draft: DestinationDraft): DestinationInput {
  const headers: Record<string, string> = {};
  for (const row of draft.headers) {
    const name = row.name.trim();
    if (name === '' && row.value.trim() === '') continue;
    headers[name] = row.value.trim();
  }
  const pem = draft.caCertificatePem.trim();
  return {
    name: draft.name.trim(),
    kind: 'http',
    url: draft.url.trim(),
    headers,
    auth: authInput(draft),
    ...numbersOf(draft),
    tlsVerify: draft.tlsVerify,
    caCertificatePem: pem === '' ? null : pem,
    active: draft.active,
  };
}

/** The JSON Pointer the gateway uses for a header's errors (`/headers/<name>`, `~` and `/` escaped). */
export const headerPath = (name: string): string =>
  `/headers/${name.trim().replaceAll('~', '~0').replaceAll('/', '~1')}`;
