/**
 * The renderer's one door to the gateway: a `GatewayApi` object whose transport is chosen once at
 * start. In the desktop app the Electron preload exposes the contract as `window.api` (IPC, no
 * login: the window itself is trusted). Served as the web admin, the same screens call the HTTP
 * admin API with a bearer token obtained from the login screen.
 *
 * Only types and plain data come from server/contract: the renderer never bundles server code.
 */
import { ADMIN_HTTP_ROUTES, type AdminHttpRoute } from '../../../server/contract/admin-routes';
import type { ErrorCode, ErrorData, FieldError, RoleReference } from '../../../server/contract/errors';
import type { GatewayApi, IpcBridge, IpcResult, OperationName } from '../../../server/contract/operations';
import { ADMIN_API_ROOT, API_ROOT } from '../../../server/contract/paths';
import { httpRequestOf } from './http-request';

const TOKEN_KEY = 'gateway.adminToken';

/** A failed call, whatever the transport: the service's code, message and field errors. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[];
  readonly references: RoleReference[];
  /** HTTP status when the web transport carried it; undefined over IPC. */
  readonly status: number | undefined;

  constructor(data: ErrorData, status?: number) {
    super(data.message);
    this.name = 'ApiError';
    this.code = data.code;
    this.errors = data.errors ?? [];
    this.references = data.references ?? [];
    this.status = status;
  }
}

// The admin API's method/path per operation: the server's own table (plain data, no server code).
const HTTP_ROUTES: Record<OperationName, AdminHttpRoute> = ADMIN_HTTP_ROUTES;

const OPERATIONS = Object.keys(HTTP_ROUTES) as OperationName[];

type AnyCall = (input: unknown) => Promise<unknown>;

/** Builds a GatewayApi from one generic call; the table above guarantees every name is present. */
function apiFrom(call: (name: OperationName, input: unknown) => Promise<unknown>): GatewayApi {
  const api: Partial<Record<OperationName, AnyCall>> = {};
  for (const name of OPERATIONS) api[name] = (input) => call(name, input);
  // Each entry forwards its own input/output unchanged, so the per-operation types hold.
  return api as unknown as GatewayApi;
}

// ---------------------------------------------------------------------------------------------
// Desktop: IPC through the preload bridge.

/**
 * IPC copies arguments with the structured-clone algorithm, which refuses proxies, and forms hand
 * over Svelte `$state` proxies (a route's roles, a user's routes). Every contract input is JSON
 * data, so a JSON round trip gives the plain copy IPC needs.
 */
const plain = (input: unknown): unknown =>
  input === undefined ? undefined : (JSON.parse(JSON.stringify(input)) as unknown);

function ipcApi(bridge: IpcBridge): GatewayApi {
  return apiFrom(async (name, input) => {
    const invoke = bridge[name] as (input: unknown) => Promise<IpcResult<unknown>>;
    const result = await invoke(plain(input));
    if (result.ok) return result.data;
    const { ok: _ok, ...data } = result;
    throw new ApiError(data);
  });
}

// ---------------------------------------------------------------------------------------------
// Web admin: fetch with a bearer token from the login screen.

let unauthorizedHandler: (() => void) | null = null;

/** The App registers what to do when the session ends (token expired, user disabled). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function clearToken(): void {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage may be disabled; the token then only lived for this call anyway.
  }
}

/**
 * Ends a bearer token on the gateway (POST /token/revoke, RFC 7009), so a copy of it (a shared
 * computer, a saved request) dies with the sign-out. Never fails: a gateway out of reach leaves
 * the token to expire, and the screens are signed out all the same.
 */
async function revokeToken(token: string): Promise<void> {
  try {
    await fetch(`${API_ROOT}/token/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
  } catch {
    // Out of reach: the token runs out at its expiry instead.
  }
}

/** Sign-out: forgets the token here and ends it on the gateway. */
export async function signOut(): Promise<void> {
  const token = getToken();
  clearToken();
  if (token) await revokeToken(token);
}

/** Reads a problem+json body (or anything else) into an ApiError. */
async function errorFrom(response: Response): Promise<ApiError> {
  let body: { code?: unknown; detail?: unknown; errors?: unknown; references?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's error page, say): fall back to the status below.
  }
  const code = (typeof body.code === 'string' ? body.code : 'internal_error') as ErrorCode;
  const message =
    typeof body.detail === 'string'
      ? body.detail
      : `The gateway answered ${response.status} ${response.statusText}`.trim();
  return new ApiError(
    {
      code,
      message,
      errors: Array.isArray(body.errors) ? (body.errors as FieldError[]) : undefined,
      references: Array.isArray(body.references) ? (body.references as RoleReference[]) : undefined,
    },
    response.status,
  );
}

/** Network failures (server stopped, cable out) become an ApiError with a message that helps. */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    throw new ApiError({
      code: 'internal_error',
      message: 'The gateway cannot be reached. Check that it is running and that this computer is on its network.',
    });
  }
}

/** `Content-Disposition: attachment; filename="x"` → x (the server always quotes it). */
function filenameOf(response: Response, fallback: string): string {
  const header = response.headers.get('Content-Disposition') ?? '';
  return /filename="([^"]+)"/.exec(header)?.[1] ?? fallback;
}

export async function blobToBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  // Chunked: String.fromCharCode with a whole file as arguments overflows the call stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function httpApi(): GatewayApi {
  return apiFrom(async (name, input) => {
    const request = httpRequestOf(HTTP_ROUTES[name], input);
    const token = getToken();
    const response = await send(`${ADMIN_API_ROOT}${request.url}`, {
      method: request.method,
      headers: {
        Accept: 'application/json',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: request.body,
    });
    if (response.status === 401) {
      clearToken();
      unauthorizedHandler?.();
      throw await errorFrom(response);
    }
    if (!response.ok) throw await errorFrom(response);
    if (response.status === 204) return undefined;
    // The backup export answers a file download; give back the same BackupFile IPC gives.
    if (name === 'exportBackup') {
      return { filename: filenameOf(response, 'gateway.gwbackup'), data: await blobToBase64(await response.blob()) };
    }
    // An accepted (202) operation may answer with or without a body; IPC gives undefined for none.
    const text = await response.text();
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  });
}

/** What a successful /token answer carries. */
export interface LoginResult {
  access_token: string;
  token_type: string;
  expires_in: number;
  roles: string[];
}

/**
 * Web admin login: POST /GWENDPOINTAPI/token. Only users with role `admin` may manage the
 * gateway, so a valid login without it is refused here with a message that says so.
 */
export async function login(userName: string, password: string): Promise<LoginResult> {
  const response = await send(`${API_ROOT}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ userName, password }),
  });
  if (!response.ok) throw await errorFrom(response);
  const result = (await response.json()) as LoginResult;
  if (!result.roles.includes('admin')) {
    // Not kept, so not left alive either.
    await revokeToken(result.access_token);
    throw new ApiError({
      code: 'forbidden',
      message:
        'This account does not have the admin role. Ask an administrator to grant it, or sign in as an administrator.',
    });
  }
  try {
    sessionStorage.setItem(TOKEN_KEY, result.access_token);
  } catch {
    throw new ApiError({
      code: 'internal_error',
      message: 'This browser blocks session storage; allow it for this site to sign in.',
    });
  }
  return result;
}

/** `ipc` in the desktop app (the preload bridge exists), `http` when served as the web admin. */
export const transport: 'ipc' | 'http' = window.api ? 'ipc' : 'http';

export const api: GatewayApi = window.api ? ipcApi(window.api) : httpApi();
