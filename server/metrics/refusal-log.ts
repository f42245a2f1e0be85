import type { RefusalList, RefusalQuery, RefusedRequest } from '../contract/dto';
import type { ErrorCode } from '../contract/errors';
import { Counter } from './counter';

/** What the HTTP app knows of a refused request when it answers it. */
export interface Refusal {
  at: number;
  source: string;
  method: string;
  path: string;
  status: number;
  code: ErrorCode;
  /** The configured route the path named, when it named one. */
  route: string | null;
}

/**
 * Plain words for the refusals a reader or client meets on data routes. The gateway's own
 * `detail` is not copied: it can quote what the client sent, and this list must hold no body,
 * header value or credential. Codes without a sentence here get a generic one.
 */
const SENTENCES: Partial<Record<ErrorCode, string>> = {
  route_not_found:
    'No active route at this address: check the base route path and route name the client posts to, and that both are active.',
  method_not_allowed: 'Wrong method for this route: a POST route takes POST, a GET route takes GET.',
  unsupported_media_type: 'The body was not sent as JSON: set the client’s Content-Type to application/json.',
  invalid_json: 'The body is not valid JSON.',
  payload_too_large: 'The body is larger than the Body limit setting allows.',
  credentials_missing: 'No credentials were sent, and this route needs them.',
  credentials_invalid: 'The username, password or token was not accepted, or is of the wrong kind for this route.',
  token_expired: 'The access token has expired: issue a new one.',
  forbidden: 'The credentials are valid, but their role may not use this route.',
  too_many_failures: 'Too many failed sign-ins from this address or for this user: refused until the window passes.',
  overloaded: 'The gateway could not take the request now (queue full or storage busy); the client should retry.',
  invalid_idempotency_key: 'The Idempotency-Key header is too long.',
  idempotency_key_reused: 'An Idempotency-Key was reused with a different body.',
  invalid_query: 'The query string holds a value the route does not accept.',
  invalid_path: 'The path holds a malformed percent-escape.',
  request_incomplete: 'The client stopped sending before the body was complete.',
  receipt_not_found: 'No submission with this receipt id was received on this route.',
  loop_detected: 'The request came from this gateway’s own delivery: a destination points back at the gateway.',
  shutting_down: 'The gateway was stopping.',
};

export const explainRefusal = (code: ErrorCode, status: number): string =>
  SENTENCES[code] ?? `Refused with status ${status} (${code}).`;

/**
 * The last refused requests, in memory only (issue 40): a misconfigured reader (wrong path, wrong
 * content type, wrong password) is the commonest site problem, and without this it leaves no
 * trace. Bounded twice: `capacity` entries in all, and `perSource` for any one address, so one
 * noisy client replaces its own oldest entries instead of pushing everybody else's out.
 */
export class RefusalLog {
  /** Oldest first. */
  private readonly entries: Refusal[] = [];
  private readonly perSourceCount = new Map<string, number>();
  /** `gateway_refused_requests_total{route, code}`: route is '' when the path named none. */
  readonly counts = new Counter<'route' | 'code'>(['route', 'code']);

  constructor(
    readonly capacity = 1000,
    readonly perSource = 100,
  ) {}

  record(refusal: Refusal): void {
    const entry = { ...refusal, path: refusal.path.slice(0, 200), method: refusal.method.slice(0, 16) };
    this.counts.inc({ route: entry.route ?? '', code: entry.code });
    if ((this.perSourceCount.get(entry.source) ?? 0) >= this.perSource) {
      this.remove(this.entries.findIndex((e) => e.source === entry.source));
    } else if (this.entries.length >= this.capacity) {
      this.remove(0);
    }
    this.entries.push(entry);
    this.perSourceCount.set(entry.source, (this.perSourceCount.get(entry.source) ?? 0) + 1);
  }

  list(query: RefusalQuery = {}): RefusalList {
    const items: RefusedRequest[] = [];
    for (let index = this.entries.length - 1; index >= 0; index -= 1) {
      const e = this.entries[index];
      if (!e || (query.source !== undefined && e.source !== query.source)) continue;
      items.push({
        at: new Date(e.at).toISOString(),
        source: e.source,
        method: e.method,
        path: e.path,
        status: e.status,
        code: e.code,
        route: e.route,
        explanation: explainRefusal(e.code, e.status),
      });
    }
    return { items, sources: [...this.perSourceCount.keys()].sort(), capacity: this.capacity };
  }

  private remove(index: number): void {
    const [gone] = this.entries.splice(index, 1);
    if (!gone) return;
    const left = (this.perSourceCount.get(gone.source) ?? 1) - 1;
    if (left === 0) this.perSourceCount.delete(gone.source);
    else this.perSourceCount.set(gone.source, left);
  }
}
