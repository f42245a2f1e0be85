/**
 * A delivery failure in plain words (issue 40): the gateway stores what the network or the
 * receiver said (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:36775`, `HTTP 503`, `TLS: …`);
 * a technician reads a sentence that says what happened and where to look, with the raw code
 * beside it in small print. Every mapping is here, so the Destinations screen, the dashboard and
 * the test-batch answer word a failure alike.
 */

export interface ExplainedError {
  /** What happened, in a sentence. */
  sentence: string;
  /** The raw code or text it came from, for the small print (null when the sentence is all there is). */
  raw: string | null;
}

/** Network error codes (Node and undici) → a sentence; `{where}` is the address the message names. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'The receiver refused the connection{where}: nothing listens there, or a firewall says no.',
  ENOTFOUND: 'The receiver’s host name could not be found{where}: check the URL and the DNS.',
  EAI_AGAIN: 'The receiver’s host name could not be looked up just now{where}: the DNS did not answer.',
  ETIMEDOUT: 'The receiver could not be reached in time{where}.',
  UND_ERR_CONNECT_TIMEOUT: 'The receiver could not be reached in time{where}.',
  ECONNRESET: 'The receiver closed the connection before answering{where}.',
  UND_ERR_SOCKET: 'The receiver closed the connection before answering{where}.',
  EPIPE: 'The receiver closed the connection while the batch was being sent{where}.',
  EHOSTUNREACH: 'No network path leads to the receiver{where}.',
  ENETUNREACH: 'No network path leads to the receiver{where}: this computer has no route to that network.',
  EADDRNOTAVAIL: 'The receiver’s address cannot be used from this computer{where}.',
};

/** TLS failures, recognized by their code or their words → a sentence. */
const TLS: [RegExp, string][] = [
  [
    /SELF_SIGNED|self[- ]signed/i,
    'The receiver’s TLS certificate is self-signed: add its CA certificate to the destination, or turn verification off.',
  ],
  [/CERT_HAS_EXPIRED|expired/i, 'The receiver’s TLS certificate has expired.'],
  [
    /ALTNAME|does not match certificate|HOSTNAME/i,
    'The receiver’s TLS certificate is not for this host name: check the URL.',
  ],
  [
    /UNABLE_TO_(VERIFY|GET)|unable to (verify|get)|issuer/i,
    'The receiver’s TLS certificate could not be verified: add the CA certificate that signed it to the destination.',
  ],
  [
    /wrong version number|packet length too long|EPROTO/i,
    'The receiver does not speak TLS on this port: check http:// or https:// in the URL.',
  ],
];

/** Some HTTP statuses say exactly what to check; the rest are worded by their class. */
const HTTP: Record<number, string> = {
  400: 'The receiver refused the batch as invalid',
  401: 'The receiver refused the gateway’s credentials: check the destination’s authentication',
  403: 'The receiver does not allow the gateway to send: check its permissions',
  404: 'The receiver has nothing at this URL: check its path',
  405: 'The receiver does not take POST at this URL',
  408: 'The receiver gave up waiting for the batch',
  413: 'The receiver found the batch too large: lower the batch size',
  415: 'The receiver does not take JSON at this URL',
  429: 'The receiver asked the gateway to slow down',
  500: 'The receiver failed with an internal error',
  502: 'A proxy before the receiver got no valid answer from it',
  503: 'The receiver is unavailable for now',
  504: 'A proxy before the receiver got no answer from it in time',
};

function httpSentence(status: number): string {
  const known = HTTP[status];
  if (known) return `${known} (HTTP ${status}).`;
  if (status >= 500) return `The receiver failed (HTTP ${status}).`;
  if (status >= 400) return `The receiver refused the batch (HTTP ${status}).`;
  return `The receiver answered HTTP ${status}.`;
}

/** `127.0.0.1:36775` or `wms.example` from a Node network message, as ` (…)`; empty when none. */
function whereIn(detail: string, code: string): string {
  const at = detail.indexOf(code);
  const after = at < 0 ? '' : detail.slice(at + code.length).trim();
  const address = /^([\w.-]+:\d+|\[[\da-f:]+\]:\d+|[\w-]+(?:\.[\w-]+)+)/i.exec(after)?.[1];
  const attempted = /attempted address: ([^,)]+)/.exec(detail)?.[1];
  const found = address ?? attempted;
  return found ? ` (${found})` : '';
}

/** `status` and `message` as the gateway stores them (`lastError`, a dead letter, a test batch). */
export function explainDeliveryError(status: number | null, message: string | null): ExplainedError {
  const text = (message ?? '').trim();
  if (status !== null) {
    const sentence = httpSentence(status);
    // The sentence names the status; the small print adds only what the gateway said beyond it.
    return { sentence, raw: text && text !== `HTTP ${status}` ? text : null };
  }
  if (text === '') return { sentence: 'The delivery failed.', raw: null };
  if (text === 'The receiver did not answer in time')
    return { sentence: 'The receiver did not answer within the destination’s timeout.', raw: 'timeout' };
  if (text.startsWith('TLS: ') || /certificate|EPROTO/i.test(text)) {
    const tls = TLS.find(([pattern]) => pattern.test(text));
    return { sentence: tls?.[1] ?? 'The TLS connection to the receiver failed.', raw: text.replace(/^TLS: /, '') };
  }
  const code = /^([A-Z][A-Z0-9_]+): ?(.*)$/s.exec(text);
  const template = code?.[1] ? NETWORK[code[1]] : undefined;
  if (code?.[1] && template)
    return { sentence: template.replace('{where}', whereIn(code[2] ?? '', code[1])), raw: code[1] };
  // The gateway's own trouble, or words it already chose: said as they are.
  return { sentence: text, raw: null };
}
