import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import type { DestinationRecord } from '../repositories/destinations.repo';
import type { OutboxItem } from '../repositories/outbox.repo';
import type { SecretBox } from '../secret-box';
import { iso } from '../time';
import { VERSION } from '../version';
import type { FailureReason } from './ledger';
import { isRetryableStatus, retryAfterMs } from './retry-policy';

/** How one attempt ended. */
export type AttemptResult =
  | { ok: true; status: number }
  | {
      ok: false;
      /** Worth another try (408, 429, 5xx, timeout, connection or TLS trouble). */
      retry: boolean;
      reason: FailureReason;
      status: number | null;
      message: string;
      /** The receiver's Retry-After, in ms from now, when it sent one. */
      retryAfterMs: number | null;
    };

/**
 * Every delivery carries the sending gateway's instance id: a gateway refuses (508) a request
 * that carries its own, so a destination that leads back to it cannot multiply its events.
 */
export const GATEWAY_ID_HEADER = 'x-gateway-id';

/** What a receiver may answer that is read (and thrown away): enough for an error page. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A test batch (issue 40) carries this header, and `"test": true` in its body and its item. */
export const TEST_HEADER = 'x-gateway-test';
/** How much of the receiver's answer to a test batch is shown. */
const MAX_TEST_ANSWER_CHARS = 2000;

/** The start of an answer's body as text (at most `chars` characters); the rest is dropped. */
async function answerText(body: AsyncIterable<Buffer> & { destroy(): unknown }, chars: number): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length >= chars) break;
    }
  } catch {
    // What came before the failure is still the receiver's answer.
  } finally {
    body.destroy();
  }
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}

/**
 * The request body (SPEC §11): `{batchId, events: [...]}`. Each item's `data` is stored as JSON
 * text and goes in as it is, so a retry sends the very same bytes.
 */
export function batchBody(batchId: string, items: readonly OutboxItem[]): string {
  const events = items.map(
    (item) =>
      `{"id":${JSON.stringify(item.itemId)},"eventId":${JSON.stringify(item.eventId)},` +
      `"route":${JSON.stringify(item.routeName)},"endpoint":${JSON.stringify(item.endpointName)},` +
      `"eventType":${JSON.stringify(item.eventType)},"receivedAt":"${iso(item.receivedAt)}",` +
      `"processedAt":"${iso(item.processedAt)}","data":${item.data}}`,
  );
  return `{"batchId":${JSON.stringify(batchId)},"events":[${events.join(',')}]}`;
}

/**
 * A test batch's body (issue 40): the delivery format with one item, a CustomTrigger
 * `gateway.test`, and `"test": true` on the batch and on the item, so a receiver can tell it from
 * the real thing (beside the `X-Gateway-Test` header). No route or endpoint sent it: both are null.
 */
export function testBatchBody(batchId: string, itemId: string, at: number): string {
  const when = iso(at);
  const item = {
    id: itemId,
    eventId: itemId,
    route: null,
    endpoint: null,
    eventType: 'CustomTrigger',
    receivedAt: when,
    processedAt: when,
    test: true,
    data: { trigger: 'gateway.test', source: 'gateway', occurredAt: when, params: { test: true } },
  };
  return JSON.stringify({ batchId, test: true, events: [item] });
}

/** `X-Gateway-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

function authHeaders(
  destination: DestinationRecord,
  secret: string,
  body: string,
  now: number,
): Record<string, string> {
  switch (destination.authType) {
    case 'basic':
      return {
        authorization: `Basic ${Buffer.from(`${destination.authUsername ?? ''}:${secret}`).toString('base64')}`,
      };
    case 'bearer':
      return { authorization: `Bearer ${secret}` };
    case 'hmac':
      return { 'x-gateway-signature': signature(secret, body, Math.floor(now / 1000)) };
    case 'none':
      return {};
  }
}

/** TLS, or the connection, or the clock: what kind of trouble an error from undici is. */
function classify(error: unknown, timedOut: boolean): { reason: FailureReason; message: string } {
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? '';
  const message = e.cause?.message ?? e.message ?? String(error);
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return { reason: 'timeout', message: 'The receiver did not answer in time' };
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME/i.test(code) || /certificate|ssl|tls/i.test(message))
    return { reason: 'tls', message: `TLS: ${message}` };
  return { reason: 'connection', message: code ? `${code}: ${message}` : message };
}

/**
 * Sends batches to one destination over a keep-alive connection pool of its own (its TLS trust
 * is its own: verification on or off, a custom CA). One per destination configuration.
 */
export class HttpDelivery {
  private readonly agent: Agent;

  /** The destination's credential, opened at its first use (kept for this configuration's life). */
  private secret: string | null = null;

  constructor(
    private readonly destination: DestinationRecord,
    private readonly gatewayId: string,
    private readonly secrets: SecretBox,
  ) {
    this.agent = new Agent({
      connections: 4,
      keepAliveTimeout: 30_000,
      connect: {
        rejectUnauthorized: destination.tlsVerify,
        ...(destination.caCertificatePem ? { ca: destination.caCertificatePem } : {}),
      },
    });
  }

  /**
   * One attempt: `attempt` is 1 for the first (X-Gateway-Attempt). `abort` ends it early (shutdown).
   * A credential this gateway's key cannot open throws (`SecretKeyMismatch`): that is the
   * gateway's trouble, not the receiver's, and no attempt is made or counted.
   */
  async post(batchId: string, body: string, attempt: number, now: number, abort: AbortSignal): Promise<AttemptResult> {
    const { result } = await this.send(batchId, body, { 'x-gateway-attempt': String(attempt) }, now, abort, 0);
    return result;
  }

  /**
   * A test batch (issue 40): sent exactly as a delivery is (same headers, authentication and
   * signature) plus `X-Gateway-Test: 1`, and the start of the receiver's answer is kept to show.
   */
  async test(batchId: string, body: string, now: number): Promise<{ result: AttemptResult; answer: string | null }> {
    const headers = { 'x-gateway-attempt': '1', [TEST_HEADER]: '1' };
    return this.send(batchId, body, headers, now, new AbortController().signal, MAX_TEST_ANSWER_CHARS);
  }

  /** One request; `keepChars` of the answer's text are kept (0: it is read and dropped). */
  private async send(
    batchId: string,
    body: string,
    extra: Record<string, string>,
    now: number,
    abort: AbortSignal,
    keepChars: number,
  ): Promise<{ result: AttemptResult; answer: string | null }> {
    const d = this.destination;
    this.secret ??= d.authSecret === null ? '' : this.secrets.open(d.authSecret);
    const auth = authHeaders(d, this.secret, body, now);
    const timeout = AbortSignal.timeout(d.timeoutMs);
    try {
      const answer = await request(d.url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: AbortSignal.any([timeout, abort]),
        headers: {
          ...d.headers,
          'content-type': 'application/json',
          'idempotency-key': batchId,
          ...extra,
          'user-agent': `gateway/${VERSION}`,
          [GATEWAY_ID_HEADER]: this.gatewayId,
          ...auth,
        },
        body,
      });
      // Read and drop the answer (bounded) so the connection can be kept for the next batch.
      const text = keepChars > 0 ? await answerText(answer.body, keepChars) : null;
      if (keepChars === 0) await answer.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
      const status = answer.statusCode;
      if (status >= 200 && status < 300) return { result: { ok: true, status }, answer: text };
      const result: AttemptResult = {
        ok: false,
        retry: isRetryableStatus(status),
        reason: 'http_status',
        status,
        message: `HTTP ${status}`,
        retryAfterMs: retryAfterMs(answer.headers['retry-after'], now),
      };
      return { result, answer: text };
    } catch (error) {
      const { reason, message } = classify(error, timeout.aborted);
      return { result: { ok: false, retry: true, reason, status: null, message, retryAfterMs: null }, answer: null };
    }
  }

  close(): Promise<void> {
    return this.agent.close().catch(() => undefined);
  }
}
