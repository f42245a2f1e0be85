import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastTime = -1;
let lastRandom = new Uint8Array(10);

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
    lastRandom = new Uint8Array(randomBytes(10));
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let bits = 0n;
  for (const byte of lastRandom) bits = (bits << 8n) | BigInt(byte);
  let random = '';
  for (let i = 0; i < 16; i++) {
    random = ALPHABET[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return time + random;
}

export const EVENT_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
