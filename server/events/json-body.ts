import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../json-depth';
import type { BodyParse } from './types';

/**
 * Parses a request body as exactly one JSON value. An empty body is malformed: every event type
 * needs a payload, and `JSON.parse('')` would otherwise be the only hint.
 */
export function parseJsonBody(raw: string): BodyParse {
  if (raw.trim().length === 0) return { ok: false, message: 'The request body is empty' };
  try {
    return { ok: true, json: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, message: syntaxMessage(error) };
  }
}

/**
 * Parses a body that holds one JSON value, or several JSON objects/arrays written back to back
 * (`{..}{..}`, `{..}\n{..}`): Zebra IoT Connector batches its HTTP POSTs that way, and Speedway
 * Connect writes one object per tag. Several values become one array; a value that is itself an
 * array is flattened one level, so `[a,b][c]` reads as `[a,b,c]`.
 *
 * The split is a real scan (strings and escapes respected, so a `}{` inside a string is not a
 * boundary) that looks at every character once; each piece is then checked by `JSON.parse`, so
 * the whole thing stays linear in the body size.
 */
export function parseConcatenatedJson(raw: string): BodyParse {
  // The common case, one value, needs no scan: if the whole body parses, the scan would have
  // found one range and parsed the whole body anyway (native JSON.parse is much faster than the
  // JS scan; figures: docs/performance.md, P06).
  try {
    return { ok: true, json: JSON.parse(raw) as unknown };
  } catch {
    // Several values back to back, or malformed: the scan tells which, with its own messages.
  }
  const pieces = splitTopLevel(raw);
  if (!pieces.ok) return pieces;
  const { ranges } = pieces;
  if (ranges.length === 0) return { ok: false, message: 'The request body is empty' };
  // One value: parse the body as a whole so a lone scalar or a plain document behaves exactly as
  // `parseJsonBody` would, error messages included.
  if (ranges.length === 1) return parseJsonBody(raw);

  const values: unknown[] = [];
  for (const [index, [start, end]] of ranges.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(raw.slice(start, end)) as unknown;
    } catch (error) {
      return {
        ok: false,
        message: `JSON value ${String(index + 1)} (at offset ${String(start)}): ${syntaxMessage(error)}`,
      };
    }
    if (Array.isArray(value)) values.push(...(value as unknown[]));
    else values.push(value);
  }
  return { ok: true, json: values };
}

type Split = { ok: true; ranges: [number, number][] } | { ok: false; message: string };

/**
 * Finds the `[start, end)` ranges of the top-level values. Only objects and arrays may follow one
 * another; anything else (a scalar, garbage) is allowed solely as the one and only value, and
 * then `JSON.parse` judges it.
 */
function splitTopLevel(raw: string): Split {
  const ranges: [number, number][] = [];
  let pos = skipWhitespace(raw, 0);
  while (pos < raw.length) {
    const first = raw[pos];
    if (first !== '{' && first !== '[') {
      if (ranges.length === 0) return { ok: true, ranges: [[pos, raw.length]] };
      return {
        ok: false,
        message: `Unexpected ${describe(raw, pos)} at offset ${String(pos)} after a complete JSON value`,
      };
    }
    const end = findValueEnd(raw, pos);
    if (end < 0) return { ok: false, message: 'Unexpected end of JSON input: an object or array is not closed' };
    ranges.push([pos, end]);
    pos = skipWhitespace(raw, end);
  }
  return { ok: true, ranges };
}

/**
 * Returns the index just past the object/array that opens at `start`, or -1 when the input ends
 * first. Brackets are only counted, not matched by kind: a mismatch such as `{]` still yields a
 * range, and `JSON.parse` then rejects that range with a proper message.
 */
function findValueEnd(raw: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH)
        i++; // the escaped character can never end the string
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** JSON's own whitespace only (RFC 8259 §2): a form feed or NBSP between values is garbage. */
function skipWhitespace(raw: string, from: number): number {
  let i = from;
  while (i < raw.length) {
    const c = raw[i];
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') break;
    i++;
  }
  return i;
}

function describe(raw: string, pos: number): string {
  return `character ${JSON.stringify(raw.slice(pos, pos + 1))}`;
}

function syntaxMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'Malformed JSON';
}
