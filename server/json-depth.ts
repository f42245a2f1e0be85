/** The deepest nesting of arrays and objects a JSON body may have (SPEC §13). */
export const MAX_JSON_DEPTH = 64;

/** Character codes of JSON's structure, for scans of JSON text (here and in events/json-body.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`. A scan of the text (strings and
 * escapes respected), before or beside `JSON.parse`: parsing copes with any depth, but everything
 * after it that recurses (validators, `JSON.stringify` of a page holding the value) would throw
 * on every read for ever. Counts brackets without matching their kinds; malformed text is
 * `JSON.parse`'s to refuse. Back-to-back values (`{..}{..}`) are measured each on its own.
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** Whether an already parsed value nests deeper than `limit` (iterative: any depth is safe). */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
