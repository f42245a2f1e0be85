import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SqlUtf8 } from '../../server/db/sql-literal';
import { LARGE_BODY_BYTES, parseRequestJson, parseSmallRequestJson } from '../../server/events/large-body';
import { LargeJson } from '../../server/events/large-json';
import { PROCESSORS } from '../../server/events/registry';
import { bodyHash } from '../../server/intake/body-hash';

// Decision 0405: a small body's rules are one synchronous step; a large body's stay sliced.
const uhf = PROCESSORS.UHFTagRead;
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('the body rules of a small body', () => {
  it('hash at once, and a large body (bytes) in a promise of the same digest', async () => {
    const small = '{"epc":"3074257BF7194E4000001A85"}';
    expect(bodyHash(small)).toBe(sha(small));
    const large = `[${'"é€",'.repeat(LARGE_BODY_BYTES / 4)}"é"]`;
    const pending = bodyHash(new SqlUtf8(Buffer.from(large)));
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(sha(large));
  });

  it('parse at once with the wording of the sliced path', async () => {
    const body = '{"a":1}{"b":2}';
    expect(parseSmallRequestJson(uhf, body)).toEqual({ ok: true, json: [{ a: 1 }, { b: 2 }] });
    expect(parseSmallRequestJson(uhf, body)).toEqual(await parseRequestJson(uhf, body));
    const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
    expect(parseSmallRequestJson(uhf, deep)).toEqual(await parseRequestJson(uhf, deep));
    expect(parseSmallRequestJson(uhf, deep).ok).toBe(false);
    expect(parseSmallRequestJson(uhf, '{"a":')).toEqual(await parseRequestJson(uhf, '{"a":'));
    const large = await parseRequestJson(
      uhf,
      new SqlUtf8(Buffer.from(`[${'{"a":1},'.repeat(LARGE_BODY_BYTES / 8)}{"a":1}]`)),
    );
    expect(large.ok && large.json instanceof LargeJson).toBe(true);
  });
});
