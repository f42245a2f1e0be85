import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { SqlUtf8 } from '../db/sql-literal';
import { numOrNull } from './db-types';

/**
 * How `events.payload` holds a payload (issue 37.6): compressed where that pays, as received
 * otherwise, told apart by `events.payload_bytes`:
 * - NULL: `payload` is the payload exactly as received;
 * - a number: `payload` is the base64 text of the Brotli stream of the payload's UTF-8 bytes, and
 *   `payload_bytes` is the received payload's length in those bytes (what a claim budgets for).
 * Base64 keeps the column text on both databases, so the literal scripts, the SQLite claim's JSON
 * and PostgreSQL's `text` stay as they are (docs/decisions/0381-compressed-event-payloads.md).
 * Every row is encoded here and every payload read decoded here: callers see the text received.
 */

/**
 * A payload as received: text, or a large body's UTF-8 bytes (`SqlUtf8`, issue 38.3), which are
 * never decoded whole on the main thread.
 */
export type Payload = string | SqlUtf8;

/** What the events table stores for a payload. */
export type StoredPayload = {
  payload: Payload;
  payload_bytes: number | null;
};

/**
 * Shorter payloads stay as received. A compression call costs ~20 µs whatever its size (the
 * encoder's setup), a tenth of a single-read POST's whole CPU, to save ~200 bytes; a batch of 50
 * reads (~10 KB) costs ~29 µs, under a µs per read (docs/performance.md, P40).
 */
const MIN_CHARS = 1024;

/**
 * Longer payloads stay as received: compressing happens on the main thread, where the large-body
 * path (issue 38.3, `LARGE_BODY_BYTES`) gives no piece of work more than one slice. Compressing a
 * megabyte at quality 3 takes a few milliseconds, less than parsing it.
 */
export const MAX_COMPRESSED_CHARS = 1024 * 1024;

/** Brotli quality 3: as fast as DEFLATE level 1 on reader batches, a third smaller (decision 0381). */
const QUALITY = 3;

/** No lone surrogate (Node 20 has `String.prototype.isWellFormed`; this TypeScript library predates it). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** The stored form of a payload as received. */
export function storedPayload(text: Payload): StoredPayload {
  // Bytes are a large body's, far over what is compressed here.
  if (text instanceof SqlUtf8) return { payload: text, payload_bytes: null };
  // A lone surrogate has no UTF-8 form, so the bytes would not give the same text back.
  if (text.length < MIN_CHARS || text.length > MAX_COMPRESSED_CHARS || !wellFormed(text))
    return { payload: text, payload_bytes: null };
  const bytes = Buffer.from(text, 'utf8');
  const packed = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).toString('base64');
  return packed.length < bytes.length
    ? { payload: packed, payload_bytes: bytes.length }
    : { payload: text, payload_bytes: null };
}

/** The payload as received, from its stored form (`payload_bytes` as the driver returns it). */
export function receivedPayload(payload: string, payloadBytes: unknown): string {
  const bytes = numOrNull(payloadBytes);
  if (bytes === null) return payload;
  return brotliDecompressSync(Buffer.from(payload, 'base64'), { maxOutputLength: Math.max(1, bytes) }).toString('utf8');
}

/** A row to insert with its payload in stored form. */
export function withStoredPayload<Row extends { payload: Payload }>(row: Row): Omit<Row, 'payload'> & StoredPayload {
  return { ...row, ...storedPayload(row.payload) };
}

/** A read row with `payload_bytes` taken out and `payload` as received. */
export function withReceivedPayload<Row extends { payload: string; payload_bytes?: unknown }>(
  row: Row,
): Omit<Row, 'payload_bytes'> {
  const { payload_bytes: bytes, ...rest } = row;
  return { ...rest, payload: receivedPayload(row.payload, bytes) };
}

/**
 * The received payload's size in bytes, in SQL (both dialects): what a claim budgets for. For a
 * compressed payload the stored text is far shorter than what the worker will hold.
 */
export const RECEIVED_BYTES_SQL = 'coalesce(payload_bytes, octet_length(payload))';
