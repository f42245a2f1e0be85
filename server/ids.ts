import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);
// Random bytes are drawn from a pool refilled 4 KiB at a time: one call per id was a visible
// share of the ingest profile.
const pool = new Uint8Array(4096);
let poolOffset = pool.length;

function freshRandom(): Uint8Array {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 10;
  return pool.slice(poolOffset - 10, poolOffset);
}

/**
 * ULID-style ids (26 Crockford base32 chars: 48-bit time, 80-bit random): sortable by creation,
 * so "newest first" is an index scan and ids double as keyset cursors. Within one millisecond the
 * random part is incremented, keeping ids strictly increasing in this process.
 */
export function newEventId(now = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      const byte = lastRandom[i] ?? 0;
      if (byte < 255) {
        lastRandom[i] = byte + 1;
        break;
      }
      lastRandom[i] = 0;
    }
  } else {
    lastTime = now;
    lastRandom = freshRandom();
  }
  const time = encodeTime(now);
  // 80 bits, 5 at a time, most significant first: two 40-bit halves fit a double exactly.
  let random = '';
  for (let half = 0; half < 2; half++) {
    let bits = 0;
    for (let i = half * 5; i < half * 5 + 5; i++) bits = bits * 256 + (lastRandom[i] ?? 0);
    for (let shift = 35; shift >= 0; shift -= 5) random += ALPHABET[Math.floor(bits / 2 ** shift) % 32];
  }
  return time + random;
}

export const EVENT_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The id's first 10 characters: its millisecond, most significant first. */
function encodeTime(ms: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/**
 * The smallest id `newEventId` can give at `ms` or later. An event's id is made from the same
 * instant as its `received_at` (and never goes back in time), so every event received at `ms` or
 * later has an id at or above this: a `since` bound on the time is also one on the id.
 */
export const eventIdFloor = (ms: number): string => `${encodeTime(ms)}${'0'.repeat(16)}`;
