import { Slices } from './slices';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, MAX_JSON_DEPTH, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-depth';

/**
 * The layout of a large JSON text, given as its UTF-8 bytes, found by a scan that yields to the
 * event loop (issue 38.3,
 * SPEC §13: `/_health` within 1 s whatever the gateway is doing). `JSON.parse` of a whole large
 * body holds the main thread for all of it in one go, and the tree it builds costs several times
 * the text (figures: docs/performance.md, P32); with the
 * layout the text is parsed a piece at a time (events/large-body.ts), each piece a few hundred
 * kilobytes, and what is not needed is dropped as it goes. The bytes are scanned, not a decoded
 * string: every character JSON's structure uses is ASCII, and no byte of a multi-byte UTF-8
 * character is, so offsets are byte offsets and every cut falls between characters.
 *
 * A container (array or object) longer than `PIECE_BYTES` becomes a `JsonNode`: its members in
 * order, as runs of whole members short enough to parse at once, and as nodes of their own for
 * members that are themselves long containers. Shorter containers are only passed over. The scan
 * also does what `jsonTooDeep` does (SPEC §13 depth limit) and checks what `JSON.parse` will not
 * see across pieces: brackets that match, no empty member (`[1,,2]`, `[1,]`), nothing but
 * whitespace beside a long member, nothing after the value(s). Everything inside a run is
 * `JSON.parse`'s to judge.
 */

/** A run of whole members of one container, as bytes without the brackets: `[start, end)`. */
export interface JsonRun {
  start: number;
  end: number;
}

/** A long member of a container: its key's bytes (objects; `"key" :`) and its value's layout. */
export interface JsonMember {
  key: JsonRun | null;
  node: JsonNode;
}

export interface JsonNode {
  kind: 'array' | 'object';
  start: number;
  end: number;
  /** Members in order: runs of short ones, and long ones. */
  parts: (JsonRun | JsonMember)[];
  /** How many members the container has. */
  count: number;
}

/** The top-level values in order: short ones as runs, long containers as nodes. */
export type JsonLayout = (JsonRun | JsonNode)[];

export type LayoutScan = { ok: true; layout: JsonLayout } | { ok: false; message: string; tooDeep?: boolean };

/** Members are gathered into runs of about this many bytes, each parsed at once. */
export const PIECE_BYTES = 256 * 1024;

export const isNode = (part: JsonRun | JsonMember | JsonNode): part is JsonNode => 'kind' in part;

/** An open container during the scan. Reused from a fixed stack: no object per container. */
interface Frame {
  kind: 'array' | 'object';
  start: number;
  /** Null until the container turns out long (its first run is cut or a long member ends). */
  parts: (JsonRun | JsonMember)[] | null;
  /** Where the current run of short members starts, and how many members it has so far. */
  runStart: number;
  runMembers: number;
  /** Where the current member starts (after `[`, `{` or a comma). */
  memberStart: number;
  /** The current member has something other than whitespace. */
  content: boolean;
  /** The current member's long value, and whether anything but whitespace came before or after it. */
  long: JsonNode | null;
  beforeLong: boolean;
  afterLong: boolean;
  /** Whether the current member had content when its latest child container opened. */
  contentBeforeChild: boolean;
  /** Members before the current one; whether a comma was seen. */
  count: number;
}

const newFrame = (): Frame => ({
  kind: 'array',
  start: 0,
  parts: null,
  runStart: 0,
  runMembers: 0,
  memberStart: 0,
  content: false,
  long: null,
  beforeLong: false,
  afterLong: false,
  contentBeforeChild: false,
  count: 0,
});

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const COMMA = 0x2c;
/** Bytes scanned between two looks at the clock. */
const BYTES_PER_CHECK = 64 * 1024;

/** The character at byte offset `i`, for a message (a whole one when `i` starts a multi-byte one). */
function characterAt(bytes: Buffer, i: number): string {
  const [character = ''] = bytes.toString('utf8', i, Math.min(bytes.length, i + 4));
  return JSON.stringify(character);
}

/**
 * Scans `bytes` (UTF-8) in slices. `concatenated`: several objects/arrays may follow one another (Zebra
 * batches, see `parseConcatenatedJson`); otherwise exactly one value. A lone scalar is allowed as
 * the only value and left to `JSON.parse` whole.
 */
export async function scanLayout(bytes: Buffer, concatenated: boolean, pieceBytes = PIECE_BYTES): Promise<LayoutScan> {
  const slices = new Slices();
  const stack: Frame[] = [];
  const layout: JsonLayout = [];
  const fail = (message: string): LayoutScan => ({ ok: false, message });
  const at = (i: number) => `${characterAt(bytes, i)} at offset ${String(i)}`;
  let depth = 0;
  let inString = false;
  let valueStart = -1;
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    if ((i & (BYTES_PER_CHECK - 1)) === 0 && slices.spent) await slices.yieldTurn();
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (isSpace(c)) continue;
    const top = depth > 0 ? stack[depth - 1] : undefined;
    if (top && top.long !== null && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET) top.afterLong = true;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === MAX_JSON_DEPTH) {
        return { ok: false, tooDeep: true, message: `it nests deeper than ${String(MAX_JSON_DEPTH)} levels` };
      }
      if (top) {
        top.contentBeforeChild = top.content;
        top.content = true;
      } else {
        if (layout.length > 0 && !concatenated) return fail(`Unexpected ${at(i)} after a complete JSON value`);
        valueStart = i;
      }
      const frame = (stack[depth] ??= newFrame());
      frame.kind = c === OPEN_BRACE ? 'object' : 'array';
      frame.start = i;
      frame.parts = null;
      frame.runStart = frame.memberStart = i + 1;
      frame.runMembers = frame.count = 0;
      frame.content = frame.beforeLong = frame.afterLong = false;
      frame.long = null;
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (!top || (c === CLOSE_BRACE) !== (top.kind === 'object'))
        return fail(`Unexpected ${at(i)}: no open ${c === CLOSE_BRACE ? 'object' : 'array'} to close`);
      const problem = endMember(top, i, true, pieceBytes);
      if (problem) return fail(`${problem} before offset ${String(i)}`);
      depth--;
      const end = i + 1;
      const node: JsonNode | null = top.parts
        ? { kind: top.kind, start: top.start, end, parts: top.parts, count: top.count }
        : null;
      top.parts = null;
      const parent = depth > 0 ? stack[depth - 1] : undefined;
      if (parent) {
        if (node) {
          parent.long = node;
          parent.beforeLong = parent.contentBeforeChild;
        }
      } else {
        layout.push(node ?? { start: valueStart, end });
        valueStart = -1;
      }
    } else if (c === COMMA) {
      if (!top) return fail(`Unexpected ${at(i)} between JSON values`);
      const problem = endMember(top, i, false, pieceBytes);
      if (problem) return fail(`${problem} before offset ${String(i)}`);
    } else if (top) {
      top.content = true;
      if (c === QUOTE) inString = true;
    } else if (layout.length === 0) {
      // A lone scalar (or garbage): JSON.parse judges it whole, as `parseJsonBody` would.
      layout.push({ start: i, end: length });
      return { ok: true, layout };
    } else return fail(`Unexpected ${at(i)} after a complete JSON value`);
  }
  if (inString || depth > 0) return fail('Unexpected end of JSON input: an object or array is not closed');
  if (layout.length === 0) return fail('The request body is empty');
  return { ok: true, layout };
}

/**
 * The current member of `frame` ends at `i` (a comma, or the closing bracket when `closing`):
 * checks it, and adds it to the container's runs or parts. Returns what is wrong, if anything.
 */
function endMember(frame: Frame, i: number, closing: boolean, pieceBytes: number): string | null {
  const empty = !frame.content && frame.long === null;
  if (empty) {
    // `[]` and `{}` are fine; `[,`, `[1,,` and `[1,]` are not.
    if (closing && frame.count === 0) return null;
    return 'An empty member';
  }
  if (frame.long !== null) {
    if (frame.afterLong) return 'Unexpected text after a value';
    if (frame.kind === 'array' && frame.beforeLong) return 'Unexpected text before a value';
    frame.parts ??= [];
    if (frame.runMembers > 0) frame.parts.push({ start: frame.runStart, end: frame.memberStart - 1 });
    // An object's member `"key": <long value>`: the key's text is checked where it is read.
    const key = frame.kind === 'object' ? { start: frame.memberStart, end: frame.long.start } : null;
    frame.parts.push({ key, node: frame.long });
    frame.runStart = i + 1;
    frame.runMembers = 0;
  } else {
    frame.runMembers++;
    if (closing ? frame.parts !== null : i - frame.runStart >= pieceBytes) {
      frame.parts ??= [];
      frame.parts.push({ start: frame.runStart, end: i });
      frame.runStart = i + 1;
      frame.runMembers = 0;
    }
  }
  frame.count++;
  frame.memberStart = i + 1;
  frame.content = frame.beforeLong = frame.afterLong = false;
  frame.long = null;
  return null;
}
