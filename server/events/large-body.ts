import { jsonTooDeep, MAX_JSON_DEPTH } from '../json-depth';
import { isNode, scanLayout, type JsonLayout, type JsonNode, type JsonRun } from '../json-layout';
import { Slices } from '../slices';
import { LargeJson } from './large-json';
import type { EventProcessor, ProcessContext } from './processor';
import { fail, type BodyParse, type Validation } from './types';

/**
 * Large bodies (issue 38.3): above `LARGE_BODY_CHARS` a body is never parsed whole on the main
 * thread. The data plane's parse step scans it (`scanLayout`) and parses it a piece at a time only
 * to check it, keeping nothing but its text and layout (`LargeJson`); validation then parses the
 * pieces again and keeps only what the event type needs (UHFTagRead: the reads; AllData: a
 * count), yielding to the event loop between pieces. Smaller bodies take the path they always did.
 */

/** Bodies longer than this (characters) are parsed and validated in slices. */
export const LARGE_BODY_CHARS = 1024 * 1024;

type Checked = { ok: true } | { ok: false; message: string };

const syntax = (error: unknown) => (error instanceof Error ? error.message : 'Malformed JSON');

/** One run of members parsed as the container it belongs to (elements or properties). */
function parseRun(text: string, run: JsonRun, kind: 'array' | 'object'): unknown[] | Record<string, unknown> {
  const inner = text.slice(run.start, run.end);
  return JSON.parse(kind === 'array' ? `[${inner}]` : `{${inner}}`) as unknown[] | Record<string, unknown>;
}

/** The key of a long object member from its text (`"key" :`), or null when that is not a key and a colon. */
function parseKey(text: string, key: JsonRun): string | null {
  const source = text.slice(key.start, key.end).trimEnd();
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
  text: string,
  node: JsonNode,
  slices: Slices,
  visit: (key: string | null, value: unknown) => void,
): Promise<void> {
  for (const part of node.parts) {
    if (slices.spent) await slices.yieldTurn();
    if ('node' in part) {
      const key = part.key ? parseKey(text, part.key) : null;
      if (part.key && key === null)
        throw new SyntaxError(`Unexpected text before a value at offset ${String(part.key.start)}`);
      visit(key, await buildNode(text, part.node, slices));
      continue;
    }
    let values;
    try {
      values = parseRun(text, part, node.kind);
    } catch (error) {
      throw new SyntaxError(`JSON text from offset ${String(part.start)}: ${syntax(error)}`, { cause: error });
    }
    if (Array.isArray(values)) for (const value of values) visit(null, value);
    else for (const key of Object.keys(values)) visit(key, values[key]);
  }
}

/** A long container as a value, built a piece at a time (JSON.parse's result, duplicate keys included). */
async function buildNode(text: string, node: JsonNode, slices: Slices): Promise<unknown> {
  if (node.kind === 'array') {
    const array: unknown[] = [];
    await eachPart(text, node, slices, (_key, value) => array.push(value));
    return array;
  }
  const object: Record<string, unknown> = {};
  await eachPart(text, node, slices, (key, value) =>
    // Defined, not assigned: a "__proto__" key is an own property, as JSON.parse makes it.
    Object.defineProperty(object, key as string, { value, writable: true, enumerable: true, configurable: true }),
  );
  return object;
}

/** A top-level value: parsed whole when short, built in pieces when long. */
async function topValue(text: string, value: JsonRun | JsonNode, slices: Slices): Promise<unknown> {
  if (isNode(value)) return buildNode(text, value, slices);
  try {
    return JSON.parse(text.slice(value.start, value.end)) as unknown;
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
  const scan = await scanLayout(body.text, body.concatenated);
  if (!scan.ok) throw new SyntaxError(scan.tooDeep ? `The body nests too deep: ${scan.message}` : scan.message);
  body.layout = scan.layout;
  return scan.layout;
}

/** Every piece parsed once and dropped: whether the whole text is valid JSON. */
export async function checkLayout(text: string, layout: JsonLayout): Promise<Checked> {
  const slices = new Slices();
  const drop = () => undefined;
  try {
    for (const value of layout) {
      if (slices.spent) await slices.yieldTurn();
      if (isNode(value)) await eachPart(text, value, slices, drop);
      else await topValue(text, value, slices);
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, message: syntax(error) };
  }
}

type RequestParse = { ok: true; json: unknown } | { ok: false; message: string };

const TOO_DEEP = `The body is not valid JSON here: it nests deeper than ${String(MAX_JSON_DEPTH)} levels`;

/**
 * `parseRequestJson` for a body of at most `LARGE_BODY_CHARS`, in one synchronous step: the
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
 * (SPEC §13) or malformed, both 400 `invalid_json`. A small body is answered at once (no
 * promise); a large one comes back, in a promise, as `LargeJson`.
 */
export function parseRequestJson(
  processor: EventProcessor<unknown>,
  text: string,
): RequestParse | Promise<RequestParse> {
  return text.length <= LARGE_BODY_CHARS
    ? parseSmallRequestJson(processor, text)
    : parseLargeRequestJson(processor, text);
}

async function parseLargeRequestJson(processor: EventProcessor<unknown>, text: string): Promise<RequestParse> {
  const concatenated = processor.largeBody?.concatenated ?? false;
  const scan = await scanLayout(text, concatenated);
  if (!scan.ok) return { ok: false, message: scan.tooDeep ? TOO_DEEP : `The body is not valid JSON: ${scan.message}` };
  const checked = await checkLayout(text, scan.layout);
  if (!checked.ok) return { ok: false, message: `The body is not valid JSON: ${checked.message}` };
  return { ok: true, json: new LargeJson(text, concatenated, scan.layout) };
}

/** The worker's parse of a stored payload: a large one is left to validation, which scans it in slices. */
export function storedJson(processor: EventProcessor<unknown>, payload: string): BodyParse {
  if (payload.length <= LARGE_BODY_CHARS) return processor.parseBody(payload);
  return { ok: true, json: new LargeJson(payload, processor.largeBody?.concatenated ?? false, null) };
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
    const value = await topValue(body.text, top, slices);
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
    if (isNode(top) && top.kind === 'array') await eachPart(body.text, top, slices, (_key, value) => each(value));
    else {
      const value = await topValue(body.text, top, slices);
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
    const result = await checkLayout(body.text, layout);
    if (!result.ok) return result;
  }
  const [top] = layout;
  if (layout.length !== 1 || !top) return { ok: true, items: layout.length };
  if (isNode(top)) return { ok: true, items: top.kind === 'array' ? top.count : 1 };
  const first = body.text.charCodeAt(top.start);
  if (first === 0x7b) return { ok: true, items: 1 };
  if (first !== 0x5b) return { ok: true, items: null };
  // A top-level array short enough to be one run (a long body of few long strings, say).
  return { ok: true, items: (JSON.parse(body.text.slice(top.start, top.end)) as unknown[]).length };
}
