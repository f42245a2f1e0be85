import { CLOSE_BRACE, CLOSE_BRACKET, jsonTooDeep, MAX_JSON_DEPTH, OPEN_BRACE, OPEN_BRACKET } from '../json-depth';
import { isNode, scanLayout, type JsonLayout, type JsonNode, type JsonRun } from '../json-layout';
import { Slices } from '../slices';
import { LargeJson } from './large-json';
import type { EventProcessor, ProcessContext } from './processor';
import type { Payload } from '../repositories/event-payload';
import { fail, type BodyParse, type Validation } from './types';

/**
 * Large bodies (issue 38.3): above `LARGE_BODY_BYTES` a body is never decoded or parsed whole on
 * the main thread. It arrives as its UTF-8 bytes (`SqlUtf8`); the data plane's parse step scans
 * them (`scanLayout`) and parses them a piece at a time only to check them, keeping nothing but
 * the bytes and their layout (`LargeJson`); validation then parses the pieces again and keeps only
 * what the event type needs (UHFTagRead: the reads; AllData: a count), yielding to the event loop
 * between pieces. Smaller bodies take the path they always did, as text.
 */

/** Bodies longer than this (UTF-8 bytes) are kept as bytes, and parsed and validated in slices. */
export const LARGE_BODY_BYTES = 1024 * 1024;

type Checked = { ok: true } | { ok: false; message: string };

const syntax = (error: unknown) => (error instanceof Error ? error.message : 'Malformed JSON');

/** The text of `run`: a run is cut between characters (see json-layout.ts). */
const textOf = (bytes: Buffer, run: JsonRun): string => bytes.toString('utf8', run.start, run.end);

/**
 * One run of members parsed as the container it belongs to (elements or properties). The byte
 * either side of a run is its container's bracket or a comma: set to the brackets for as long as
 * the run is decoded, they make it one JSON text in one string. Bracketing the decoded text
 * instead made a second copy of every run for `JSON.parse` to flatten, 100 MiB of garbage more
 * per 100 MiB body, and a peak a body's size higher (docs/performance.md, P66). Nothing else runs
 * between the change and its undoing.
 */
function parseRun(bytes: Buffer, run: JsonRun, kind: 'array' | 'object'): unknown[] | Record<string, unknown> {
  const open = bytes[run.start - 1];
  const close = bytes[run.end];
  bytes[run.start - 1] = kind === 'array' ? OPEN_BRACKET : OPEN_BRACE;
  bytes[run.end] = kind === 'array' ? CLOSE_BRACKET : CLOSE_BRACE;
  try {
    return JSON.parse(bytes.toString('utf8', run.start - 1, run.end + 1)) as unknown[] | Record<string, unknown>;
  } finally {
    bytes[run.start - 1] = open;
    bytes[run.end] = close;
  }
}

/** The key of a long object member from its text (`"key" :`), or null when that is not a key and a colon. */
function parseKey(bytes: Buffer, key: JsonRun): string | null {
  const source = textOf(bytes, key).trimEnd();
  if (!source.endsWith(':')) return null;
  try {
    const value = JSON.parse(source.slice(0, -1)) as unknown;
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Calls `visit` with each value of `node`'s runs and long members, in order, yielding between pieces. */
async function eachPart(
  bytes: Buffer,
  node: JsonNode,
  slices: Slices,
  visit: (key: string | null, value: unknown) => void,
): Promise<void> {
  for (const part of node.parts) {
    if (slices.spent) await slices.yieldTurn();
    if ('node' in part) {
      const key = part.key ? parseKey(bytes, part.key) : null;
      if (part.key && key === null)
        throw new SyntaxError(`Unexpected text before a value at offset ${String(part.key.start)}`);
      visit(key, await buildNode(bytes, part.node, slices));
      continue;
    }
    let values;
    try {
      values = parseRun(bytes, part, node.kind);
    } catch (error) {
      throw new SyntaxError(`JSON text from offset ${String(part.start)}: ${syntax(error)}`, { cause: error });
    }
    if (Array.isArray(values)) for (const value of values) visit(null, value);
    else for (const key of Object.keys(values)) visit(key, values[key]);
  }
}

/** A long container as a value, built a piece at a time (JSON.parse's result, duplicate keys included). */
async function buildNode(bytes: Buffer, node: JsonNode, slices: Slices): Promise<unknown> {
  if (node.kind === 'array') {
    const array: unknown[] = [];
    await eachPart(bytes, node, slices, (_key, value) => array.push(value));
    return array;
  }
  const object: Record<string, unknown> = {};
  await eachPart(bytes, node, slices, (key, value) =>
    // Defined, not assigned: a "__proto__" key is an own property, as JSON.parse makes it.
    Object.defineProperty(object, key as string, { value, writable: true, enumerable: true, configurable: true }),
  );
  return object;
}

/** A top-level value: parsed whole when short, built in pieces when long. */
async function topValue(bytes: Buffer, value: JsonRun | JsonNode, slices: Slices): Promise<unknown> {
  if (isNode(value)) return buildNode(bytes, value, slices);
  try {
    return JSON.parse(textOf(bytes, value)) as unknown;
  } catch (error) {
    throw new SyntaxError(
      value.start === 0 ? syntax(error) : `JSON value at offset ${String(value.start)}: ${syntax(error)}`,
      { cause: error },
    );
  }
}

/** The body's layout, scanned now if it was not yet. */
async function layoutOf(body: LargeJson): Promise<JsonLayout> {
  if (body.layout) return body.layout;
  const scan = await scanLayout(body.bytes, body.concatenated);
  if (!scan.ok) throw new SyntaxError(scan.tooDeep ? `The body nests too deep: ${scan.message}` : scan.message);
  body.layout = scan.layout;
  return scan.layout;
}

/** Every piece parsed once and dropped: whether the whole text is valid JSON. */
export async function checkLayout(bytes: Buffer, layout: JsonLayout): Promise<Checked> {
  const slices = new Slices();
  const drop = () => undefined;
  try {
    for (const value of layout) {
      if (slices.spent) await slices.yieldTurn();
      if (isNode(value)) await eachPart(bytes, value, slices, drop);
      else await topValue(bytes, value, slices);
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, message: syntax(error) };
  }
}

type RequestParse = { ok: true; json: unknown } | { ok: false; message: string };

const TOO_DEEP = `The body is not valid JSON here: it nests deeper than ${String(MAX_JSON_DEPTH)} levels`;

/**
 * `parseRequestJson` for a body given as text, in one synchronous step: the
 * common single-read POST takes no promise and no turn of the microtask queue here.
 */
export function parseSmallRequestJson(processor: EventProcessor<unknown>, text: string): RequestParse {
  // Before parsing: a deeper document could be stored, but never validated or answered again.
  if (jsonTooDeep(text)) return { ok: false, message: TOO_DEEP };
  const parsed = processor.parseBody(text);
  return parsed.ok ? parsed : { ok: false, message: `The body is not valid JSON: ${parsed.message}` };
}

/**
 * The data plane's parse step, for a body of any size, with the answers' wording: too deep
 * (SPEC §13) or malformed, both 400 `invalid_json`. A body given as text is answered at once (no
 * promise); a large one, given as bytes, comes back in a promise as `LargeJson`.
 */
export function parseRequestJson(
  processor: EventProcessor<unknown>,
  payload: Payload,
): RequestParse | Promise<RequestParse> {
  return typeof payload === 'string'
    ? parseSmallRequestJson(processor, payload)
    : parseLargeRequestJson(processor, payload.bytes);
}

async function parseLargeRequestJson(processor: EventProcessor<unknown>, bytes: Buffer): Promise<RequestParse> {
  const concatenated = processor.largeBody?.concatenated ?? false;
  const scan = await scanLayout(bytes, concatenated);
  if (!scan.ok) return { ok: false, message: scan.tooDeep ? TOO_DEEP : `The body is not valid JSON: ${scan.message}` };
  const checked = await checkLayout(bytes, scan.layout);
  if (!checked.ok) return { ok: false, message: `The body is not valid JSON: ${checked.message}` };
  return { ok: true, json: new LargeJson(bytes, concatenated, scan.layout) };
}

/**
 * The worker's parse of a stored payload: a large one is left to validation, which scans it in
 * slices. It comes as bytes from SQLite; as text from PostgreSQL, which decoded it whole already.
 */
export function storedJson(processor: EventProcessor<unknown>, payload: Payload): BodyParse {
  // Characters of a string, bytes of `SqlUtf8`: a string longer than that has at least as many bytes.
  if (payload.length <= LARGE_BODY_BYTES)
    return processor.parseBody(typeof payload === 'string' ? payload : payload.text());
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload.bytes;
  return { ok: true, json: new LargeJson(bytes, processor.largeBody?.concatenated ?? false, null) };
}

/**
 * The whole value of a large body, built a piece at a time: what `JSON.parse` gives (one value),
 * or `parseConcatenatedJson` (several values back to back). Throws SyntaxError.
 */
export async function buildJson(body: LargeJson): Promise<unknown> {
  const slices = new Slices();
  const layout = await layoutOf(body);
  const values: unknown[] = [];
  for (const top of layout) {
    const value = await topValue(body.bytes, top, slices);
    if (layout.length === 1) return value;
    if (Array.isArray(value)) for (const element of value as unknown[]) values.push(element);
    else values.push(value);
  }
  return values;
}

/**
 * An event type's validation of a parsed body. A large body goes to the type's own sliced
 * validation, or else is built in slices and validated as usual (EPCIS, GhostData, CustomTrigger:
 * their validation of a huge document still runs in one go).
 */
export function validateJson(
  processor: EventProcessor<unknown>,
  json: unknown,
  context: ProcessContext,
): Validation<unknown> | Promise<Validation<unknown>> {
  // A parsed body is validated at once: no promise for the common small one.
  return json instanceof LargeJson ? validateLargeJson(processor, json, context) : processor.validate(json, context);
}

async function validateLargeJson(
  processor: EventProcessor<unknown>,
  json: LargeJson,
  context: ProcessContext,
): Promise<Validation<unknown>> {
  if (processor.largeBody) return processor.largeBody.validate(json, context);
  let value: unknown;
  try {
    value = await buildJson(json);
  } catch (error) {
    return fail([{ path: '', message: `The body is not valid JSON: ${syntax(error)}` }]);
  }
  return processor.validate(value, context);
}

/** How a large body's records were laid out: one object (path ''), or a list (paths by index). */
export type RecordsShape = 'object' | 'list' | 'scalar';

/**
 * Visits a large body's records in order, in slices: the elements of a top-level array, a
 * top-level object itself, and with several values back to back each array's elements and each
 * object (as `parseConcatenatedJson` flattens them). Throws SyntaxError for text that is not JSON.
 */
export async function forEachRecord(
  body: LargeJson,
  visit: (record: unknown, index: number) => void,
): Promise<RecordsShape> {
  const layout = await layoutOf(body);
  const slices = new Slices();
  let index = 0;
  const each = (value: unknown) => visit(value, index++);
  for (const top of layout) {
    if (slices.spent) await slices.yieldTurn();
    if (isNode(top) && top.kind === 'array') await eachPart(body.bytes, top, slices, (_key, value) => each(value));
    else {
      const value = await topValue(body.bytes, top, slices);
      if (layout.length === 1 && (value === null || typeof value !== 'object')) return 'scalar';
      if (layout.length === 1 && !Array.isArray(value)) {
        visit(value, 0);
        return 'object';
      }
      if (Array.isArray(value)) for (const element of value as unknown[]) each(element);
      else each(value);
    }
  }
  return 'list';
}

/** How many members a large body's single top-level value has (1 for an object), checking every piece; null for a scalar. */
export async function countItems(
  body: LargeJson,
): Promise<{ ok: true; items: number | null } | { ok: false; message: string }> {
  const unchecked = body.layout === null;
  let layout: JsonLayout;
  try {
    layout = await layoutOf(body);
  } catch (error) {
    return { ok: false, message: syntax(error) };
  }
  // A stored payload the worker claimed is checked here; the data plane's check already was.
  if (unchecked) {
    const result = await checkLayout(body.bytes, layout);
    if (!result.ok) return result;
  }
  const [top] = layout;
  if (layout.length !== 1 || !top) return { ok: true, items: layout.length };
  if (isNode(top)) return { ok: true, items: top.kind === 'array' ? top.count : 1 };
  const first = body.bytes[top.start];
  if (first === 0x7b) return { ok: true, items: 1 };
  if (first !== 0x5b) return { ok: true, items: null };
  // A top-level array short enough to be one run (a long body of few long strings, say).
  return { ok: true, items: (JSON.parse(textOf(body.bytes, top)) as unknown[]).length };
}
