import { describe, expect, it } from 'vitest';
import { SqlUtf8 } from '../../server/db/sql-literal';
import { LargePayloads } from '../../server/intake/processing/large-payloads';

const bytes = (n: number) => new SqlUtf8(Buffer.alloc(n, 'a'));

describe('LargePayloads: stored large bodies held for the worker (decision 0424)', () => {
  it('gives a held payload once', () => {
    const held = new LargePayloads(() => 0, 100);
    const payload = bytes(10);
    held.hold('a', payload);
    expect(held.take('a')).toBe(payload);
    expect(held.take('a')).toBeUndefined();
    expect(held.heldBytes).toBe(0);
  });

  it('lets the oldest go beyond its bytes, and never holds one larger than them all', () => {
    const held = new LargePayloads(() => 0, 100);
    held.hold('a', bytes(40));
    held.hold('b', bytes(40));
    held.hold('c', bytes(40));
    expect(held.take('a')).toBeUndefined();
    expect(held.heldBytes).toBe(80);
    held.hold('huge', bytes(101));
    expect(held.take('huge')).toBeUndefined();
    expect(held.take('b')?.length).toBe(40);
  });

  it('lets go of what no worker claimed within ten minutes', () => {
    let now = 0;
    const held = new LargePayloads(() => now, 100);
    held.hold('a', bytes(10));
    now = 10 * 60_000 + 1;
    held.hold('b', bytes(10));
    expect(held.take('a')).toBeUndefined();
    expect(held.take('b')?.length).toBe(10);
  });
});
